import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { CALLS_SCHEMA, COLUMNS, columnName } from '../../../lib/export/schema';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { resultStreamOf, sampleRow } from '../../support/result-stream';

/** Source rows (Europe/London) with the instant each `start` must become. */
const CASES: { row: ResultRow; dt: string; utc: string }[] = [
  { row: sampleRow({ connId: 'c01' }), dt: '2026-03-10', utc: '2026-03-10T09:15:30.000Z' },
  {
    row: sampleRow({
      connId: 'c02',
      start: '2026-07-01T23:59:59.999',
      userName: 'Smith, "Jo"\r\nsecond line',
      cliName: 'Zoë Ñandú 日本 🚀',
      hgName: 'a\nb',
      calledUserName: '"',
      callUserName: ',',
    }),
    dt: '2026-07-01',
    utc: '2026-07-01T22:59:59.999Z',
  },
  { row: { connId: 'c03', start: '2026-07-02T00:00:00' }, dt: '2026-07-02', utc: '2026-07-01T23:00:00.000Z' },
  // Spring forward: 01:30 does not exist in London; shifted forward to 02:30 BST.
  {
    row: sampleRow({ connId: 'c04', start: '2026-03-29T01:30:00' }),
    dt: '2026-03-29',
    utc: '2026-03-29T01:30:00.000Z',
  },
  // Fall back: 01:30 happens twice; the earlier (BST) instant is chosen.
  {
    row: sampleRow({ connId: 'c05', start: '2026-10-25T01:30:00' }),
    dt: '2026-10-25',
    utc: '2026-10-25T00:30:00.000Z',
  },
  {
    row: sampleRow({ connId: 'c06', start: '2026-10-25T02:30:00' }),
    dt: '2026-10-25',
    utc: '2026-10-25T02:30:00.000Z',
  },
  {
    row: sampleRow({
      connId: 'c07',
      start: '2026-01-01T00:00:00.5',
      userName: '',
      callType: -2_147_483_648,
      ans: 2_147_483_647,
      ring: 0.1,
      duration: 1e-7,
    }),
    dt: '2026-01-01',
    utc: '2026-01-01T00:00:00.500Z',
  },
];

const MEMBERS = COLUMNS.flatMap((c) => (c.source.from === 'member' ? [c.source.member] : []));

function expectedValue(member: string, row: ResultRow): unknown {
  const v = row[member as keyof ResultRow];
  if (v === undefined) return null;
  if (member === 'start') return new Date(`${v}Z`).toISOString();
  return v;
}

function normalise(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  return v;
}

