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
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { snapshot } from './failing-store';

const DAY = '2026-06-02';
const SUMMARY_FIELDS = ['userName', 'userNum', 'ans', 'ref', 'lost', 'ring', 'duration'];

/** A user's totals, as a `Summary by user` row. */
function userRow(userNum: string, ans: number, ref: number, lost: number): ResultRow {
  return { userName: `User ${userNum}`, userNum, ans, ref, lost, ring: 1.5, duration: 10 };
}

/** Four users sharing `calls` calls (answered, then refused, then lost, round robin). */
function usersWith(calls: number): ResultRow[] {
  return ['201', '202', '203', '204'].map((userNum, u) => {
    const mine = Math.floor(calls / 4) + (u < calls % 4 ? 1 : 0);
    return userRow(
      userNum,
      mine - Math.floor(mine / 3) - Math.floor(mine / 4),
      Math.floor(mine / 3),
      Math.floor(mine / 4),
    );
  });
}

describe('exportReportResult shrink guard on summaries', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'summary-guard-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  function exportSummary(rows: ResultRow[], options: Partial<ExportOptions> = {}, reportId = 'rep-sum') {
    return exportReportResult({
      source: resultStreamOf(rows, { requestId: 'req-sum', displayFields: SUMMARY_FIELDS }),
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(DAY, DAY, 'Europe/London'),
      ...options,
    });
  }

  function exportCalls(calls: number, reportId = 'rep-calls') {
    return exportReportResult({
      source: resultStreamOf(callsOn([DAY], calls, `c${calls}`), { requestId: 'req-calls' }),
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(DAY, DAY, 'Europe/London'),
    });
  }

  async function manifestOf(format: 'parquet' | 'csv', dataset = 'summaries', reportId = 'rep-sum') {
    const key = `${dataset}/format=${format}/report_id=${reportId}/dt=${DAY}/_manifest.json`;
    return JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest;
  }

  it('holds the day by its calls when a re-export keeps every user but a quarter of the calls', async () => {
    // Prepare: 400 calls over 4 users, then 100 over the same 4 (what --rows-per-day 400, then 100 did).
    await exportSummary(usersWith(400));
    const earlier = await snapshot(store);
    const warnings: unknown[][] = [];
    const logger: ExportLogger = { warn: (...args) => warnings.push(args) };

    // Act
    const summary = await exportSummary(usersWith(100), { logger });

    // Assess
    expect(summary.held).toEqual([
      { dt: DAY, basis: 'calls', publishedRows: 4, rows: 4, publishedCalls: 400, calls: 100 },
    ]);
    expect(summary.partitions).toEqual([]);
    expect(await snapshot(store)).toEqual(earlier);
    expect(warnings).toEqual([[expect.stringContaining('held by the shrink guard'), expect.anything()]]);
  });

  it('replaces the day when it has as many calls in fewer rows', async () => {
    // Prepare
    await exportSummary(usersWith(400));

    // Act
    const summary = await exportSummary([userRow('201', 300, 50, 50)]);

    // Assess
    expect(summary.held).toEqual([]);
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([[DAY, 1]]);
  });

  it('records the call totals in both manifests of a summary day and none in a call list', async () => {
    // Act
    await exportSummary([userRow('201', 40, 2, 3), userRow('202', 0, 0, 1)]);
    await exportCalls(3);

    // Assess
    for (const format of ['parquet', 'csv'] as const) {
      expect((await manifestOf(format)).callTotals).toEqual({ ans: 40, ref: 2, lost: 4 });
      expect((await manifestOf(format, 'calls', 'rep-calls')).callTotals).toBeNull();
    }
  });

  it('reads the published calls from the Parquet parts when the manifest predates callTotals', async () => {
    // Prepare: the manifests as a version before callTotals wrote them.
    await exportSummary(usersWith(400));
    for (const format of ['parquet', 'csv'] as const) {
      const { callTotals: _, ...older } = await manifestOf(format);
      await store.put(
        `summaries/format=${format}/report_id=rep-sum/dt=${DAY}/_manifest.json`,
        JSON.stringify(older),
      );
    }

    // Act
    const summary = await exportSummary(usersWith(100));

    // Assess
    expect(summary.held).toEqual([
      { dt: DAY, basis: 'calls', publishedRows: 4, rows: 4, publishedCalls: 400, calls: 100 },
    ]);
  });

  it('judges the day by its rows and warns when an older manifest is there but its parts cannot be read', async () => {
    // Prepare: a manifest without callTotals whose Parquet part is not Parquet.
    await exportSummary(usersWith(400));
    const prefix = `summaries/format=parquet/report_id=rep-sum/dt=${DAY}/`;
    const { callTotals: _, ...older } = await manifestOf('parquet');
    await store.put(`${prefix}_manifest.json`, JSON.stringify(older));
    await store.put(`${prefix}part-00000.parquet`, 'not parquet');
    const warnings: unknown[][] = [];

    // Act
    const summary = await exportSummary(usersWith(100), {
      logger: { warn: (...args) => warnings.push(args) },
    });

    // Assess
    expect(summary.held).toEqual([]);
    expect(warnings).toContainEqual([
      expect.stringContaining('judges it by rows'),
      expect.objectContaining({ key: `${prefix}_manifest.json` }),
    ]);
  });

  it('judges the day by its rows when the published summary counts no calls', async () => {
    // Prepare: a summary without ans, ref and lost (totals of ring and duration only).
    const users = ['201', '202', '203', '204'].map((userNum) => ({ userNum, ring: 1, duration: 2 }));
    await exportSummary(users);

    // Act
    const summary = await exportSummary(users.slice(0, 1));

    // Assess
    expect(summary.held).toEqual([{ dt: DAY, basis: 'rows', publishedRows: 4, rows: 1 }]);
  });

  it('replaces the day with fewer calls and warns when forceReplace is true', async () => {
    // Prepare
    await exportSummary(usersWith(400));
    const warnings: unknown[][] = [];

    // Act
    const summary = await exportSummary(usersWith(100), {
      forceReplace: true,
      logger: { warn: (...args) => warnings.push(args) },
    });

    // Assess
    expect(summary.held).toEqual([]);
    expect((await manifestOf('parquet')).callTotals).toEqual({ ans: 44, ref: 32, lost: 24 });
    expect(warnings).toEqual([
      [
        expect.stringContaining('forceReplace'),
        { dt: DAY, basis: 'calls', publishedRows: 4, rows: 4, publishedCalls: 400, calls: 100 },
      ],
    ]);
  });

  it.each([0, 100, 199, 200, 201, 400])(
    'holds or replaces the call list and the summary of a day alike when its 400 calls become %i',
    async (calls) => {
      // Prepare: one day's calls in both datasets (a call list and a summary by user).
      await exportCalls(400);
      await exportSummary(usersWith(400));

      // Act
      const callList = await exportCalls(calls);
      const summary = await exportSummary(usersWith(calls));

      // Assess
      const held = calls < 200;
      expect([callList.held.length > 0, summary.held.length > 0]).toEqual([held, held]);
    },
  );
});
