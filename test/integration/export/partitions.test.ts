import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { resultStreamOf, sampleRow } from '../../support/result-stream';

/** Deterministic shuffle (mulberry32) so the unsorted order is the same on every run. */
function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('exportReportResult partitions', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'part-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('puts every row in the partition of its local date when rows are unsorted over 92 days', async () => {
    // Prepare
    const rows: ResultRow[] = [];
    for (let d = 0; d < 92; d++) {
      const date = new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10);
      for (const time of ['00:00:00', '12:34:56', '23:59:59.999']) {
        rows.push(sampleRow({ connId: `${date} ${time}`, start: `${date}T${time}` }));
      }
    }
    // A tiny buffer forces many flushes of many open partitions.
    const source = resultStreamOf(shuffle(rows, 7));

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId: 'r',
      maxBufferedRows: 16,
      rowGroupRows: 8,
    });

    // Assess
    expect(summary.partitions).toHaveLength(92);
    expect(summary.partitions.every((p) => p.rows === 3 && p.files === 2)).toBe(true);
    for (const format of ['parquet', 'csv']) {
      const glob = sqlString(join(root, `calls/format=${format}/report_id=r/*/*.${format}`));
      const from =
        format === 'parquet'
          ? `read_parquet(${glob}, hive_partitioning = true)`
          : `read_csv(${glob}, header = true, hive_partitioning = true, types = {'start': 'TIMESTAMP'})`;
      const bad = await duckdbQuery(
        `SELECT count(*)::INTEGER AS n, count(DISTINCT conn_id)::INTEGER AS ids,
                count(*) FILTER (WHERE CAST(start AS DATE) <> CAST(dt AS DATE))::INTEGER AS misplaced
         FROM ${from}`,
      );
      expect(bad).toEqual([{ n: 276, ids: 276, misplaced: 0 }]);
    }
  });

  it.each([
    // London spring forward 2026-03-29 01:00 -> 02:00; fall back 2026-10-25 02:00 -> 01:00.
    { start: '2026-03-29T00:59:59', dt: '2026-03-29', utc: '2026-03-29T00:59:59.000Z' },
    { start: '2026-03-29T01:30:00', dt: '2026-03-29', utc: '2026-03-29T01:30:00.000Z' },
    { start: '2026-03-29T02:00:00', dt: '2026-03-29', utc: '2026-03-29T01:00:00.000Z' },
    { start: '2026-10-25T00:59:59', dt: '2026-10-25', utc: '2026-10-24T23:59:59.000Z' },
    { start: '2026-10-25T01:00:00', dt: '2026-10-25', utc: '2026-10-25T00:00:00.000Z' },
    { start: '2026-10-25T01:59:59', dt: '2026-10-25', utc: '2026-10-25T00:59:59.000Z' },
    { start: '2026-10-25T02:00:00', dt: '2026-10-25', utc: '2026-10-25T02:00:00.000Z' },
    { start: '2026-10-24T23:59:59.999', dt: '2026-10-24', utc: '2026-10-24T22:59:59.999Z' },
    { start: '2026-10-26T00:00:00', dt: '2026-10-26', utc: '2026-10-26T00:00:00.000Z' },
  ])('writes $start to dt=$dt with start_utc $utc when the zone changes offset', async (c) => {
    // Prepare
    const source = resultStreamOf([sampleRow({ start: c.start })], { timeZoneId: 'Europe/London' });

    // Act
    const summary = await exportReportResult({ source, store, reportId: 'r' });

    // Assess
    expect(summary.partitions.map((p) => p.dt)).toEqual([c.dt]);
    const file = join(root, `calls/format=parquet/report_id=r/dt=${c.dt}/part-00000.parquet`);
    const [row] = await duckdbQuery(
      `SET TimeZone = 'UTC'; SELECT strftime(start_utc, '%Y-%m-%dT%H:%M:%S.%gZ') AS utc FROM read_parquet(${sqlString(file)})`,
    );
    expect(row?.utc).toBe(c.utc);
  });
});
