import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportConfigError } from '../../../../lib/export/errors';
import { epochDay, type IcebergFileSchema } from '../../../../lib/export/formats/iceberg-file';
import { ParquetFileEncoder } from '../../../../lib/export/formats/parquet-encoder';
import { CALLS_SCHEMA, SCHEMA_VERSION } from '../../../../lib/export/schema';
import type { ResultRow } from '../../../../lib/spec/types';
import { duckdbQuery, sqlString } from '../../../support/duckdb';
import { encodeFile } from './encode-file';

/** Field ids 1..n in column order, then `dt`, as a new table numbers them. */
function icebergFile(): IcebergFileSchema {
  const names = [...CALLS_SCHEMA.columns.map((c) => c.name), 'dt'];
  return {
    fieldIds: Object.fromEntries(names.map((n, i) => [n, i + 1])),
    schemaJson: JSON.stringify({ type: 'struct', 'schema-id': 0, fields: [] }),
  };
}

/** Rows of 2026-03-29 (London's spring-forward day) in two row groups; every 3rd without ring, one with extra. */
function rows(): ResultRow[][] {
  const row = (i: number): ResultRow => {
    const r: ResultRow = {
      connId: `c${i}`,
      start: `2026-03-29T${String(i).padStart(2, '0')}:30:15.${String(7 * i).padStart(3, '0')}`,
      userName: `user ${i % 2}`,
      ring: i / 2,
    };
    if (i % 3 === 0) delete r.ring;
    if (i === 4) (r as Record<string, unknown>).queue = { name: 'sales', wait: 12.5 };
    return r;
  };
  return [Array.from({ length: 10 }, (_, i) => row(i)), Array.from({ length: 5 }, (_, i) => row(10 + i))];
}

