import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import { BUILT_PROGRAM } from '../../support/cli-process';
import { writeLoginSecret } from '../login/login-secret';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The built program, as installed (test/support/cli-build-setup.ts builds it first). */
const BIN = path.join(ROOT, BUILT_PROGRAM);

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `report-export <args>` from `cwd` (the built program by absolute path, so any directory
 * works), in a process group of its own: `kill` ends it and whatever it started.
 */
function startIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: {
      PATH: process.env.PATH,
      HOME: env.HOME,
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      NO_COLOR: '1',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, finished };
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('report-export run: two commands sharing one secret from two directories', () => {
  let sim: RunningSimulator;
  let work: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // Refresh tokens are one-time (a replay revokes the login) and access tokens live 2 s,
    // under the 5-minute refresh skew: every request of both runs refreshes, so two runs
    // that do not share one refresh lease redeem one refresh token twice.
    sim = await startSimulator({
      autoApprove: true,
      rotateRefreshTokens: true,
      accessTokenTtlSeconds: 2,
      reportLatencyMs: 200,
      rowsPerDay: 100,
    });
    work = await mkdtemp(path.join(tmpdir(), 'run-shared-secret-'));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      const exited = child.exitCode !== null || child.signalCode !== null;
      killGroup(child);
      if (!exited) await once(child, 'exit');
    }
  });

  afterAll(async () => {
    await sim?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('keeps the login when two runs refresh it at once, one token refresh at a time', async () => {
    // Prepare: one secret; two working directories elsewhere, each with its own lake.
    const secretFile = path.join(work, 'secret', 'login.json');
    await mkdir(path.dirname(secretFile), { recursive: true });
    await writeLoginSecret(sim, secretFile);
    const home = path.join(work, 'home');
    await mkdir(home);
    const cwds = [path.join(work, 'a'), path.join(work, 'b'), path.join(work, 'c')];
    for (const cwd of cwds) await mkdir(cwd);
    const args = [
      'run',
      '--date',
      '2026-03-10',
      '--report',
      'Lost calls',
      '--secret-file',
      secretFile,
      '--time-zone',
      sim.timeZoneId,
      '--wait-ms',
      '50',
      '--out',
      'lake',
      '--json',
    ];
    const run = (cwd: string) => {
      const started = startIn(cwd, args, { HOME: home });
      children.push(started.child);
      const timer = setTimeout(() => killGroup(started.child), 120_000);
      return started.finished.finally(() => clearTimeout(timer));
    };

    // Act: two at once, from a and b.
    const [a, b] = await Promise.all([run(cwds[0] as string), run(cwds[1] as string)]);

    // Assess: both exported.
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const r of [a, b])
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'SUCCEEDED', partitions: 1 });

    // Act: a third, afterwards, from c.
    const c = await run(cwds[2] as string);

    // Assess: the login survived; the refresh lease is the secret's, left free.
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).not.toMatch(/LoginRequired|log in again/);
    const leases = path.join(path.dirname(secretFile), '.login.json.leases');
    expect((await readdir(leases)).filter((f) => f.endsWith('.lease'))).toEqual([]);
    const secret = JSON.parse(await readFile(secretFile, 'utf8')) as { service: { refreshToken: string } };
    expect(secret.service.refreshToken).toEqual(expect.any(String));
  }, 300_000);
});
