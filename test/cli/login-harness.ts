import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The CLI as a subprocess (`node --import tsx bin/report-export.ts ...`) in a process group
 * of its own, with a clean environment (no REPORT_EXPORT_* of the machine leaks in), and
 * its output collected. `stop` kills what is left of the group.
 */
export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stderr (or stdout) contains `pattern`; rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Exit code once the process ends. */
  exited: Promise<number | null>;
  stop(): Promise<boolean>;
}

const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS'];

export function startCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  const base = Object.fromEntries(
    BASE_ENV_KEYS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k] as string]])),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/report-export.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...base, NO_COLOR: '1', ...env },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern) {
      // Bounded by the test's timeout; checks every 20 ms.
      for (;;) {
        const m = pattern.exec(err) ?? pattern.exec(out);
        if (m) return m;
        if (child.exitCode !== null)
          throw new Error(`CLI exited (${child.exitCode}) before ${pattern}: ${err}`);
        await sleep(20);
      }
    },
    stop: () => stopGroup(child),
  };
}

/** Runs the CLI to its end; returns exit code and output. */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startCli(args, env);
  try {
    const code = await p.exited;
    return { code, stdout: p.stdout(), stderr: p.stderr() };
  } finally {
    await p.stop();
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** SIGKILLs the child's group and waits (bounded) until it is empty; false if it never empties. */
async function stopGroup(child: ChildProcess): Promise<boolean> {
  const { pid } = child;
  if (pid === undefined) return true;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  if (!exited) await once(child, 'exit');
  for (let i = 0; i < 200 && groupAlive(pid); i++) await sleep(10);
  return !groupAlive(pid);
}

/** A secret file as `login` writes it, for a local service started with autoApprove. */
export async function writeLoginSecret(
  sim: { authUrl: string; baseUrl: string; clientId: string; clientSecret: string; redirectUri: string },
  file: string,
): Promise<void> {
  const { loginWithAutoApproval } = await import('../../lib/local/auto-approve-login');
  const { LocalFileSecretStore } = await import('../../lib/stores');
  const app = {
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
  };
  const tokens = await loginWithAutoApproval(app);
  await new LocalFileSecretStore(file).put('service', {
    ...app,
    baseUrl: sim.baseUrl,
    refreshToken: tokens.refreshToken,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt,
  });
}
