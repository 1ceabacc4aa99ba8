import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a finished CLI run left. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcessOptions {
  /**
   * The entry point, relative to the repository root: a `.ts` script runs with tsx as a
   * loader, anything else with node alone. Default the built program, as installed:
   * `dist/cli/report-export.mjs` (test/support/cli-build-setup.ts builds it first).
   */
  script?: string;
  /** Text written to the program's stdin, then closed. Default: no stdin. */
  stdin?: string;
  /** Variables set on top of the base environment (NO_COLOR=1 is always set). */
  env?: NodeJS.ProcessEnv;
  /**
   * True: the base environment is only PATH, HOME, TMPDIR, LANG and NODE_OPTIONS, so no
   * REPORT_EXPORT_* (or AWS_*) setting of the machine leaks in. Default false: the parent's.
   */
  cleanEnv?: boolean;
}

export interface WaitOptions {
  /** Which output to search. Default both (stderr first). */
  stream?: 'stdout' | 'stderr';
  /** How long to wait before failing. Default 30 s. */
  timeoutMs?: number;
}

/**
 * A script (`node --import tsx <script> ...`) in a process group of its own, with its output
 * collected. Stopping the group stops everything it started (tsx's esbuild service too).
 */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code once the process has ended and its output is read to the end. */
  exited: Promise<number | null>;
  /** Resolves with the match once the output contains `pattern`; rejects when the process ends first, or after the timeout. */
  waitFor(pattern: RegExp, options?: WaitOptions): Promise<RegExpExecArray>;
  /** Resolves once `test` holds; rejects when the process ends first, or after the timeout. */
  until(test: () => boolean, options?: Pick<WaitOptions, 'timeoutMs'>): Promise<void>;
  /** SIGKILLs what is left of the group and waits (bounded) until it is empty; false if it never empties. */
  stop(): Promise<boolean>;
}

const CLEAN_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS'];
/** The program as `npm ci` builds it (package.json `bin`). */
export const BUILT_PROGRAM = 'dist/cli/report-export.mjs';
const POLL_MS = 20;

/** The environment a test run starts from: the parent's, or (clean) only the basics. */
export function baseEnv(clean: boolean | undefined): NodeJS.ProcessEnv {
  if (!clean) return process.env;
  return Object.fromEntries(
    CLEAN_ENV_KEYS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])),
  );
}

/** Starts the script with node and tsx as a loader (no wrapper process in between). */
export function startCli(args: readonly string[], options: CliProcessOptions = {}): CliProcess {
  const script = options.script ?? BUILT_PROGRAM;
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, script, ...args], {
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
    env: { ...baseEnv(options.cleanEnv), NO_COLOR: '1', ...options.env },
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  let out = '';
  let err = '';
  let closed = false;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  // 'close', not 'exit': the exit status and every byte of output.
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code: number | null) => {
      closed = true;
      resolve(code);
    });
  });
  const until = async (test: () => boolean, timeoutMs = 30_000): Promise<void> => {
    for (let waited = 0; waited <= timeoutMs; waited += POLL_MS) {
      if (test()) return;
      if (closed) throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) first: ${err}`);
      await sleep(POLL_MS);
    }
    throw new Error(`${script}: still waiting after ${timeoutMs} ms: ${err}`);
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern, { stream, timeoutMs } = {}) {
      const found: { match: RegExpExecArray | null } = { match: null };
      const search = () => {
        found.match =
          (stream !== 'stdout' ? pattern.exec(err) : null) ??
          (stream !== 'stderr' ? pattern.exec(out) : null);
        return found.match !== null;
      };
      await until(search, timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message} (waiting for ${pattern})`);
      });
      return found.match as RegExpExecArray;
    },
    until: (test, { timeoutMs } = {}) => until(test, timeoutMs),
    stop: () => stopGroup(child),
  };
}

/** Runs the script to its end (killed with its group after `timeoutMs`, default 60 s) and collects its output. */
export async function runCli(
  args: readonly string[],
  options: CliProcessOptions & { timeoutMs?: number } = {},
): Promise<CliRun> {
  const cli = startCli(args, options);
  const timer = setTimeout(() => killGroup(cli.child), options.timeoutMs ?? 60_000);
  try {
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  } finally {
    clearTimeout(timer);
    await cli.stop();
  }
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

function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
}

async function stopGroup(child: ChildProcess): Promise<boolean> {
  const { pid } = child;
  if (pid === undefined) return true;
  const exited = child.exitCode !== null || child.signalCode !== null;
  killGroup(child);
  if (!exited) await once(child, 'exit');
  // Other members are not our children: poll (bounded) until the kernel has removed them.
  for (let i = 0; i < 200 && groupAlive(pid); i++) await sleep(10);
  return !groupAlive(pid);
}
