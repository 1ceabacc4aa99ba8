import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import {
  type ExportLogger,
  type ExportOptions,
  exportReportResult,
  type PartitionManifest,
} from '../../../lib/export';
import { LocalDirectoryStore, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { snapshot } from './failing-store';

const reportId = 'rep-g';
const DAYS = ['2026-06-01', '2026-06-02', '2026-06-03'] as const;
const DAY = '2026-06-02';

function windowOf(from: string, to: string) {
  return windowForDates(from, to, 'Europe/London');
}

/** The entries of a snapshot under one partition of both formats. */
function entriesOf(objects: Map<string, string>, dt: string): [string, string][] {
  return [...objects].filter(([key]) => key.includes(`/dt=${dt}/`));
}

/** A logger that records its warnings. */
function recordingLogger(): ExportLogger & { warnings: [string, Record<string, unknown> | undefined][] } {
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  return { warnings, warn: (message, data) => warnings.push([message, data]) };
}

describe('exportReportResult shrink guard', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'shrink-'));
    store = new LocalDirectoryStore(root);
    // Published: 3 days of 10 calls each.
    await exportReportResult({
      source: resultStreamOf(callsOn(DAYS, 10, 'old'), { requestId: 'req-old' }),
      store,
      reportId,
      window: windowOf(DAYS[0], DAYS[2]),
    });
    earlier = await snapshot(store);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function manifestOf(format: 'parquet' | 'csv', dt: string): Promise<PartitionManifest> {
    const key = `calls/format=${format}/report_id=${reportId}/dt=${dt}/_manifest.json`;
    return JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest;
  }

  /** Re-exports DAY's window with `rows` new calls. */
  function reexportDay(rows: number, options: Partial<ExportOptions> = {}) {
    return exportReportResult({
      source: resultStreamOf(callsOn([DAY], rows, 'new'), { requestId: 'req-new' }),
      store,
      reportId,
      window: windowOf(DAY, DAY),
      ...options,
    });
  }

  it.each([0, 1, 4])(
    'holds the published day and leaves every object byte-identical when a re-export has %i of its 10 rows',
    async (rows) => {
      // Prepare
      const logger = recordingLogger();

      // Act
      const summary = await reexportDay(rows, { logger });

      // Assess
      expect(summary.held).toEqual([{ dt: DAY, basis: 'rows', publishedRows: 10, rows }]);
      expect(summary.partitions).toEqual([]);
      expect(summary).toMatchObject({ rows: 0, files: 0, bytes: 0 });
      expect(await snapshot(store)).toEqual(earlier);
      expect(logger.warnings).toEqual([
        [
          expect.stringContaining('held by the shrink guard'),
          { held: [{ dt: DAY, basis: 'rows', publishedRows: 10, rows }], minShareOfPublished: 0.5 },
        ],
      ]);
    },
  );

  it.each([5, 6, 10])('replaces the published day when a re-export has %i of its 10 rows', async (rows) => {
    // Act
    const summary = await reexportDay(rows);

    // Assess
    expect(summary.held).toEqual([]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([[DAY, rows]]);
    for (const format of ['parquet', 'csv'] as const) {
      expect(await manifestOf(format, DAY)).toMatchObject({ rows, requestId: 'req-new' });
    }
    const after = await snapshot(store);
    expect(entriesOf(after, DAY)).not.toEqual(entriesOf(earlier, DAY));
  });

  it('holds by the share given when minShareOfPublished is 0.8', async () => {
    // Act
    const held = await reexportDay(7, { minShareOfPublished: 0.8 });
    const replaced = await reexportDay(8, { minShareOfPublished: 0.8 });

    // Assess
    expect(held.held).toEqual([{ dt: DAY, basis: 'rows', publishedRows: 10, rows: 7 }]);
    expect(replaced.held).toEqual([]);
    expect((await manifestOf('parquet', DAY)).rows).toBe(8);
  });

  it('replaces the day with no rows and warns when forceReplace is true', async () => {
    // Prepare
    const logger = recordingLogger();

    // Act
    const summary = await reexportDay(0, { forceReplace: true, logger });

    // Assess
    expect(summary.held).toEqual([]);
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.files])).toEqual([[DAY, 0, 0]]);
    for (const format of ['parquet', 'csv'] as const) {
      expect(await manifestOf(format, DAY)).toMatchObject({ rows: 0, files: [], requestId: 'req-new' });
    }
    const after = await snapshot(store);
    expect(entriesOf(after, DAY).map(([key]) => key)).toEqual([
      `calls/format=csv/report_id=${reportId}/dt=${DAY}/_manifest.json`,
      `calls/format=parquet/report_id=${reportId}/dt=${DAY}/_manifest.json`,
    ]);
    expect(logger.warnings).toEqual([
      [expect.stringContaining('forceReplace'), { dt: DAY, basis: 'rows', publishedRows: 10, rows: 0 }],
    ]);
  });

  it('replaces the day with no rows when minShareOfPublished is 0', async () => {
    // Act
    const summary = await reexportDay(0, { minShareOfPublished: 0 });

    // Assess
    expect(summary.held).toEqual([]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([[DAY, 0]]);
    expect(await manifestOf('parquet', DAY)).toMatchObject({ rows: 0, files: [] });
  });

  it('holds only the day that shrinks and replaces the others when a look-back window is re-exported', async () => {
    // Prepare: 06-01 and 06-03 complete again (and grown), 06-02 down to 2 of 10.
    const rows = [
      ...callsOn(['2026-06-01'], 10, 'new'),
      ...callsOn(['2026-06-02'], 2, 'new'),
      ...callsOn(['2026-06-03'], 12, 'new'),
    ];

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(rows, { requestId: 'req-new' }),
      store,
      reportId,
      window: windowOf(DAYS[0], DAYS[2]),
    });

    // Assess
    expect(summary.held).toEqual([{ dt: '2026-06-02', basis: 'rows', publishedRows: 10, rows: 2 }]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([
      ['2026-06-01', 10],
      ['2026-06-03', 12],
    ]);
    const after = await snapshot(store);
    expect(entriesOf(after, '2026-06-02')).toEqual(entriesOf(earlier, '2026-06-02'));
    for (const format of ['parquet', 'csv'] as const) {
      expect(await manifestOf(format, '2026-06-01')).toMatchObject({ rows: 10, requestId: 'req-new' });
      expect(await manifestOf(format, '2026-06-03')).toMatchObject({ rows: 12, requestId: 'req-new' });
      expect(await manifestOf(format, '2026-06-02')).toMatchObject({ rows: 10, requestId: 'req-old' });
    }
  });

  it('holds a day without rows in a look-back window when it was published with rows', async () => {
    // Prepare: the service returns nothing for 06-02 and 06-03 this time.
    const rows = callsOn(['2026-06-01'], 10, 'new');

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(rows, { requestId: 'req-new' }),
      store,
      reportId,
      window: windowOf(DAYS[0], DAYS[2]),
    });

    // Assess
    expect(summary.held).toEqual([
      { dt: '2026-06-02', basis: 'rows', publishedRows: 10, rows: 0 },
      { dt: '2026-06-03', basis: 'rows', publishedRows: 10, rows: 0 },
    ]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([['2026-06-01', 10]]);
    const after = await snapshot(store);
    for (const dt of ['2026-06-02', '2026-06-03'])
      expect(entriesOf(after, dt)).toEqual(entriesOf(earlier, dt));
  });

  it('publishes an empty day of the window when nothing was published for it before', async () => {
    // Prepare: 06-04 has never been published; a window over it with no rows still writes it.
    const source = resultStreamOf([], { requestId: 'req-new' });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      window: windowOf('2026-06-04', '2026-06-04'),
    });

    // Assess
    expect(summary.held).toEqual([]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([['2026-06-04', 0]]);
    expect(await manifestOf('parquet', '2026-06-04')).toMatchObject({ rows: 0 });
  });
});
