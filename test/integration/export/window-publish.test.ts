import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import { EXPORT_ERROR_CODES, exportReportResult, type PartitionManifest } from '../../../lib/export';
import { LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { FailingStore, snapshot } from './failing-store';

const reportId = 'rep-1';
const DAYS = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04'] as const;

/** The report's window over local dates `from`..`to` in London, as the CLI requests it. */
function windowOf(from: string, to: string) {
  return windowForDates(from, to, 'Europe/London');
}

function partitionPath(format: 'parquet' | 'csv', dt: string): string {
  return `calls/format=${format}/report_id=${reportId}/dt=${dt}/`;
}

/** The entries of a snapshot under one partition of both formats. */
function entriesOf(objects: Map<string, string>, dt: string): [string, string][] {
  return [...objects].filter(([key]) => key.includes(`/dt=${dt}/`));
}

describe('exportReportResult with a window', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'win-'));
    store = new LocalDirectoryStore(root);
    // An earlier run: 4 days, 10 calls a day, 3 parts per partition and format.
    await exportReportResult({
      source: resultStreamOf(callsOn(DAYS, 10, 'old'), { requestId: 'req-old' }),
      store,
      reportId,
      maxRowsPerFile: 4,
      window: windowOf('2026-06-01', '2026-06-04'),
    });
    earlier = await snapshot(store);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('empties a day of the window that lost all its rows and leaves days outside the window untouched when a window is re-exported', async () => {
    // Prepare: 06-01 unchanged, 06-02 corrected upstream to no calls, 06-03 down to 3 calls
    // (the same report request read again, so unchanged rows give unchanged bytes).
    const rows = [...callsOn(['2026-06-01'], 10, 'old'), ...callsOn(['2026-06-03'], 3, 'new')];
    const source = resultStreamOf(rows, { requestId: 'req-old' });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      maxRowsPerFile: 4,
      runId: 'run-2',
      window: windowOf('2026-06-01', '2026-06-03'),
      forceReplace: true, // past the shrink guard (shrink-guard.test.ts)
    });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.files, p.bytes > 0])).toEqual([
      ['2026-06-01', 10, 6, true],
      ['2026-06-02', 0, 0, false],
      ['2026-06-03', 3, 2, true],
    ]);
    const after = await snapshot(store);
    for (const format of ['parquet', 'csv'] as const) {
      const keys = (await listAll(store, partitionPath(format, '2026-06-02'))).map((o) => o.key);
      expect(keys).toEqual([`${partitionPath(format, '2026-06-02')}_manifest.json`]);
      const manifest = JSON.parse(
        Buffer.from(await readObject(store, keys[0] as string)).toString(),
      ) as PartitionManifest;
      expect(manifest).toMatchObject({ dt: '2026-06-02', format, rows: 0, bytes: 0, files: [] });
      expect(manifest).toMatchObject({ runId: 'run-2', requestId: 'req-old' });
      const replaced = JSON.parse(
        Buffer.from(
          await readObject(store, `${partitionPath(format, '2026-06-03')}_manifest.json`),
        ).toString(),
      ) as PartitionManifest;
      expect(replaced).toMatchObject({ rows: 3, runId: 'run-2' });
    }
    for (const [key, bytes] of entriesOf(earlier, '2026-06-01')) {
      if (!key.endsWith('_manifest.json')) expect([key, after.get(key)]).toEqual([key, bytes]);
    }
    expect(entriesOf(after, '2026-06-03').map(([key]) => key)).toEqual([
      `${partitionPath('csv', '2026-06-03')}_manifest.json`,
      `${partitionPath('csv', '2026-06-03')}part-00000.csv`,
      `${partitionPath('parquet', '2026-06-03')}_manifest.json`,
      `${partitionPath('parquet', '2026-06-03')}part-00000.parquet`,
    ]);
    expect(entriesOf(after, '2026-06-04')).toEqual(entriesOf(earlier, '2026-06-04'));
  });

  it('empties every day of the window when the result has no rows at all', async () => {
    // Prepare
    const source = resultStreamOf([], { requestId: 'req-none' });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      window: windowOf('2026-06-02', '2026-06-03'),
      forceReplace: true,
    });

    // Assess
    expect(summary).toMatchObject({ rows: 0, files: 0, bytes: 0 });
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.files])).toEqual([
      ['2026-06-02', 0, 0],
      ['2026-06-03', 0, 0],
    ]);
    const after = await snapshot(store);
    for (const dt of ['2026-06-02', '2026-06-03'])
      expect(entriesOf(after, dt).map(([key]) => key)).toEqual([
        `${partitionPath('csv', dt)}_manifest.json`,
        `${partitionPath('parquet', dt)}_manifest.json`,
      ]);
    for (const dt of ['2026-06-01', '2026-06-04'])
      expect(entriesOf(after, dt)).toEqual(entriesOf(earlier, dt));
    expect([...after.keys()].some((k) => k.includes('_staging'))).toBe(false);
  });

  it.each([
    { name: 'no window is given', options: {} },
    {
      name: 'windowDates is empty',
      options: { window: windowOf('2026-06-01', '2026-06-04'), windowDates: [] },
    },
  ])('keeps the earlier partitions of days without rows when $name', async ({ options }) => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 10, 'old'), { requestId: 'req-new' });

    // Act
    const summary = await exportReportResult({ source, store, reportId, maxRowsPerFile: 4, ...options });

    // Assess
    expect(summary.partitions.map((p) => p.dt)).toEqual(['2026-06-01']);
    const after = await snapshot(store);
    for (const dt of DAYS.slice(1)) expect(entriesOf(after, dt)).toEqual(entriesOf(earlier, dt));
  });

  it('empties the dates windowDates names instead of those of the window when both are given', async () => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 10, 'old'), { requestId: 'req-new' });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      maxRowsPerFile: 4,
      window: windowOf('2026-06-01', '2026-06-04'),
      windowDates: ['2026-06-04', '2026-06-01'],
      forceReplace: true,
    });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([
      ['2026-06-01', 10],
      ['2026-06-04', 0],
    ]);
    const after = await snapshot(store);
    for (const dt of ['2026-06-02', '2026-06-03'])
      expect(entriesOf(after, dt)).toEqual(entriesOf(earlier, dt));
    expect(entriesOf(after, '2026-06-04')).toHaveLength(2);
  });

  it.each([
    // 06-01 keeps its 3 parts (no deletes); each of the 4 emptied partitions deletes its 3.
    { operation: 'deleteMany', nth: 1, to: '2026-06-03' },
    { operation: 'deleteMany', nth: 4, to: '2026-06-03' },
    // 6 staging puts (06-01), then 6 manifests: #12 is the last one.
    { operation: 'put', nth: 12, to: '2026-06-03' },
    // 06-05 had no partition: its new 0-row manifests (puts #15, #16) must go again.
    { operation: 'put', nth: 16, to: '2026-06-05' },
  ] as const)(
    'restores the emptied days byte-identical when the store fails on $operation #$nth',
    async (c) => {
      // Prepare
      const failing = new FailingStore(store, c.operation, c.nth);
      const source = resultStreamOf(callsOn(['2026-06-01'], 10, 'new'), { requestId: 'req-new' });

      // Act
      const run = exportReportResult({
        source,
        store: failing,
        reportId,
        maxRowsPerFile: 4,
        window: windowOf('2026-06-01', c.to),
        forceReplace: true,
      });

      // Assess
      await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.publishFailed });
      const after = await snapshot(store);
      for (const dt of ['2026-06-02', '2026-06-03'])
        expect(entriesOf(after, dt)).toEqual(entriesOf(earlier, dt));
      expect(after).toEqual(earlier);
    },
  );

  it.each([
    {
      name: 'window.from has no offset',
      window: { from: '2026-06-01T00:00:00', to: '2026-06-02T00:00:00Z' },
      setting: 'window.from',
    },
    {
      name: 'window.to is not after window.from',
      window: { from: '2026-06-02T00:00:00Z', to: '2026-06-02T00:00:00Z' },
      setting: 'window.to',
    },
  ])('fails with EXPORT_CONFIG_INVALID before publishing when $name', async (c) => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 1, 'x'));

    // Act
    const run = exportReportResult({ source, store, reportId, window: c.window });

    // Assess
    await expect(run).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.configInvalid,
      message: expect.stringContaining(c.setting),
    });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('fails with EXPORT_CONFIG_INVALID naming windowDates when a date is not a calendar date', async () => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 1, 'x'));

    // Act
    const run = exportReportResult({ source, store, reportId, windowDates: ['2026-06-31'] });

    // Assess
    await expect(run).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.configInvalid,
      message: expect.stringContaining('windowDates'),
    });
    expect(await snapshot(store)).toEqual(earlier);
  });
});
