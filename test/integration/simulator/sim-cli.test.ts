import { afterEach, describe, expect, it } from 'vitest';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import { type CliProcess, runCli, startCli } from '../../support/cli-process';
import { obtainTokens } from './sim-harness';

const SIM = { script: 'bin/sim.ts' } as const;

describe('bin/sim.ts', () => {
  let cli: CliProcess | undefined;

  afterEach(async () => {
    // Nothing the test started may outlive it (a leftover service keeps running after npm test).
    if (cli) expect(await cli.stop()).toBe(true);
    cli = undefined;
  });

  it('prints one JSON line with the connection details, serves the API and exits 0 on SIGTERM when --port 0 --json', async () => {
    // Prepare
    cli = startCli(
      ['--port', '0', '--json', '--auto-approve', '--report-latency-ms', '0', '--tenants', '2'],
      SIM,
    );
    // Act
    const [line] = await cli.waitFor(/^.*\n/, { stream: 'stdout' });
    const details = JSON.parse(line) as Record<string, unknown>;
    const sim = details as unknown as Parameters<typeof obtainTokens>[0];
    const { access_token } = await obtainTokens(sim);
    const response = await fetch(`${details.baseUrl}/v1.0/workspaces/${details.workspaceId}/reports`, {
      headers: { authorization: `Bearer ${access_token}` },
      signal: AbortSignal.timeout(10_000),
    });
    cli.child.kill('SIGTERM');
    const code = await cli.exited;
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
    expect((details.tenants as { id: string; timeZoneId: string }[]).map((t) => t.timeZoneId)).toEqual([
      'Europe/London',
      'America/New_York',
    ]);
    expect(response.status).toBe(200);
    expect(code).toBe(0);
  });

  it('prints every connection detail for a person when started without --json', async () => {
    // Prepare
    const seed = createSeed(DEFAULT_SEED);
    cli = startCli(['--port', '0'], SIM);
    // Act
    await cli.waitFor(/^Press Ctrl\+C/m, { stream: 'stdout' });
    const text = cli.stdout();
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
    // Act
    const run = await runCli(['--help'], SIM);
    // Assess
    expect(run.stdout).toContain('--rotate-refresh-tokens');
    expect(run.code).toBe(0);
  });

  it('exits 2 with a message naming the option when an unknown option is given', async () => {
    // Act
    const run = await runCli(['--frobnicate'], SIM);
    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--frobnicate');
  });
});
