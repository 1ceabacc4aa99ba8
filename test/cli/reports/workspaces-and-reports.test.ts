import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { type LoginDir, makeLoginDir } from '../login/login-secret';

/** The commands run in this process (`main` on strings), but for one run of the built program. */
describe('report-export workspaces list / reports list', () => {
  let sim: RunningSimulator;
  let login: LoginDir | undefined;
  let common: string[];
  /** In this process, working in the login's directory, with only the basic variables. */
  const run = (argv: readonly string[]) =>
    runInProcess(argv, { cleanEnv: true, cwd: login?.dir ?? tmpdir() });

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0 });
    login = await makeLoginDir(sim, 'service-cli-');
    common = [...login.flags];
  });

  afterAll(async () => {
    await sim?.close();
    await login?.remove();
  });

  it('prints the workspaces as JSON with the default one marked when --json is given (the built program)', async () => {
    // Act
    const r = await runCli(['workspaces', 'list', ...common, '--json'], { cleanEnv: true });
    // Assess
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; default: boolean }[];
    expect(rows.find((w) => w.default)?.id).toBe(sim.workspaceId);
  });

  it("prints the default workspace's reports as a table when no workspace is given", async () => {
    // Act
    const r = await run(['reports', 'list', ...common]);
    // Assess
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+name$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(sim.reportIds);
  });

  it.each([
    { args: ['workspaces'], code: 2, message: 'workspaces needs a subcommand: workspaces list' },
    { args: ['reports', 'show'], code: 2, message: "unknown subcommand 'reports show'" },
  ])('exits $code with a clear message when $args is given', async ({ args, code, message }) => {
    // Act
    const r = await run(args);
    // Assess
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });

  it('exits 2 naming --workspace when it is not a workspace of the login', async () => {
    // Act
    const r = await run(['reports', 'list', ...common, '--workspace', 'nope']);

    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workspace nope is not a workspace of this login');
    expect(r.stderr).toContain(sim.workspaceId);
  });

  it('exits 2 naming the missing secret file and login when --secret-file does not exist', async () => {
    // Act
    const r = await run(['workspaces', 'list', '--secret-file', '/nonexistent/login.json']);

    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the secret file /nonexistent/login.json (--secret-file) does not exist');
    expect(r.stderr).toContain('run report-export login first');
  });

  it('exits 1 naming the address, the login file and how to refresh it when the service the login names is gone', async () => {
    // Prepare: a login made against a local service that has stopped since.
    const gone = await startSimulator({ autoApprove: true, reportLatencyMs: 0 });
    const stale = await makeLoginDir(gone, 'stale-login-');
    const origin = new URL(gone.baseUrl).origin;
    await gone.close();
    try {
      // Act
      const r = await runInProcess(['workspaces', 'list', ...stale.flags], {
        cleanEnv: true,
        cwd: stale.dir,
      });

      // Assess
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`connecting to ${origin}`);
      expect(r.stderr).toContain(`${origin} is the address stored in the login file ${stale.dir}/login.json`);
      expect(r.stderr).toContain(`report-export login --secret-file ${stale.dir}/login.json --client-id`);
      expect(r.stderr).toContain('[CLI_LOGIN_UNREACHABLE]');
    } finally {
      await stale.remove();
    }
  });
});
