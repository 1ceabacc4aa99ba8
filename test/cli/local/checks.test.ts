import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { type LoginDir, makeLoginDir } from '../login/login-secret';

/**
 * What `npm start` (the `local` command) and `run` check before any work: --out, the
 * dates, --rows-per-day; a secret file open to others is warned about; --json prints
 * exactly one JSON document on stdout. The checks run the program's `main` in this process
 * (test/support/cli-in-process.ts); --json runs the built program, whose own stdout is the
 * point.
 */

let work: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'local-checks-'));
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

const local = (args: string[]) =>
  runInProcess(['local', '--secret-file', path.join(work, 'secrets.json'), ...args], {
    cleanEnv: true,
    cwd: work,
  });

describe('report-export local refuses before starting anything', () => {
  it('exits 2 naming --out and the file when --out is a regular file', async () => {
    // Prepare
    const file = path.join(work, 'lake.txt');
    await writeFile(file, 'not a lake');

    // Act
    const r = await local(['--out', file]);

    // Assess
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--out ${file} is not a directory (it is a regular file)`);
    expect(r.stderr).not.toMatch(/EEXIST|ENOENT/);
    expect(r.stderr).not.toContain('starting the local service');
  });

  it('exits 2 naming the link and its missing target when --out is a dangling symbolic link', async () => {
    // Prepare
    const link = path.join(work, 'lake');
    await symlink(path.join(work, 'gone'), link);

    // Act
    const r = await local(['--out', link]);

    // Assess
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `--out ${link} is a symbolic link to ${path.join(work, 'gone')}, which does not exist`,
    );
    expect(r.stderr).not.toMatch(/EEXIST|ENOENT/);
    expect(r.stderr).not.toContain('starting the local service');
  });

  it('exits 2 saying --rows-per-day must be a positive integer when it is -1', async () => {
    // Act
    const r = await local(['--rows-per-day', '-1']);

    // Assess
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--rows-per-day must be a positive integer (1 to 1000000), got '-1'");
    expect(r.stderr).not.toContain('needs a value');
  });

  it('exits 2 naming today in the tenant zone when --to is in the future, and writes nothing', async () => {
    // Act
    const r = await local(['--from', '2099-01-01', '--to', '2099-01-07', '--out', path.join(work, 'lake')]);

    // Assess
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /--to 2099-01-07 is after today \(\d{4}-\d\d-\d\d\) in the tenant's time zone Europe\/London/,
    );
    expect(r.stderr).not.toContain('starting the local service');
    await expect(stat(path.join(work, 'lake'))).rejects.toThrow(/ENOENT/);
    await expect(stat(path.join(work, 'secrets.json'))).rejects.toThrow(/ENOENT/);
  });
});

describe('report-export run with the local service', () => {
  let sim: RunningSimulator;
  let login: LoginDir;

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0 });
    login = await makeLoginDir(sim, 'local-checks-login-');
  });

  afterAll(async () => {
    await sim?.close();
    await login?.remove();
  });

  it('exits 2 before reading the login when --date is in the future', async () => {
    // Act
    const r = await runInProcess(
      [
        'run',
        '--date',
        '2099-01-01',
        '--time-zone',
        sim.timeZoneId,
        '--out',
        path.join(work, 'lake'),
        ...login.flags,
      ],
      { cleanEnv: true, cwd: work },
    );

    // Assess
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--date 2099-01-01 is after today');
    expect(r.stderr).not.toContain('Reading the login');
  });

  it('warns naming the secret file and chmod 600 when others may read it, and still runs', async () => {
    // Prepare
    const file = login.flags[1] as string;
    await chmod(file, 0o644);

    try {
      // Act
      const r = await runInProcess(['workspaces', 'list', ...login.flags, '--json'], {
        cleanEnv: true,
        cwd: work,
      });

      // Assess
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `warning: the secret file ${file} may be read by other users (mode 644); it holds the login's tokens: chmod 600 ${file}`,
      );
      expect(JSON.parse(r.stdout)).toEqual(expect.any(Array));
    } finally {
      await chmod(file, 0o600);
    }
  });

  it('does not warn when the secret file is mode 600', async () => {
    // Act
    const r = await runInProcess(['workspaces', 'list', ...login.flags, '--json'], {
      cleanEnv: true,
      cwd: work,
    });

    // Assess
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
  });
});

// The built program, end to end (a whole local export): the process's own stdout carries the one document.
describe('report-export local --json', () => {
  it('prints exactly one JSON document on stdout even when something else writes to stdout during the run', async () => {
    // Prepare: a module that writes to stdout when the local service gets its first request.
    const stray = fileURLToPath(new URL('fixtures/stray-stdout.mjs', import.meta.url));
    const out = path.join(work, 'lake');

    // Act
    const r = await runCli(
      [
        'local',
        '--from',
        '2026-11-02',
        '--to',
        '2026-11-02',
        '--rows-per-day',
        '5',
        '--report',
        'Lost calls',
        '--out',
        out,
        '--secret-file',
        path.join(work, 'secrets.json'),
        '--json',
      ],
      {
        cleanEnv: true,
        env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${stray}`.trim() },
        timeoutMs: 180_000,
      },
    );

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const document = JSON.parse(r.stdout) as { status: string; outDir: string };
    expect(document).toMatchObject({ status: 'SUCCEEDED', outDir: out });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    // What was written meanwhile is not lost: it went to stderr.
    expect(r.stderr).toContain('a library notice on console.log');
    expect(r.stderr).toContain('a library notice on process.stdout');
    expect(await readFile(path.join(out, 'summary.html'), 'utf8')).toContain('<html');
  }, 200_000);
});
