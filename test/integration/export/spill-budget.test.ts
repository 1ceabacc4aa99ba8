import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXPORT_ERROR_CODES, type ExportOptions, exportReportResult } from '../../../lib/export';
import { LocalDirectoryStore } from '../../../lib/stores';
import { bundleEncodeWorker } from '../../support/encode-worker-bundle';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { snapshot } from './failing-store';

/** The file system error injected into the spill directory (a full disk); none by default. */
const disk = vi.hoisted(() => ({
  failure: undefined as { code: string; operation: 'append' | 'mkdtemp'; under: string } | undefined,
}));

// A narrow seam: only appends to part files (or the spill root's mkdtemp) under the test's
// spill directory fail, with the errno a real file system gives; everything else is real.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const refuse = (code: string, syscall: string, file: string) =>
    Object.assign(new Error(`${code}: injected, ${syscall} '${file}'`), { code, syscall });
  const open: typeof actual.open = async (file, flags, mode) => {
    const handle = await actual.open(file, flags, mode);
    const failure = disk.failure;
    if (failure?.operation !== 'append' || flags !== 'a' || !String(file).startsWith(failure.under))
      return handle;
    return Object.assign(Object.create(handle), {
      writev: () => Promise.reject(refuse(failure.code, 'write', String(file))),
      close: () => handle.close(),
    });
  };
  const mkdtemp = (async (prefix: string, options?: never) => {
    const failure = disk.failure;
    if (failure?.operation === 'mkdtemp' && prefix.startsWith(failure.under))
      throw refuse(failure.code, 'mkdtemp', prefix);
    return actual.mkdtemp(prefix, options);
  }) as typeof actual.mkdtemp;
  return { ...actual, default: { ...actual, open, mkdtemp }, open, mkdtemp };
});

const DATES = ['2026-06-01', '2026-06-02', '2026-06-03'];