describe('exportReportResult round trip', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'rt-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { format: 'parquet', csvGzip: false },
    { format: 'csv', csvGzip: false },
    { format: 'csv', csvGzip: true },
  ])(
    'reads back every value equal to the source when the format is $format (gzip $csvGzip)',
    async ({ format, csvGzip }) => {
      // Prepare
      const store = new LocalDirectoryStore(root);
      const source = resultStreamOf(
        CASES.map((c) => c.row),
        { requestId: 'req-rt' },
      );

      // Act
      const summary = await exportReportResult({ source, store, reportId: 'rep-1', csvGzip });

      // Assess
      expect(summary.rows).toBe(CASES.length);
      const glob = join(root, `calls/format=${format}/report_id=rep-1/*/part-*`);
      const types = CALLS_SCHEMA.columns.map((c) => {
        const t = {
          string: 'VARCHAR',
          int32: 'INTEGER',
          double: 'DOUBLE',
          boolean: 'BOOLEAN',
          localTimestamp: 'TIMESTAMP',
          utcTimestamp: 'TIMESTAMPTZ',
        }[c.kind];
        return `${sqlString(c.name)}: '${t}'`;
      });
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)}, hive_partitioning = true)`
          : `read_csv(${sqlString(glob)}, header = true, quote = '"', escape = '"', allow_quoted_nulls = false, hive_partitioning = true, columns = {${types.join(', ')}})`;
      const rows = await duckdbQuery(
        `SET TimeZone = 'UTC'; SELECT *, CAST(dt AS VARCHAR) AS dt_text FROM ${from} ORDER BY conn_id`,
      );
      expect(rows).toHaveLength(CASES.length);
      for (const [i, c] of CASES.entries()) {
        const got = rows[i] as Record<string, unknown>;
        for (const member of MEMBERS) {
          expect([c.row.connId, member, normalise(got[columnName(member)])]).toEqual([
            c.row.connId,
            member,
            expectedValue(member, c.row),
          ]);
        }
        expect(normalise(got.start_utc)).toBe(c.utc);
        expect(got.dt_text).toBe(c.dt);
        expect(got.report_id).toBe('rep-1');
        expect(got.request_id).toBe('req-rt');
        // Days long over when the export read them (dataAsOf: now): settled.
        expect(got.provisional).toBe(false);
      }
    },
  );

  it.each([
    { format: 'parquet', csvGzip: false },
    { format: 'csv', csvGzip: true },
  ])(
    'reads back every value when string columns hold thousands of distinct values (buffered as UTF-8 text, $format)',
    async ({ format, csvGzip }) => {
      // Prepare: unique names switch the column from the run dictionary to text mid-run,
      // across several row groups; some names repeat, some are empty or absent.
      const store = new LocalDirectoryStore(root);
      const name = (i: number) =>
        i % 101 === 0
          ? undefined
          : i % 89 === 0
            ? ''
            : i % 3 === 0
              ? `Zoë "${i}", 日本\r\n🚀 ${i}`
              : `user ${i % 5}`;
      const rows = Array.from({ length: 5_000 }, (_, i) => {
        const row = sampleRow({ connId: `c${String(i).padStart(5, '0')}`, hgName: `hg ${i}, "x"` });
        const n = name(i);
        if (n === undefined) delete row.userName;
        else row.userName = n;
        return row;
      });

      // Act
      await exportReportResult({
        source: resultStreamOf(rows),
        store,
        reportId: 'rep-1',
        csvGzip,
        maxBufferedRows: 1_200,
        rowGroupRows: 1_200,
      });

      // Assess
      const glob = join(root, `calls/format=${format}/report_id=rep-1/*/part-*`);
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)})`
          : `read_csv(${sqlString(glob)}, header = true, quote = '"', escape = '"', allow_quoted_nulls = false, all_varchar = true)`;
      const got = await duckdbQuery(`SELECT conn_id, user_name, hg_name FROM ${from} ORDER BY conn_id`);
      expect(got).toEqual(
        rows.map((r) => ({ conn_id: r.connId, user_name: r.userName ?? null, hg_name: r.hgName })),
      );
    },
  );

  it.each([
    { format: 'parquet', csvGzip: false },
    { format: 'csv', csvGzip: false },
    { format: 'csv', csvGzip: true },
  ])(
    'keeps every digit of a phone number the client handed over as text when the format is $format (gzip $csvGzip)',
    async ({ format, csvGzip }) => {
      // Prepare: 441234567890123456 does not survive a double (it becomes ...460).
      const store = new LocalDirectoryStore(root);
      const rows = [
        sampleRow({ connId: 'p1', cli: '441234567890123456' as never }),
        sampleRow({ connId: 'p2', cli: 441234567890123460 as never }),
      ];

      // Act
      await exportReportResult({ source: resultStreamOf(rows), store, reportId: 'rep-1', csvGzip });

      // Assess
      const glob = join(root, `calls/format=${format}/report_id=rep-1/*/part-*`);
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)})`
          : `read_csv(${sqlString(glob)}, header = true, quote = '"', escape = '"', all_varchar = true)`;
      const got = await duckdbQuery(`SELECT conn_id, cli FROM ${from} ORDER BY conn_id`);
      expect(got).toEqual([
        { conn_id: 'p1', cli: '441234567890123456' },
        { conn_id: 'p2', cli: '441234567890123460' },
      ]);
    },
  );

  it('writes no dictionary for a string column that is null in every row of a row group', async () => {
    // Prepare: the only row of its day has no member but connId and start.
    const store = new LocalDirectoryStore(root);
    const rows = [sampleRow({ connId: 'c1' }), { connId: 'c2', start: '2026-07-02T00:00:00' }];

    // Act
    await exportReportResult({ source: resultStreamOf(rows), store, reportId: 'rep-1' });

    // Assess
    const file = join(root, 'calls/format=parquet/report_id=rep-1/dt=2026-07-02/part-00000.parquet');
    const meta = await duckdbQuery(
      `SELECT path_in_schema AS name, dictionary_page_offset AS dict FROM parquet_metadata(${sqlString(file)})`,
    );
    const dict = new Map(meta.map((m) => [m.name, m.dict]));
    expect(dict.get('user_name')).toBeNull();
    expect(dict.get('report_id')).not.toBeNull();
    const back = await duckdbQuery(
      `SELECT conn_id, user_name, hg_name FROM read_parquet(${sqlString(file)})`,
    );
    expect(back).toEqual([{ conn_id: 'c2', user_name: null, hg_name: null }]);
  });

  it('writes INT64 timestamps, UTF8 strings and v1 data pages when read by DuckDB', async () => {
    // Prepare
    const store = new LocalDirectoryStore(root);

    const rows = Array.from({ length: 3_000 }, (_, i) =>
      sampleRow({ connId: createHash('sha256').update(String(i)).digest('hex').slice(0, 36), ring: i }),
    );

    // Act
    await exportReportResult({ source: resultStreamOf(rows), store, reportId: 'rep-1' });

    // Assess
    const file = join(root, 'calls/format=parquet/report_id=rep-1/dt=2026-03-10/part-00000.parquet');
    const schema = await duckdbQuery(
      `SELECT name, type, logical_type FROM parquet_schema(${sqlString(file)})`,
    );
    const byName = new Map(schema.map((r) => [r.name, r]));
    expect(byName.get('start')?.type).toBe('INT64');
    expect(String(byName.get('start')?.logical_type)).toContain('isAdjustedToUTC=0');
    expect(String(byName.get('start_utc')?.logical_type)).toContain('isAdjustedToUTC=1');
    expect(byName.get('user_name')?.type).toBe('BYTE_ARRAY');
    const meta = await duckdbQuery(
      `SELECT path_in_schema AS name, compression, encodings FROM parquet_metadata(${sqlString(file)})`,
    );
    const codecs = new Map(meta.map((m) => [m.name, m.compression]));
    expect(codecs.get('user_name')).toBe('SNAPPY');
    expect(codecs.get('start')).toBe('SNAPPY');
    expect(new Set(codecs.values())).toEqual(new Set(['SNAPPY', 'UNCOMPRESSED']));
    expect(meta.every((m) => !String(m.encodings).includes('DELTA'))).toBe(true);
    // Every page header says DATA_PAGE (0) or DICTIONARY_PAGE (2); never DATA_PAGE_V2 (3).
    const bytes = await readFile(file);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const metadata = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    );
    const pageTypes = new Set<number>();
    for (const group of metadata.row_groups) {
      for (const chunk of group.columns) {
        const m = chunk.meta_data;
        if (m === undefined) continue;
        const reader = { view, offset: Number(m.dictionary_page_offset ?? m.data_page_offset) };
        const end = Number(m.dictionary_page_offset ?? m.data_page_offset) + Number(m.total_compressed_size);
        while (reader.offset < end) {
          const header = deserializeTCompactProtocol(reader);
          pageTypes.add(header.field_1 as number);
          reader.offset += header.field_3 as number;
        }
      }
    }
    expect([...pageTypes].sort()).toEqual([0, 2]);
  });
});
