import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { FunctionSpec } from './definition';

const HOST = path.join(import.meta.dirname, 'lambda-host.mjs');
/** How often the memory watchdog reads a busy process's resident set. */
const MEMORY_POLL_MS = 50;
/** After an interrupt, how long a task may take to clean up before its process is killed. */
const ABORT_GRACE_MS = 30_000;
/** How long an init error message may trail its process's exit. */
const INIT_ERROR_GRACE_MS = 1_000;

/** A function's failure as Step Functions names it (`error.name` is the Retry/Catch name). */
export class LambdaInvokeError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

interface FunctionProcessesOptions {
  spec: FunctionSpec;
  /** The bundle directory (index.mjs). */
  assetDir: string;
  /** The whole environment of the process: the template's, the local values, Lambda's own. */
  environment: Record<string, string>;
  /** Each line the function writes (logs, metrics). */
  onOutput?: (line: string) => void;
  /** `/tmp` of each execution environment is a new directory under this one. */
  tmpRoot: string;
  /** Node binary (default: this process's). */
  nodePath?: string;
}

interface Sandbox {
  child: ChildProcess;
  ready: Promise<void>;
  tmp: string;
  /** Why the process ended, once it has. */
  exit: Promise<string>;
  /** The invocation in flight's reaction to the process ending. */
  onExit?: ((why: string) => void) | undefined;
}

/**
 * One Lambda function on this machine: execution environments as child processes running
 * the function's bundle (lambda-host.mjs). Like Lambda, an environment serves one invocation
 * at a time and stays warm for the next; concurrent invocations get environments of their
 * own; an environment that crashed, ran out of memory or out of time is replaced. The
 * function's limits come from its template: `MemorySize` (the process's resident memory,
 * watched; above it the process is killed and the invocation fails with
 * `Runtime.OutOfMemory`, as Lambda reports an out-of-memory crash) and `Timeout` (the
 * deadline the handler sees; past it the process is killed: `Sandbox.Timedout`). A process
 * that exits mid-invocation fails it with `Runtime.ExitError`; an unhandled rejection fails
 * it with `Runtime.UnhandledPromiseRejection` and ends the environment, as Lambda's runtime. Like Lambda's, the `/tmp`
 * of an environment that crashed is not wiped: the next environment of the function may
 * find it as it was.
 */
export class FunctionProcesses {
  readonly #o: FunctionProcessesOptions;
  readonly #idle: Sandbox[] = [];
  readonly #all = new Set<Sandbox>();
  /** /tmp directories of environments that crashed, for the next environment (as Lambda may). */
  readonly #leftTmps: string[] = [];
  #started = 0;
  #closed = false;

  constructor(options: FunctionProcessesOptions) {
    this.#o = options;
  }

  get spec(): FunctionSpec {
    return this.#o.spec;
  }

  /** Execution environments started so far (cold starts). */
  get coldStarts(): number {
    return this.#started;
  }

