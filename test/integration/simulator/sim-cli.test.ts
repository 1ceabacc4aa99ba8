import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import { obtainTokens } from './sim-harness';

const TSX = 'node_modules/.bin/tsx';

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

  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it('prints one JSON line with the connection details, serves the API and exits 0 on SIGTERM when --port 0 --json', async () => {
    // Prepare
    child = spawn(
      TSX,
      ['bin/sim.ts', '--port', '0', '--json', '--auto-approve', '--report-latency-ms', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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
    child = spawn(TSX, ['bin/sim.ts', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    child = spawn(TSX, ['bin/sim.ts', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Act
    const lines = await firstLines(child, 1000);
    const [code] = (await once(child, 'exit')) as [number | null];
    // Assess
    expect(lines.join('\n')).toContain('--rotate-refresh-tokens');
    expect(code).toBe(0);
  });

  it('exits 2 with a message naming the option when an unknown option is given', async () => {
    // Prepare
    child = spawn(TSX, ['bin/sim.ts', '--frobnicate'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
