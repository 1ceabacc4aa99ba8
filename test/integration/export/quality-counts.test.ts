import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportResultStream } from '../../../lib/api';
import { windowForDates } from '../../../lib/calendar';
import { exportReportResult, type PartitionManifest } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore, readObject } from '../../../lib/stores';
import { resultStreamOf, sampleRow } from '../../support/result-stream';

const reportId = 'rep-q';
const ZERO = { nullConnId: 0, duplicateConnId: 0, negativeTime: 0, flagOutOfRange: 0 };

/** A call of `dt` at `time` (sampleRow's members: ans 1, ring 4.5, nothing to count). */
function call(
  connId: string | undefined | null,
  dt: string,
  time: string,
  overrides: Partial<ResultRow> = {},
) {
  const row = { ...sampleRow({ start: `${dt}T${time}`, ...overrides }) } as Record<string, unknown>;
  if (connId === undefined) delete row.connId;
  else row.connId = connId;
  return row as ResultRow;
}

describe('exportReportResult data-quality counts', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'quality-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function manifestOf(dataset: string, format: string, dt: string): Promise<PartitionManifest> {
    const key = `${dataset}/format=${format}/report_id=${reportId}/dt=${dt}/_manifest.json`;
    return JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest;
  }

  it('counts null and duplicate connIds per day, negative times and flags outside 0..1 in the manifests and the summary', async () => {
    // Prepare
    const rows = [
      call('dup', '2026-06-01', '10:00:00'),
      call('dup', '2026-06-01', '10:00:01'),
      call(null, '2026-06-01', '10:00:02'),
      call('both-days', '2026-06-01', '10:00:03'),
      call('dup', '2026-06-01', '10:00:04'),
      call(undefined, '2026-06-01', '10:00:05'),
      call('neg', '2026-06-01', '10:00:06', { ring: -5 }),
      call('flag', '2026-06-01', '10:00:07', { ans: 7 }),
      call('both-days', '2026-06-02', '09:00:00'),
      call('clean', '2026-06-02', '09:00:01'),
      call('neg-duration', '2026-06-03', '09:00:00', { duration: -0.5 }),
      call('flags', '2026-06-03', '09:00:01', { ref: -1, lost: 2 }),
    ];

    // Act
    const summary = await exportReportResult({ source: resultStreamOf(rows), store, reportId });

    // Assess
    const day1 = { nullConnId: 2, duplicateConnId: 2, negativeTime: 1, flagOutOfRange: 1 };
    const day3 = { nullConnId: 0, duplicateConnId: 0, negativeTime: 1, flagOutOfRange: 1 };
    expect(summary.partitions).toEqual([
      { dt: '2026-06-01', rows: 8, files: 2, bytes: expect.any(Number), quality: day1 },
      // No quality member when every count is 0.
      { dt: '2026-06-02', rows: 2, files: 2, bytes: expect.any(Number) },
      { dt: '2026-06-03', rows: 2, files: 2, bytes: expect.any(Number), quality: day3 },
    ]);
    for (const format of ['parquet', 'csv']) {
      const got = await Promise.all(
        ['2026-06-01', '2026-06-02', '2026-06-03'].map(async (dt) => [
          format,
          dt,
          (await manifestOf('calls', format, dt)).quality,
        ]),
      );
      expect(got).toEqual([
        [format, '2026-06-01', day1],
        [format, '2026-06-02', ZERO],
        [format, '2026-06-03', day3],
      ]);
    }
  });

  it('records zero counts in the manifest of a window day without rows', async () => {
    // Prepare
    const rows = [call('a', '2026-06-01', '10:00:00'), call('a', '2026-06-01', '10:00:01')];

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(rows),
      store,
      reportId,
      window: windowForDates('2026-06-01', '2026-06-02', 'Europe/London'),
    });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.quality])).toEqual([
      ['2026-06-01', 2, { ...ZERO, duplicateConnId: 1 }],
      ['2026-06-02', 0, undefined],
    ]);
    expect((await manifestOf('calls', 'parquet', '2026-06-02')).quality).toEqual(ZERO);
  });

  it('counts only negative times when the result is a summary', async () => {
    // Prepare: totals per user, no connId, counts far beyond 1; the same user twice.
    const rows = [
      { userName: 'Alice', userNum: '201', ans: 40, ref: 2, lost: 3, ring: -2, duration: 10 },
      { userName: 'Alice', userNum: '201', ans: 40, ref: 2, lost: 3, ring: 1, duration: -1 },
      { userName: 'Bob', userNum: '202', ans: 0, ref: 0, lost: 0, ring: -1, duration: -1 },
      { userName: 'Carol', userNum: '203', ans: 7, ref: -1, lost: 9, ring: 0, duration: 0 },
    ];
    const head = {
      requestId: 'req-q',
      tenantId: 't',
      request: {
        requestId: 'req-q',
        reportId,
        timeZoneId: 'Europe/London',
        displayFields: ['userName', 'userNum', 'ans', 'ref', 'lost', 'ring', 'duration'].map((fieldName) => ({
          fieldName,
          mandatory: false,
        })),
      },
      totalCount: rows.length,
    };
    const document = `${JSON.stringify(head).slice(0, -1)},"data":${JSON.stringify(rows)},"summary":[],"status":1,"rowLimit":1000000}`;
    const source = await parseReportResultStream(
      (async function* () {
        yield Buffer.from(document);
      })(),
    );

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates('2026-06-01', '2026-06-01', 'Europe/London'),
    });

    // Assess
    const expected = { ...ZERO, negativeTime: 3 };
    expect(summary.dataset).toBe('summaries');
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.quality])).toEqual([['2026-06-01', 4, expected]]);
    expect((await manifestOf('summaries', 'parquet', '2026-06-01')).quality).toEqual(expected);
    expect((await manifestOf('summaries', 'csv', '2026-06-01')).quality).toEqual(expected);
  });
});
