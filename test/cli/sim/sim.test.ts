import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process';
import { type CliProcess, startCli } from '../../support/cli-process';

describe('report-export sim', () => {
  let cli: CliProcess | undefined;

  afterEach(async () => {
    if (cli) expect(await cli.stop()).toBe(true);
    cli = undefined;
  });

  // A process of its own: it serves until a signal ends it.
  it('prints the connection details as one JSON line, serves on 127.0.0.1 and exits 0 on SIGTERM', async () => {
    // Prepare
    cli = startCli(['sim', '--port', '0', '--json', '--auto-approve']);

    // Act
    const [line] = await cli.waitFor(/^.*\n/, { stream: 'stdout' });
    const details = JSON.parse(line) as { baseUrl: string; authUrl: string; clientId: string };
    const discovery = await fetch(new URL('.well-known/openid-configuration', `${details.authUrl}/`), {
      signal: AbortSignal.timeout(10_000),
    });
    await discovery.body?.cancel();
    cli.child.kill('SIGTERM');
    const code = await cli.exited;

    // Assess
    expect(new URL(details.baseUrl).hostname).toBe('127.0.0.1');
    expect(details.clientId).toBe('report-export-local');
    expect(discovery.status).toBe(200);
    expect(code).toBe(0);
  });

  it('prints its help with an example when given --help', async () => {
    // Act
    const run = await runInProcess(['sim', '--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: report-export sim \[options\]/);
    expect(run.stdout).toContain('  report-export sim --port 0 --json --auto-approve');
  });

  it('exits 2 naming the flag when a value is bad', async () => {
    // Act
    const run = await runInProcess(['sim', '--port', 'http']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--port must be an integer/);
  });
});
