import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportResultStream } from '../../../lib/api';
import { EXPORT_ERROR_CODES, exportReportResult } from '../../../lib/export';
import { COLUMNS } from '../../../lib/export/schema';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';

const reportId = 'rep-x';

/** Members the schema does not know, as the service may write them, and the text `extra` keeps. */
const MEMBERS = [
  {
    kind: 'string with quotes and escapes',
    sent: '"say \\"hi\\" \\u2013 caf\\u00e9 \\ud83d\\ude80"',
    kept: '"say \\"hi\\" – café 🚀"',
  },
  { kind: 'string with unicode and emoji', sent: '"Zoë 日本 🚀, ok"', kept: '"Zoë 日本 🚀, ok"' },
  { kind: 'integer', sent: '42', kept: '42' },
  { kind: 'decimal with a trailing zero', sent: '12.50', kept: '12.50' },
  { kind: 'exponent', sent: '1e3', kept: '1e3' },
  { kind: 'negative', sent: '-7.25', kept: '-7.25' },
  { kind: 'true', sent: 'true', kept: 'true' },
  { kind: 'false', sent: 'false', kept: 'false' },
  { kind: 'null', sent: 'null', kept: 'null' },
  {
    kind: 'nested object',
    sent: '{ "a" : [ 1 , 2.50 ],\n "b" : { "c" : "x y" } }',
    kept: '{"a":[1,2.50],"b":{"c":"x y"}}',
  },
  { kind: 'array', sent: '[ 1, "two", null ]', kept: '[1,"two",null]' },
  { kind: 'empty object', sent: '{ }', kept: '{}' },
];