describe('ParquetFileEncoder with an Iceberg file schema', () => {
  let dir: string;
  let path: string;
  let file: ArrayBuffer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'iceberg-file-'));
    path = join(dir, 'data.parquet');
    const encoder = new ParquetFileEncoder({ iceberg: { file: icebergFile(), dt: '2026-03-29' } });
    file = encodeFile(rows(), encoder, 'Europe/London');
    await writeFile(path, new Uint8Array(file));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a field id on every column, timestamps in micros, extra as STRING and dt as a DATE last', async () => {
    // Act
    const schema = await duckdbQuery(
      `SELECT name, type, field_id, converted_type, logical_type, repetition_type FROM parquet_schema(${sqlString(path)})`,
    );

    // Assess
    const names = [...CALLS_SCHEMA.columns.map((c) => c.name), 'dt'];
    const columns = schema.slice(1);
    expect(columns.map((c) => c.name)).toEqual(names);
    expect(columns.map((c) => Number(c.field_id))).toEqual(names.map((_, i) => i + 1));
    const byName = new Map(columns.map((c) => [c.name, c]));
    expect(byName.get('start')).toMatchObject({ type: 'INT64', converted_type: 'TIMESTAMP_MICROS' });
    expect(String(byName.get('start')?.logical_type)).toMatch(/isAdjustedToUTC=0.*MICROS=MicroSeconds/);
    expect(byName.get('start_utc')).toMatchObject({ type: 'INT64', converted_type: 'TIMESTAMP_MICROS' });
    expect(String(byName.get('start_utc')?.logical_type)).toMatch(/isAdjustedToUTC=1.*MICROS=MicroSeconds/);
    expect(byName.get('extra')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
    expect(String(byName.get('extra')?.logical_type)).toMatch(/StringType/);
    expect(byName.get('dt')).toMatchObject({
      type: 'INT32',
      converted_type: 'DATE',
      repetition_type: 'REQUIRED',
    });
  });

  it('gives DuckDB the exact values: start in micros (ms x 1000), the partition day in dt', async () => {
    // Act
    const read = await duckdbQuery(
      `SELECT typeof(start) AS ts, typeof(start_utc) AS tz, typeof(dt) AS d, typeof(extra) AS x,
              epoch_us(start) AS start_us, epoch_us(start_utc) AS utc_us, dt::VARCHAR AS dt,
              conn_id, ring, extra
       FROM read_parquet(${sqlString(path)})`,
    );

    // Assess: 01:30 does not exist in London that day (02:30 BST = 01:30Z).
    expect(read).toHaveLength(15);
    expect(read[0]).toMatchObject({
      ts: 'TIMESTAMP',
      tz: 'TIMESTAMP WITH TIME ZONE',
      d: 'DATE',
      x: 'VARCHAR',
    });
    const wall = (i: number) =>
      Date.parse(`2026-03-29T${String(i).padStart(2, '0')}:30:15.${String(7 * i).padStart(3, '0')}Z`);
    expect(read.map((r) => Number(r.start_us))).toEqual(read.map((_, i) => wall(i) * 1000));
    expect(Number(read[0]?.utc_us)).toBe(wall(0) * 1000);
    expect(Number(read[14]?.utc_us)).toBe((wall(14) - 3_600_000) * 1000);
    expect(new Set(read.map((r) => r.dt))).toEqual(new Set(['2026-03-29']));
    expect(read.map((r) => r.ring)).toEqual(read.map((_, i) => (i % 3 === 0 ? null : i / 2)));
    expect(read[4]?.extra).toBe('{"queue":{"name":"sales","wait":12.5}}');
  });

  it('gives hyparquet the rows, min/max statistics in micros and the table schema in the footer', async () => {
    // Act
    const metadata = parquetMetadata(file);
    const read = await parquetReadObjects({ file, columns: ['conn_id', 'dt'], utf8: true });

    // Assess
    expect(metadata.key_value_metadata).toEqual([
      { key: 'report_export.schema_version', value: String(SCHEMA_VERSION) },
      { key: 'iceberg.schema', value: icebergFile().schemaJson },
    ]);
    expect(read.map((r) => r.conn_id)).toEqual(Array.from({ length: 15 }, (_, i) => `c${i}`));
    const day = epochDay('2026-03-29');
    expect(day).toBe(Date.UTC(2026, 2, 29) / 86_400_000);
    const stats = (group: number, column: string) =>
      metadata.row_groups[group]?.columns.find((c) => c.meta_data?.path_in_schema[0] === column)?.meta_data;
    const dt = stats(1, 'dt');
    expect([dt?.num_values, dt?.statistics?.null_count]).toEqual([5n, 0n]);
    expect([dt?.statistics?.min_value, dt?.statistics?.max_value]).toEqual([
      new Date(day * 86_400_000),
      new Date(day * 86_400_000),
    ]);
    expect(read.every((r) => Number((r.dt as Date).getTime()) === day * 86_400_000)).toBe(true);
    const start = stats(1, 'start')?.statistics;
    expect([start?.min_value, start?.max_value].map((d) => (d as Date).getTime())).toEqual([
      Date.parse('2026-03-29T10:30:15.070Z'),
      Date.parse('2026-03-29T14:30:15.098Z'),
    ]);
  });

  it('writes starts whose micros pass 2^53 exactly, and a dt chunk of a few bytes', async () => {
    // Prepare: 2^53 us is 2255-06-05; the first start's micros are no double.
    const starts = ['9999-12-31T23:59:59.999', '1500-07-01T12:00:00.999', '2026-01-01T00:00:00'];
    const encoder = new ParquetFileEncoder({ iceberg: { file: icebergFile(), dt: '2400-01-01' } });
    const bytes = encodeFile([starts.map((start, i) => ({ connId: `c${i}`, start }))], encoder);
    const path2 = join(dir, 'far.parquet');
    await writeFile(path2, new Uint8Array(bytes));

    // Act
    const read = await duckdbQuery(
      `SELECT epoch_us(start) AS us, dt::VARCHAR AS day FROM read_parquet(${sqlString(path2)})`,
    );

    // Assess
    expect(read.map((r) => r.us)).toEqual(starts.map((s) => BigInt(Date.parse(`${s}Z`)) * 1000n));
    expect(read.map((r) => r.day)).toEqual(['2400-01-01', '2400-01-01', '2400-01-01']);
    const dt = parquetMetadata(bytes).row_groups[0]?.columns.at(-1)?.meta_data;
    expect(dt?.path_in_schema).toEqual(['dt']);
    expect(Number(dt?.total_compressed_size)).toBeLessThan(64);
  });

  it('refuses a table schema without the field id of one of the columns, naming it', () => {
    // Prepare
    const { fieldIds, schemaJson } = icebergFile();
    const { doc_id: _, ...without } = fieldIds;

    // Act
    const act = () =>
      new ParquetFileEncoder({ iceberg: { file: { fieldIds: without, schemaJson }, dt: '2026-03-29' } });

    // Assess
    expect(act).toThrow(ExportConfigError);
    expect(act).toThrow(/doc_id/);
  });
});
