import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import { obtainTokens } from './sim-harness';

/**
 * Starts `bin/sim.ts` with node itself and tsx as a loader (no tsx wrapper process in
 * between), in a process group of its own, so stopping the group stops everything it started.
 */
function startSim(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'bin/sim.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** True while any process of the group led by `pid` exists (signal 0 only checks). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * SIGKILLs whatever is left of the child's process group (the child, and helpers such as
 * tsx's esbuild service) and waits until the group is empty; false if it never empties.
 */
async function stopGroup(child: ChildProcess): Promise<boolean> {
  const { pid } = child;
  if (pid === undefined) return true;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  if (!exited) await once(child, 'exit');
  // Other members are not our children: poll (bounded) until the kernel has removed them.
  for (let i = 0; i < 200 && groupAlive(pid); i++) await sleep(10);
  return !groupAlive(pid);
}

/** Collects stdout lines of a child until `count` lines arrived or the process exits (bounded by the test timeout). */
async function firstLines(child: ChildProcess, count: number): Promise<string[]> {
  const lines: string[] = [];
  if (!child.stdout) throw new Error('child has no stdout');
  const rl = createInterface({ input: child.stdout });
  for await (const line of rl) {
    lines.push(line);
    if (lines.length >= count) break;
  }
  return lines;
}

describe('bin/sim.ts', () => {
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (!child) return;
    const stopped = await stopGroup(child);
    child = undefined;
    // Nothing the test started may outlive it (a leftover service keeps running after npm test).
    expect(stopped).toBe(true);
  });

  it('prints one JSON line with the connection details, serves the API and exits 0 on SIGTERM when --port 0 --json', async () => {
    // Prepare
    child = startSim(['--port', '0', '--json', '--auto-approve', '--report-latency-ms', '0']);
    // Act
    const [line] = await firstLines(child, 1);
    const details = JSON.parse(line ?? '') as Record<string, unknown>;
    const sim = details as unknown as Parameters<typeof obtainTokens>[0];
    const { access_token } = await obtainTokens(sim);
    const response = await fetch(`${details.baseUrl}/v1.0/workspaces/${details.workspaceId}/reports`, {
      headers: { authorization: `Bearer ${access_token}` },
      signal: AbortSignal.timeout(10_000),
    });
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    // Assess
    expect(Object.keys(details)).toEqual(
      expect.arrayContaining([
        'baseUrl',
        'authUrl',
        'clientId',
        'clientSecret',
        'redirectUri',
        'username',
        'password',
        'workspaceId',
        'reportIds',
        'directoryIds',
      ]),
    );
    expect(details.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(response.status).toBe(200);
    expect(code).toBe(0);
  });

  it('prints every connection detail for a person when started without --json', async () => {
    // Prepare
    const seed = createSeed(DEFAULT_SEED);
    child = startSim(['--port', '0']);
    // Act
    const lines: string[] = [];
    if (!child.stdout) throw new Error('child has no stdout');
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (line.startsWith('Press Ctrl+C')) break;
    }
    const text = lines.join('\n');
    // Assess
    expect(text).toMatch(/http:\/\/127\.0\.0\.1:\d+\/api/);
    for (const value of [
      seed.credentials.clientId,
      seed.credentials.clientSecret,
      seed.credentials.username,
      seed.credentials.password,
      'http://127.0.0.1:8000/',
      seed.tenant.id,
      ...seed.workspaces.filter((w) => w.default).map((w) => w.id),
      ...(seed.workspaces[0]?.reports.map((r) => r.id) ?? []),
      ...seed.directories.map((d) => d.directory.id),
    ]) {
      expect(text).toContain(value);
    }
  });

  it('prints the usage and exits 0 when --help', async () => {
    // Prepare
    child = startSim(['--help']);
    // Act
    const lines = await firstLines(child, 1000);
    const [code] = (await once(child, 'exit')) as [number | null];
    // Assess
    expect(lines.join('\n')).toContain('--rotate-refresh-tokens');
    expect(code).toBe(0);
  });

  it('exits 2 with a message naming the option when an unknown option is given', async () => {
    // Prepare
    child = startSim(['--frobnicate']);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Act
    const [code] = (await once(child, 'exit')) as [number | null];
    // Assess
    expect(code).toBe(2);
    expect(stderr).toContain('--frobnicate');
  });
});