/** A result document as the service writes it, rows given as raw JSON text. */
function documentOf(rows: string[]): Buffer {
  const head = {
    requestId: 'req-x',
    tenantId: 't',
    request: { requestId: 'req-x', reportId, timeZoneId: 'Europe/London', displayFields: [] },
    totalCount: rows.length,
  };
  return Buffer.from(
    `${JSON.stringify(head).slice(0, -1)},"data":[\n${rows.join(',\n')}\n],"summary":[],"status":1,"rowLimit":1000000}`,
  );
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Rows c00.. of MEMBERS (member `m`), a row with several members, a row with none. */
const ROWS = [
  ...MEMBERS.map(
    ({ sent }, i) =>
      `{"connId":"c${String(i).padStart(2, '0')}","start":"2026-03-10T09:00:00","m" : ${sent},"ans":1}`,
  ),
  '{"queue":"sales","connId":"c50","start":"2026-03-10T10:00:00","wait":12.50,"2024":true}',
  '{"connId":"c60","start":"2026-03-10T11:00:00","ring":1.50}',
];
const EXPECTED = [
  ...MEMBERS.map(({ kept }, i) => ({ conn_id: `c${String(i).padStart(2, '0')}`, extra: `{"m":${kept}}` })),
  { conn_id: 'c50', extra: '{"queue":"sales","wait":12.50,"2024":true}' },
  { conn_id: 'c60', extra: null },
];

const CSV_OPTIONS = `header = true, quote = '"', escape = '"', allow_quoted_nulls = false, hive_partitioning = true, all_varchar = true`;

describe('exportReportResult with members the schema does not know', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'extra-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function exportRows(rows: string[], options: { unknownMembers?: 'keep' | 'fail' } = {}) {
    const source = await parseReportResultStream(chunks(documentOf(rows), 97));
    return exportReportResult({ source, store, reportId, encodeWorker: false, ...options });
  }

  it.each(['parquet', 'csv'])(
    'keeps every member exactly as sent in extra when read back by DuckDB from %s',
    async (format) => {
      // Act
      await exportRows(ROWS);

      // Assess
      const glob = join(root, `calls/format=${format}/report_id=${reportId}/*/part-*`);
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)}, hive_partitioning = true)`
          : `read_csv(${sqlString(glob)}, ${CSV_OPTIONS})`;
      const rows = await duckdbQuery(`SELECT conn_id, extra::VARCHAR AS extra FROM ${from} ORDER BY conn_id`);
      expect(rows).toEqual(EXPECTED);
    },
  );

  it('annotates extra as JSON in Parquet and reads its members with ->> when DuckDB reads it', async () => {
    // Act
    await exportRows(ROWS);

    // Assess
    const file = join(root, `calls/format=parquet/report_id=${reportId}/dt=2026-03-10/part-00000.parquet`);
    const [schema] = await duckdbQuery(
      `SELECT type, converted_type, logical_type::VARCHAR AS logical FROM parquet_schema(${sqlString(file)}) WHERE name = 'extra'`,
    );
    expect(schema).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'JSON' });
    expect(schema?.logical).toBe('JsonType()');
    const rows = await duckdbQuery(
      `SELECT typeof(extra) AS type, extra->>'queue' AS queue, extra->>'wait' AS wait FROM read_parquet(${sqlString(file)}) WHERE conn_id = 'c50'`,
    );
    expect(rows).toEqual([{ type: 'JSON', queue: 'sales', wait: '12.5' }]);
  });

  it('fails with EXPORT_UNKNOWN_MEMBER naming the member and publishes nothing when unknownMembers is fail', async () => {
    // Act
    const run = exportRows(ROWS.slice(-2), { unknownMembers: 'fail' });

    // Assess
    await expect(run).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.unknownMember,
      message: expect.stringContaining('"queue"'),
    });
    expect(await readdir(root)).toEqual([]);
  });

  it.each(['parquet', 'csv'])(
    'reads a partition of schema 1 and one with extra together by name when the format is %s',
    async (format) => {
      // Prepare: a day written before `extra` existed. Its Parquet file is our file without
      // the columns written since (DuckDB COPY); its CSV is ours without the last two fields,
      // which is what the writer of schema 1 wrote (the same fields: `extra` and `provisional`
      // are the last columns).
      await exportRows(['{"connId":"old","start":"2026-03-09T09:00:00","ans":1}']);
      const oldDir = join(root, `calls/format=${format}/report_id=${reportId}/dt=2026-03-09`);
      const oldFile = join(oldDir, `part-00000.${format}`);
      if (format === 'parquet') {
        const v1 = join(root, 'v1.parquet');
        await duckdbQuery(
          `COPY (SELECT * EXCLUDE (extra, provisional) FROM read_parquet(${sqlString(oldFile)}, hive_partitioning = false)) TO ${sqlString(v1)} (FORMAT parquet)`,
        );
        await rm(oldFile);
        await writeFile(oldFile, await readFile(v1));
        await rm(v1);
      } else {
        const text = await readFile(oldFile, 'utf8');
        await writeFile(oldFile, text.replaceAll(/,(?:extra)?,(?:provisional|false)\r\n/g, '\r\n'));
      }
      await exportRows(ROWS.slice(-2));
      const glob = join(root, `calls/format=${format}/report_id=${reportId}/*/part-*`);

      // Act
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)}, hive_partitioning = true, union_by_name = true)`
          : `read_csv(${sqlString(glob)}, ${CSV_OPTIONS}, union_by_name = true)`;
      const rows = await duckdbQuery(
        `SELECT conn_id, CAST(dt AS VARCHAR) AS dt, ans::INTEGER AS ans, extra::VARCHAR AS extra FROM ${from} ORDER BY conn_id`,
      );
      const oldColumns = await duckdbQuery(
        `SELECT column_name FROM (DESCRIBE SELECT * FROM ${format === 'parquet' ? 'read_parquet' : 'read_csv'}(${sqlString(oldFile)}, hive_partitioning = false))`,
      );

      // Assess
      expect(oldColumns.map((c) => c.column_name)).toEqual(
        COLUMNS.filter((c) => c.name !== 'extra').map((c) => c.name),
      );
      expect(rows).toEqual([
        { conn_id: 'c50', dt: '2026-03-10', ans: null, extra: '{"queue":"sales","wait":12.50,"2024":true}' },
        { conn_id: 'c60', dt: '2026-03-10', ans: null, extra: null },
        { conn_id: 'old', dt: '2026-03-09', ans: 1, extra: null },
      ]);
    },
  );
});