  async invoke(event: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.#closed) throw new Error(`${this.#o.spec.logicalId}: the local deployment is closed`);
    // An interrupted run invokes nothing more (the engine may still schedule a state).
    signal?.throwIfAborted();
    let sandbox = this.#idle.pop();
    while (sandbox !== undefined && !alive(sandbox)) {
      void this.#stop(sandbox, { keepTmp: true });
      sandbox = this.#idle.pop();
    }
    sandbox ??= this.#start();
    let healthy = false;
    try {
      await Promise.race([sandbox.ready, sandbox.exit.then((why) => initCrash(sandbox, why))]);
      const result = await this.#run(sandbox, event, signal);
      healthy = true;
      return result;
    } catch (error) {
      // A handler's own error leaves the environment warm; anything else replaces it.
      healthy = error instanceof HandlerError;
      throw error instanceof HandlerError ? error.named : error;
    } finally {
      if (healthy && !this.#closed && alive(sandbox)) this.#idle.push(sandbox);
      else void this.#stop(sandbox, { keepTmp: !healthy });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((s) => this.#stop(s)));
    for (const tmp of this.#leftTmps.splice(0)) fs.rmSync(tmp, { recursive: true, force: true });
  }

  #start(): Sandbox {
    const spec = this.#o.spec;
    this.#started += 1;
    const tmp = this.#leftTmps.pop() ?? fs.mkdtempSync(path.join(this.#o.tmpRoot, `${spec.logicalId}-`));
    const child = fork(
      HOST,
      [path.join(this.#o.assetDir, 'index.mjs'), spec.handler.split('.').pop() ?? 'handler'],
      {
        execPath: this.#o.nodePath ?? process.execPath,
        execArgv: [],
        cwd: this.#o.assetDir,
        env: { ...this.#o.environment, TMPDIR: tmp, LAMBDA_TASK_ROOT: this.#o.assetDir },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        serialization: 'json',
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
        this.#o.onOutput?.(line),
      );
    }
    const exit = new Promise<string>((resolve) => {
      // 'close', after 'exit': the process's last messages and output have been delivered.
      child.once('close', (code, sig) => resolve(sig === null ? `exit status ${code}` : `signal: ${sig}`));
      child.once('error', (e) => resolve(e.message));
    });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: { type?: string; errorType?: string; errorMessage?: string }) => {
        if (m.type === 'ready') {
          child.off('message', onMessage);
          resolve();
        } else if (m.type === 'init-error') {
          child.off('message', onMessage);
          reject(
            new LambdaInvokeError(m.errorType ?? 'Runtime.Unknown', `Init failed: ${m.errorMessage ?? ''}`),
          );
        }
      };
      child.on('message', onMessage);
    });
    ready.catch(() => {});
    const sandbox: Sandbox = { child, ready, tmp, exit };
    exit.then((why) => sandbox.onExit?.(why));
    this.#all.add(sandbox);
    return sandbox;
  }

  #run(sandbox: Sandbox, event: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const spec = this.#o.spec;
    const child = sandbox.child;
    const id = Math.random().toString(36).slice(2);
    const limitBytes = spec.memorySizeMb * 1024 * 1024;
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        clearInterval(watchdog);
        child.off('message', onMessage);
        signal?.removeEventListener('abort', onAbort);
        sandbox.onExit = undefined;
        fn();
      };
      const kill = (error: Error) => {
        child.kill('SIGKILL');
        finish(() => reject(error));
      };
      const onMessage = (m: {
        type?: string;
        id?: string;
        ok?: boolean;
        /** The runtime failed, not the handler (an unhandled rejection): the environment ends. */
        fatal?: boolean;
        value?: unknown;
        errorType?: string;
        errorMessage?: string;
      }) => {
        if (m.type !== 'result' || m.id !== id) return;
        const named = new LambdaInvokeError(m.errorType ?? 'Error', m.errorMessage ?? '');
        finish(() => (m.ok ? resolve(m.value) : reject(m.fatal ? named : new HandlerError(named))));
      };
      const onAbort = () => {
        child.send({ type: 'abort', id });
        timers.push(setTimeout(() => kill(new Error('The local run was interrupted')), ABORT_GRACE_MS));
      };
      child.on('message', onMessage);
      sandbox.onExit = (why) => finish(() => reject(crashed(why)));
      timers.push(
        setTimeout(
          () =>
            kill(
              new LambdaInvokeError(
                'Sandbox.Timedout',
                `Task timed out after ${spec.timeoutSeconds.toFixed(2)} seconds`,
              ),
            ),
          spec.timeoutSeconds * 1000,
        ),
      );
      const watchdog = setInterval(() => {
        const used = residentBytes(child.pid);
        if (used !== undefined && used > limitBytes) {
          kill(
            new LambdaInvokeError(
              'Runtime.OutOfMemory',
              `Runtime exited with error: signal: killed (the function used ${Math.round(used / 1048576)} MB of its ${spec.memorySizeMb} MB)`,
            ),
          );
        }
      }, MEMORY_POLL_MS);
      child.send({ type: 'invoke', id, event, deadlineAt: Date.now() + spec.timeoutSeconds * 1000 });
      // After the invoke: the environment handles messages in order.
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async #stop(sandbox: Sandbox, options: { keepTmp?: boolean } = {}): Promise<void> {
    this.#all.delete(sandbox);
    const i = this.#idle.indexOf(sandbox);
    if (i >= 0) this.#idle.splice(i, 1);
    if (sandbox.child.exitCode === null && sandbox.child.signalCode === null) sandbox.child.kill('SIGKILL');
    await sandbox.exit;
    if (options.keepTmp === true && !this.#closed) this.#leftTmps.push(sandbox.tmp);
    else fs.rmSync(sandbox.tmp, { recursive: true, force: true });
  }
}

function alive(sandbox: Sandbox): boolean {
  return sandbox.child.exitCode === null && sandbox.child.signalCode === null;
}

/** A handler's own error (the environment stays warm). */
class HandlerError extends Error {
  constructor(readonly named: LambdaInvokeError) {
    super(named.message);
  }
}

/**
 * A process that ended before it was ready: its init error when it sent one (the message
 * may be handled just after the exit), else a crash.
 */
async function initCrash(sandbox: Sandbox, why: string): Promise<never> {
  const initError = await Promise.race([
    sandbox.ready.then(
      () => undefined,
      (error: unknown) => error,
    ),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), INIT_ERROR_GRACE_MS)),
  ]);
  throw initError ?? crashed(why);
}

/** A runtime that exited mid-invocation, as Lambda reports it. */
function crashed(why: string): LambdaInvokeError {
  return new LambdaInvokeError('Runtime.ExitError', `Runtime exited with error: ${why}`);
}

/** The resident set of a process in bytes (Linux /proc), or undefined where it cannot be read. */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
