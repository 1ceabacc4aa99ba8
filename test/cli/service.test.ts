import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../lib/simulator';
import { runCli, writeLoginSecret } from './login-harness';

describe('report-export workspaces list / reports list', () => {
  let sim: RunningSimulator;
  let dir: string;
  let common: string[];

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0 });
    dir = await mkdtemp(join(tmpdir(), 'service-cli-'));
    await writeLoginSecret(sim, join(dir, 'login.json'));
    common = [
      '--secret-file',
      join(dir, 'login.json'),
      '--lease-store',
      pathToFileURL(join(dir, 'leases')).href,
    ];
  });

  afterAll(async () => {
    await sim?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints the workspaces as JSON with the default one marked when --json is given', async () => {
    // Act
    const r = await runCli(['workspaces', 'list', ...common, '--json']);
    // Assess
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; default: boolean }[];
    expect(rows.find((w) => w.default)?.id).toBe(sim.workspaceId);
  });

  it("prints the default workspace's reports as a table when no workspace is given", async () => {
    // Act
    const r = await runCli(['reports', 'list', ...common]);
    // Assess
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+name$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(sim.reportIds);
  });

  it.each([
    { args: ['workspaces'], code: 2, message: 'workspaces needs a subcommand: workspaces list' },
    { args: ['reports', 'show'], code: 2, message: "unknown subcommand 'reports show'" },
    {
      args: ['reports', 'list', '--secret-file', '/nonexistent/login.json'],
      code: 1,
      message: 'log in again',
    },
  ])('exits $code with a clear message when $args is given', async ({ args, code, message }) => {
    // Act
    const r = await runCli(args);
    // Assess
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });
});
