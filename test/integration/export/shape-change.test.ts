import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import {
  EXPORT_ERROR_CODES,
  type ExportOptions,
  exportReportResult,
  type PartitionManifest,
  ReportShapeChangedError,
} from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore, listAll, type ObjectStore, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { FailingStore, snapshot } from './failing-store';

const reportId = 'rep-shape';
const DAY = '2026-06-02';
const BEFORE = '2026-06-01';
const USERS: ResultRow[] = [
  { userName: 'Alice', userNum: '201', ans: 6, ref: 1, lost: 1 },
  { userName: 'Bob', userNum: '202', ans: 2, ref: 0, lost: 0 },
];

describe('exportReportResult when a report changes shape', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'shape-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The report as a call list of `perDay` calls a day over `days`. */
  function exportCalls(days: readonly string[], perDay: number, options: Partial<ExportOptions> = {}) {
    return exportReportResult({
      source: resultStreamOf(callsOn(days, perDay, 'c'), { requestId: 'req-calls' }),
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(days[0] as string, days.at(-1) as string, 'Europe/London'),
      ...options,
    });
  }

  /** The report as a summary by user of DAY. */
  function exportSummary(options: Partial<ExportOptions> & { store?: ObjectStore } = {}) {
    return exportReportResult({
      source: resultStreamOf(USERS, { requestId: 'req-sum', displayFields: ['userName', 'userNum', 'ans'] }),
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(DAY, DAY, 'Europe/London'),
      ...options,
    });
  }

  async function keysOf(dataset: string, dt: string): Promise<string[]> {
    const keys = (await listAll(store, `${dataset}/`)).map((o) => o.key);
    return keys.filter((k) => k.includes(`/dt=${dt}/`));
  }

  async function manifestOf(dataset: string, dt: string): Promise<PartitionManifest> {
    const key = `${dataset}/format=parquet/report_id=${reportId}/dt=${dt}/_manifest.json`;
    return JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest;
  }

  it('refuses by name and changes nothing when a call list becomes a summary of a published day', async () => {
    // Prepare
    await exportCalls([BEFORE, DAY], 5);
    const earlier = await snapshot(store);

    // Act
    const failure = await exportSummary().catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(ReportShapeChangedError);
    expect(failure).toMatchObject({
      code: EXPORT_ERROR_CODES.reportShapeChanged,
      days: [DAY],
      publishedIn: 'calls',
      requestId: 'req-sum',
    });
    expect((failure as Error).message).toContain(`${reportId} now returns a summary`);
    expect((failure as Error).message).toContain('forceReplace');
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('refuses by name when a summary becomes a call list over its day', async () => {
    // Prepare
    await exportSummary();
    const earlier = await snapshot(store);

    // Act
    const failure = await exportCalls([BEFORE, DAY], 5).catch((e: unknown) => e);

    // Assess
    expect(failure).toMatchObject({
      code: EXPORT_ERROR_CODES.reportShapeChanged,
      days: [DAY],
      publishedIn: 'summaries',
    });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('publishes the summary and empties the day in calls only, in the same publish, with forceReplace', async () => {
    // Prepare
    await exportCalls([BEFORE, DAY], 5);
    const untouched = await keysOf('calls', BEFORE);
    const warnings: unknown[][] = [];

    // Act
    const summary = await exportSummary({ forceReplace: true, logger: { warn: (...a) => warnings.push(a) } });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([[DAY, 2]]);
    expect(await keysOf('calls', DAY)).toEqual([
      `calls/format=csv/report_id=${reportId}/dt=${DAY}/_manifest.json`,
      `calls/format=parquet/report_id=${reportId}/dt=${DAY}/_manifest.json`,
    ]);
    expect(await manifestOf('calls', DAY)).toMatchObject({ rows: 0, files: [], requestId: 'req-sum' });
    expect(await keysOf('calls', BEFORE)).toEqual(untouched);
    expect((await manifestOf('calls', BEFORE)).rows).toBe(5);
    expect(warnings).toContainEqual([
      expect.stringContaining('forceReplace'),
      { dataset: 'calls', days: [DAY] },
    ]);
  });

  it('publishes a call list after the report was a summary once the emptied day is there', async () => {
    // Prepare: forced to a summary, then back to a call list (forced again).
    await exportCalls([DAY], 5);
    await exportSummary({ forceReplace: true });

    // Act
    const back = await exportCalls([DAY], 5, { forceReplace: true });

    // Assess
    expect(back.partitions.map((p) => [p.dt, p.rows])).toEqual([[DAY, 5]]);
    expect(await manifestOf('summaries', DAY)).toMatchObject({ rows: 0, files: [] });
  });

  it('restores both datasets byte for byte when the promotion fails while emptying the other one', async () => {
    // Prepare: the first deleteMany of the run is the removal of the calls day's parts.
    await exportCalls([DAY], 5);
    const earlier = await snapshot(store);

    // Act
    const failure = await exportSummary({
      store: new FailingStore(store, 'deleteMany', 1),
      forceReplace: true,
    }).catch((e: unknown) => e);

    // Assess
    expect(failure).toMatchObject({ code: EXPORT_ERROR_CODES.publishFailed });
    expect(await snapshot(store)).toEqual(earlier);
  });
});
