import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { resultStreamOf, sampleRow } from '../../support/result-stream';

const reportId = 'rep-zero';

describe('exportReportResult with a negative zero', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'zero-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes 0 in Parquet and in CSV when the service sent -0, as a number or as its text', async () => {
    // Prepare: the client hands -0 over as its text "-0" (String(-0) is "0"); another source as the number.
    const rows = [
      sampleRow({ connId: 'text', ring: '-0' as unknown as number, duration: '-0.0' as unknown as number }),
      sampleRow({ connId: 'number', ring: -0, duration: -0, callType: -0, wait: '-0' } as never),
    ];

    // Act
    await exportReportResult({
      source: resultStreamOf(rows),
      store: new LocalDirectoryStore(root),
      reportId,
      encodeWorker: false,
      promotedColumns: { calls: [{ name: 'wait', type: 'double' }] },
    });

    // Assess
    const read = async (format: 'parquet' | 'csv') => {
      const glob = sqlString(join(root, `calls/format=${format}/report_id=${reportId}/*/part-*`));
      const from =
        format === 'parquet'
          ? `read_parquet(${glob})`
          : `read_csv(${glob}, header = true, all_varchar = true)`;
      return duckdbQuery(
        `SELECT conn_id, ring::VARCHAR AS ring, signbit(ring::DOUBLE) AS ringNegative, signbit(duration::DOUBLE) AS durationNegative, signbit(wait::DOUBLE) AS waitNegative, call_type::INTEGER AS call_type FROM ${from} ORDER BY conn_id`,
      );
    };
    const parquet = await read('parquet');
    const csv = await read('csv');
    const positive = { ring: '0.0', ringNegative: false, durationNegative: false };
    expect(parquet).toEqual([
      { conn_id: 'number', ...positive, waitNegative: false, call_type: 0 },
      { conn_id: 'text', ...positive, waitNegative: null, call_type: 1 },
    ]);
    expect(csv.map(({ ring: _, ...rest }) => rest)).toEqual(parquet.map(({ ring: _, ...rest }) => rest));
    expect(csv.map((r) => r.ring)).toEqual(['0', '0']);
  });
});
