import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, stopGroup } from './start-cli-process';

describe('report-export sim', () => {
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (!child) return;
    const stopped = await stopGroup(child);
    child = undefined;
    expect(stopped).toBe(true);
  });

  it('prints the connection details as one JSON line, serves on 127.0.0.1 and exits 0 on SIGTERM', async () => {
    // Prepare
    child = startCli(['sim', '--port', '0', '--json', '--auto-approve']);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });

    // Act
    const [line] = (await once(lines, 'line')) as [string];
    const details = JSON.parse(line) as { baseUrl: string; authUrl: string; clientId: string };
    const discovery = await fetch(new URL('.well-known/openid-configuration', `${details.authUrl}/`), {
      signal: AbortSignal.timeout(10_000),
    });
    await discovery.body?.cancel();
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];

    // Assess
    expect(new URL(details.baseUrl).hostname).toBe('127.0.0.1');
    expect(details.clientId).toBe('report-export-local');
    expect(discovery.status).toBe(200);
    expect(code).toBe(0);
  });

  it('prints its help with an example when given --help', async () => {
    // Act
    const run = await runCli(['sim', '--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: report-export sim \[options\]/);
    expect(run.stdout).toContain('bin/report-export.ts sim --port 0 --json --auto-approve');
  });

  it('exits 2 naming the flag when a value is bad', async () => {
    // Act
    const run = await runCli(['sim', '--port', 'http']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--port must be an integer/);
  });
});
