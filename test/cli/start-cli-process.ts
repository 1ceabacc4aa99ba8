import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a finished CLI run left. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `bin/report-export.ts` with node and tsx as a loader (no wrapper process), in a
 * process group of its own so stopping the group stops everything it started. NO_COLOR
 * and a non-TTY stdout keep the output plain.
 */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'bin/report-export.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
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

/** SIGKILLs what is left of the child's group and waits (bounded) until it is empty; false if it never empties. */
export async function stopGroup(child: ChildProcess): Promise<boolean> {
  const { pid } = child;
  if (pid === undefined) return true;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  if (!exited) await once(child, 'exit');
  for (let i = 0; i < 200 && groupAlive(pid); i++) await sleep(10);
  return !groupAlive(pid);
}

/** Runs the CLI to its end (killed with its group after `timeoutMs`) and collects its output. */
export async function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  const child = startCli(args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => {
    if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
  }, options.timeoutMs ?? 60_000);
  try {
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    await stopGroup(child);
  }
}