describe('exportReportResult with a spill budget', () => {
  let root: string;
  let spill: string;
  let store: LocalDirectoryStore;
  let workerFile: URL;
  let workerBundle: Awaited<ReturnType<typeof bundleEncodeWorker>>;

  beforeAll(async () => {
    // The worker runs as plain JavaScript, as deployments bundle it.
    workerBundle = await bundleEncodeWorker();
    workerFile = workerBundle.url;
  });
  afterAll(async () => {
    await workerBundle.remove();
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'budget-store-'));
    spill = await mkdtemp(join(tmpdir(), 'budget-spill-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    disk.failure = undefined;
    await rm(root, { recursive: true, force: true });
    await rm(spill, { recursive: true, force: true });
  });

  function run(options: Partial<ExportOptions> = {}, target: LocalDirectoryStore = store) {
    return exportReportResult({
      source: resultStreamOf(callsOn(DATES, 200, 'b'), { requestId: 'req-b' }),
      store: target,
      reportId: 'rep-b',
      spillDirectory: spill,
      // Several row groups per partition, so the budget is crossed mid-run.
      rowGroupRows: 50,
      maxBufferedRows: 50,
      encodeWorker: false,
      ...options,
    });
  }

  /** The bytes a run spills, measured by a first run into a store of its own. */
  async function spilledBytes(): Promise<number> {
    const summary = await run({}, new LocalDirectoryStore(join(root, 'measure')));
    await rm(join(root, 'measure'), { recursive: true, force: true });
    return summary.spilledBytes;
  }

  it('reports the bytes of every part file as spilledBytes when a run succeeds', async () => {
    // Act
    const summary = await run();

    // Assess
    expect(summary.rows).toBe(600);
    expect(summary.files).toBe(6);
    // Every part file is staged as spilled, so the two counts meet.
    expect(summary.spilledBytes).toBe(summary.bytes);
    expect(summary.spilledBytes).toBeGreaterThan(600 * 50);
  });

  it.each([
    { thread: 'the calling thread', onWorker: false },
    { thread: 'the encode worker', onWorker: true },
  ])(
    'succeeds when the budget equals the bytes spilled and encoding runs on $thread',
    async ({ onWorker }) => {
      // Prepare
      const budget = await spilledBytes();
      const warnings: string[] = [];

      // Act
      const summary = await run({
        spillBudgetBytes: budget,
        encodeWorker: onWorker ? workerFile : false,
        logger: { warn: (message) => warnings.push(message) },
      });

      // Assess
      expect(summary).toMatchObject({ rows: 600, spilledBytes: budget });
      expect(await readdir(spill)).toEqual([]);
      // The worker really encoded (no fallback to this thread).
      expect(warnings).toEqual([]);
    },
  );

  it.each([
    { thread: 'the calling thread', onWorker: false },
    { thread: 'the encode worker', onWorker: true },
  ])(
    'fails with EXPORT_SPILL_BUDGET_EXCEEDED, publishes nothing and leaves no spill directory when the budget is one byte short on $thread',
    async ({ onWorker }) => {
      // Prepare
      const budget = (await spilledBytes()) - 1;
      const warnings: string[] = [];

      // Act
      const failed = run({
        spillBudgetBytes: budget,
        encodeWorker: onWorker ? workerFile : false,
        logger: { warn: (message) => warnings.push(message) },
      });

      // Assess
      const error = await failed.catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'SpillBudgetError',
        code: EXPORT_ERROR_CODES.spillBudgetExceeded,
        requestId: 'req-b',
        shortage: { reason: 'budget', budgetBytes: budget },
      });
      expect(await snapshot(store)).toEqual(new Map());
      expect(await readdir(spill)).toEqual([]);
      expect(warnings).toEqual([]);
    },
  );

  it('names the bytes needed, the budget, the rows read and the fix when the budget is too small', async () => {
    // Act
    const error = await run({ spillBudgetBytes: 10_000 }).catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ code: EXPORT_ERROR_CODES.spillBudgetExceeded });
    const { shortage, rowsRead, message } = error as {
      shortage: { spilledBytes: number; writeBytes: number };
      rowsRead: number;
      message: string;
    };
    expect(shortage.spilledBytes).toBeLessThanOrEqual(10_000);
    expect(shortage.spilledBytes + shortage.writeBytes).toBeGreaterThan(10_000);
    expect(rowsRead).toBeGreaterThan(0);
    expect(rowsRead).toBeLessThan(600);
    expect(message).toContain(`${shortage.spilledBytes + shortage.writeBytes} bytes needed`);
    expect(message).toContain('budget 10000 bytes');
    expect(message).toContain(`after ${rowsRead} rows read`);
    expect(message).toContain('more ephemeral storage');
  });

  it.each([
    { code: 'ENOSPC', operation: 'append' as const },
    { code: 'EDQUOT', operation: 'append' as const },
    { code: 'ENOSPC', operation: 'mkdtemp' as const },
  ])(
    'fails with EXPORT_SPILL_BUDGET_EXCEEDED saying the disk is full when $operation fails with $code',
    async ({ code, operation }) => {
      // Prepare
      disk.failure = { code, operation, under: spill };

      // Act
      const error = await run().catch((e: unknown) => e);

      // Assess
      expect(error).toMatchObject({
        code: EXPORT_ERROR_CODES.spillBudgetExceeded,
        shortage: { reason: 'disk', errno: code },
        message: expect.stringContaining(`The local disk is full (${code})`),
      });
      expect(await snapshot(store)).toEqual(new Map());
      expect(await readdir(spill)).toEqual([]);
    },
  );

  it('keeps EXPORT_SPILL_FAILED for a disk error that is not a full disk', async () => {
    // Prepare
    disk.failure = { code: 'EIO', operation: 'append', under: spill };

    // Act
    const failed = run();

    // Assess
    await expect(failed).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.spillFailed });
    expect(await readdir(spill)).toEqual([]);
  });
});
