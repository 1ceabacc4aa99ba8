import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../../../lib/local/definition';
import { FunctionProcesses } from '../../../lib/local/function-processes';

/** A bundle whose handler does what the event says: the execution environment is what is tested. */
const BUNDLE = `
let invocations = 0;
export const handler = async (event, context) => {
  invocations += 1;
  if (event.do === 'echo') return { invocations, pid: process.pid, env: process.env.SETTING, tmp: process.env.TMPDIR, remaining: context.getRemainingTimeInMillis() };
  if (event.do === 'fail') { const e = new Error('refused'); e.name = 'ReportRunFailedError'; throw e; }
  if (event.do === 'hang') return new Promise(() => {});
  if (event.do === 'exit') process.exit(3);
  if (event.do === 'reject') { Promise.reject(new TypeError('nobody awaits this')); return new Promise(() => {}); }
  if (event.do === 'grow') { const keep = []; for (;;) { keep.push(Buffer.alloc(8 * 1024 * 1024, 1)); await new Promise((r) => setTimeout(r, 5)); } }
  if (event.do === 'wait-abort') return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({ aborted: true })));
  throw new Error('unknown');
};
`;

let dir: string;
let pool: FunctionProcesses | undefined;

function spec(overrides: Partial<FunctionSpec> = {}): FunctionSpec {
  return {
    logicalId: 'TestFunction',
    environment: {},
    deployTimeVariables: [],
    memorySizeMb: 256,
    timeoutSeconds: 5,
    ephemeralStorageMb: 512,
    handler: 'index.handler',
    runtime: 'nodejs22.x',
    assetKey: undefined,
    ...overrides,
  };
}

