import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES, exportReportResult, type PartitionManifest } from '../../../lib/export';
import { zstdAvailable } from '../../../lib/export/formats/zstd';
import { type LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { resultStreamOf } from '../../support/result-stream';
import { calls, earlierRun } from './earlier-run';
import { FailingStore, snapshot } from './failing-store';

describe('exportReportResult publish protocol', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;
  const reportId = 'rep-1';

  beforeEach(async () => {
    ({ root, store, earlier } = await earlierRun('pub-', reportId));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('publishes one manifest per partition and format listing exactly its files when a run succeeds', async () => {
    // Prepare
    const key = 'calls/format=parquet/report_id=rep-1/dt=2026-06-02/_manifest.json';

    // Act
    const manifest = JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest;

    // Assess
    expect(manifest).toMatchObject({ rows: 10, requestId: 'req-old', dt: '2026-06-02', format: 'parquet' });
    expect(manifest.files.map((f) => [f.name, f.rows])).toEqual([
      ['part-00000.parquet', 4],
      ['part-00001.parquet', 4],
      ['part-00002.parquet', 2],
    ]);
    const listed = (await listAll(store, 'calls/format=parquet/report_id=rep-1/dt=2026-06-02/')).map(
      (o) => o.key,
    );
    expect(listed).toHaveLength(4);
    expect([...earlier.keys()].some((k) => k.includes('_staging'))).toBe(false);
  });

  it('leaves identical objects and no extras when the same result is exported again', async () => {
    // Prepare
    const source = resultStreamOf(calls(3, 10, 'old'), { requestId: 'req-old' });

    // Act
    await exportReportResult({ source, store, reportId, maxRowsPerFile: 4 });

    // Assess
    const after = await snapshot(store);
    expect([...after.keys()]).toEqual([...earlier.keys()]);
    for (const [key, bytes] of after) {
      if (!key.endsWith('_manifest.json')) expect([key, bytes]).toEqual([key, earlier.get(key)]);
    }
  });

  it('replaces a partition and deletes parts the new run does not write when the new run is smaller', async () => {
    // Prepare
    const source = resultStreamOf(calls(2, 3, 'new'), { requestId: 'req-new' });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      maxRowsPerFile: 4,
      forceReplace: true,
    });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.files])).toEqual([
      ['2026-06-01', 3, 2],
      ['2026-06-02', 3, 2],
    ]);
    const keys = (await listAll(store, 'calls/format=csv/report_id=rep-1/dt=2026-06-01/')).map((o) => o.key);
    expect(keys).toEqual([
      'calls/format=csv/report_id=rep-1/dt=2026-06-01/_manifest.json',
      'calls/format=csv/report_id=rep-1/dt=2026-06-01/part-00000.csv',
    ]);
    // The day the new run does not cover is untouched.
    const untouched = [...earlier].filter(([k]) => k.includes('dt=2026-06-03'));
    const after = await snapshot(store);
    for (const [k, v] of untouched) expect(after.get(k)).toBe(v);
  });

  it.each([
    { name: 'the body is truncated', fail: { rows: 7 }, code: EXPORT_ERROR_CODES.sourceFailed },
    {
      name: 'the body is truncated before any row',
      fail: { rows: 0 },
      code: EXPORT_ERROR_CODES.sourceFailed,
    },
    { name: 'the row count differs from totalCount', totalCount: 31, code: EXPORT_ERROR_CODES.countMismatch },
    { name: 'the row limit was exceeded', rowLimitExceeded: true, code: EXPORT_ERROR_CODES.rowLimitExceeded },
  ])('publishes nothing and keeps earlier partitions byte-identical when $name', async (c) => {
    // Prepare
    const rows = calls(3, 10, 'new');
    const source = resultStreamOf(rows, {
      requestId: 'req-new',
      ...(c.totalCount === undefined ? {} : { totalCount: c.totalCount }),
      ...(c.rowLimitExceeded === undefined ? {} : { rowLimitExceeded: true }),
      ...(c.fail === undefined
        ? {}
        : { failAfter: { rows: c.fail.rows, error: new Error('body truncated') } }),
    });

    // Act
    const run = exportReportResult({ source, store, reportId });

    // Assess
    await expect(run).rejects.toMatchObject({ code: c.code });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it.each([
    { operation: 'put', nth: 1, code: EXPORT_ERROR_CODES.stagingFailed },
    { operation: 'put', nth: 5, code: EXPORT_ERROR_CODES.stagingFailed },
    // Staging puts are 12 (3 days x 2 formats x 2 parts); the 13th put is the first manifest.
    { operation: 'put', nth: 13, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'put', nth: 16, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'copy', nth: 1, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'copy', nth: 9, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'copy', nth: 30, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'deleteMany', nth: 1, code: EXPORT_ERROR_CODES.publishFailed },
    { operation: 'deleteMany', nth: 4, code: EXPORT_ERROR_CODES.publishFailed },
  ] as const)('restores earlier partitions when the store fails on $operation #$nth', async (c) => {
    // Prepare
    const failing = new FailingStore(store, c.operation, c.nth);
    const source = resultStreamOf(calls(3, 7, 'new'), { requestId: 'req-new' });

    // Act
    const run = exportReportResult({ source, store: failing, reportId, maxRowsPerFile: 4 });

    // Assess
    await expect(run).rejects.toMatchObject({ code: c.code });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('publishes nothing and fails with EXPORT_VERIFY_FAILED when a staged object is missing after its put', async () => {
    // Prepare: the 3rd staging put is acknowledged but never stored.
    const losing = new FailingStore(store, 'put', 3, { lose: true });
    const source = resultStreamOf(calls(3, 7, 'new'), { requestId: 'req-new' });

    // Act
    const run = exportReportResult({ source, store: losing, reportId, maxRowsPerFile: 4 });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.verifyFailed });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('publishes nothing and fails with EXPORT_ABORTED when the signal is aborted', async () => {
    // Prepare
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const source = resultStreamOf(calls(3, 10, 'new'), { requestId: 'req-new' });

    // Act
    const run = exportReportResult({ source, store, reportId, signal: controller.signal });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.aborted });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it.each([
    { name: 'maxRowsPerFile is 0', options: { maxRowsPerFile: 0 }, setting: 'maxRowsPerFile' },
    { name: 'the prefix has a space', options: { prefix: 'a b' }, setting: 'prefix' },
    {
      name: 'the shrink guard share is above 1',
      options: { minShareOfPublished: 2 },
      setting: 'minShareOfPublished',
    },
    {
      name: 'the summary policy is unknown',
      options: { summaryMismatch: 'warn' },
      setting: 'summaryMismatch',
    },
    {
      name: 'a promoted column is named like a known one',
      options: { promotedColumns: { calls: [{ name: 'ConnId', type: 'string' }] } },
      setting: 'conn_id',
    },
    { name: 'the codec is unknown', options: { parquetCodec: 'LZO' }, setting: 'parquetCodec' },
    {
      name: 'the unknown-member policy is unknown',
      options: { unknownMembers: 'drop' },
      setting: 'unknownMembers',
    },
  ])('fails with EXPORT_CONFIG_INVALID naming the setting when $name', async ({ options, setting }) => {
    // Prepare
    const source = resultStreamOf(calls(1, 1, 'x'));

    // Act
    const run = exportReportResult({ source, store, reportId, ...(options as object) });

    // Assess
    await expect(run).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.configInvalid,
      message: expect.stringContaining(setting),
    });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('writes ZSTD where node:zlib has it and otherwise fails naming parquetCodec', async () => {
    // Prepare
    const source = resultStreamOf(calls(1, 3, 'z'), { requestId: 'req-z' });

    // Act
    const run = exportReportResult({ source, store, reportId, parquetCodec: 'ZSTD' });

    // Assess
    if (zstdAvailable()) {
      await expect(run).resolves.toMatchObject({ rows: 3 });
    } else {
      await expect(run).rejects.toMatchObject({
        code: EXPORT_ERROR_CODES.configInvalid,
        message: expect.stringContaining('parquetCodec=ZSTD'),
      });
    }
  });
});