function start(overrides: Partial<FunctionSpec> = {}, setup: { bundle?: string } = {}): FunctionProcesses {
  const assetDir = path.join(dir, setup.bundle ?? 'ok');
  pool = new FunctionProcesses({
    spec: spec(overrides),
    assetDir,
    environment: { PATH: process.env.PATH ?? '', SETTING: 'from-template' },
    tmpRoot: dir,
  });
  return pool;
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'function-processes-'));
  await fs.mkdir(path.join(dir, 'ok'));
  await fs.writeFile(path.join(dir, 'ok', 'index.mjs'), BUNDLE);
  await fs.mkdir(path.join(dir, 'broken'));
  await fs.writeFile(
    path.join(dir, 'broken', 'index.mjs'),
    "const e = new Error('bad setting'); e.name = 'InvalidConfigError'; throw e;",
  );
});

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('FunctionProcesses', () => {
  it('keeps an environment warm between invocations, with the given environment, its own /tmp and the deadline', async () => {
    const fn = start();
    const a = (await fn.invoke({ do: 'echo' })) as {
      invocations: number;
      pid: number;
      env: string;
      tmp: string;
      remaining: number;
    };
    const b = (await fn.invoke({ do: 'echo' })) as typeof a;
    expect(b.pid).toBe(a.pid);
    expect(b.invocations).toBe(2);
    expect(fn.coldStarts).toBe(1);
    expect(a.env).toBe('from-template');
    expect(a.tmp.startsWith(dir)).toBe(true);
    expect(a.remaining).toBeGreaterThan(3000);
    expect(a.remaining).toBeLessThanOrEqual(5000);
  });

  it('starts another environment for a concurrent invocation', async () => {
    const fn = start();
    const [a, b] = (await Promise.all([fn.invoke({ do: 'echo' }), fn.invoke({ do: 'echo' })])) as {
      pid: number;
    }[];
    expect(a?.pid).not.toBe(b?.pid);
    expect(fn.coldStarts).toBe(2);
  });

  it("rejects with the handler's error name and keeps the environment warm", async () => {
    const fn = start();
    await expect(fn.invoke({ do: 'fail' })).rejects.toMatchObject({
      name: 'ReportRunFailedError',
      message: 'refused',
    });
    await fn.invoke({ do: 'echo' });
    expect(fn.coldStarts).toBe(1);
  });

  it('kills an invocation past its timeout as Sandbox.Timedout and replaces the environment', async () => {
    const fn = start({ timeoutSeconds: 1 });
    await expect(fn.invoke({ do: 'hang' })).rejects.toMatchObject({ name: 'Sandbox.Timedout' });
    await fn.invoke({ do: 'echo' });
    expect(fn.coldStarts).toBe(2);
  });

  it('kills an environment above its memory size as Runtime.OutOfMemory', async () => {
    const fn = start({ memorySizeMb: 128, timeoutSeconds: 30 });
    await expect(fn.invoke({ do: 'grow' })).rejects.toMatchObject({
      name: 'Runtime.OutOfMemory',
      message: expect.stringMatching(/signal: killed.*of its 128 MB/),
    });
  });

  it('reports a process that exits mid-invocation as Runtime.ExitError, and leaves its /tmp to the next environment', async () => {
    const fn = start();
    const first = (await fn.invoke({ do: 'echo' })) as { tmp: string };
    await fs.writeFile(path.join(first.tmp, 'left-behind'), 'x');
    await expect(fn.invoke({ do: 'exit' })).rejects.toMatchObject({
      name: 'Runtime.ExitError',
      message: expect.stringContaining('exit status 3'),
    });
    const next = (await fn.invoke({ do: 'echo' })) as { tmp: string; pid: number };
    expect(next.tmp).toBe(first.tmp);
    expect(await fs.readFile(path.join(next.tmp, 'left-behind'), 'utf8')).toBe('x');
  });

  it('reports an unhandled rejection as Runtime.UnhandledPromiseRejection, as Lambda does, and replaces the environment', async () => {
    // Prepare
    const fn = start();
    const before = (await fn.invoke({ do: 'echo' })) as { pid: number };
    // Act
    const failed = fn.invoke({ do: 'reject' });
    // Assess
    await expect(failed).rejects.toMatchObject({
      name: 'Runtime.UnhandledPromiseRejection',
      message: 'TypeError: nobody awaits this',
    });
    const after = (await fn.invoke({ do: 'echo' })) as { pid: number; invocations: number };
    expect(after.pid).not.toBe(before.pid);
    expect(after.invocations).toBe(1);
  });

  it('keeps the init error name on every cold start, however many start at once', async () => {
    const fn = start({}, { bundle: 'broken' });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => fn.invoke({ do: 'echo' })));
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).name : 'ok'))).toEqual(
      Array(12).fill('InvalidConfigError'),
    );
  });

  it('lets a Ctrl+C that reaches the environment pass: the runner decides (abort, not kill)', async () => {
    const fn = start();
    const controller = new AbortController();
    // The warm environment that will run the next invocation.
    const { pid } = (await fn.invoke({ do: 'echo' })) as { pid: number };
    const running = fn.invoke({ do: 'wait-abort' }, controller.signal);
    await new Promise((r) => setTimeout(r, 100));
    // SIGINT to the environment, as a terminal sends it to the whole process group.
    process.kill(pid, 'SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    controller.abort(new Error('interrupted'));
    await expect(running).resolves.toEqual({ aborted: true });
  });

  it('fails an invocation whose init throws with the init error name', async () => {
    const fn = start({}, { bundle: 'broken' });
    await expect(fn.invoke({ do: 'echo' })).rejects.toMatchObject({ name: 'InvalidConfigError' });
  });

  it('passes an interrupt to the handler and invokes nothing once interrupted', async () => {
    const fn = start();
    const controller = new AbortController();
    const running = fn.invoke({ do: 'wait-abort' }, controller.signal);
    await new Promise((r) => setTimeout(r, 300));
    controller.abort(new Error('interrupted'));
    await expect(running).resolves.toEqual({ aborted: true });
    await expect(fn.invoke({ do: 'echo' }, controller.signal)).rejects.toThrow('interrupted');
  });
});
