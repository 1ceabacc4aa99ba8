/**
 * The Parquet library choice, measured: the same rows (the first --limit rows of a
 * document, default 200,000), already parsed, encoded by
 * - ours: ParquetFileEncoder (hyparquet-writer 0.17.0 primitives, v1 pages, SNAPPY);
 * - hyparquet-writer 0.17.0 as published (parquetWrite; it writes DATA_PAGE_V2 only);
 * - parquetjs-lite 0.8.7 (appendRow, SNAPPY).
 * Usage: tsx bench/export-parquet-libs.ts --file DOC --out DIR [--limit N]
 * Last stdout line: {"bench":"parquet-libs","rows":..,"ours_rows_per_s":..,"hyparquet_writer_rows_per_s":..,"parquetjs_lite_rows_per_s":..}
 */
import { createReadStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import { parseReportResultStream } from '../lib/api/index';
import { ZoneConverter } from '../lib/calendar';
import { ParquetFileEncoder } from '../lib/export/formats/parquet-encoder';
import { RowMapper } from '../lib/export/rows/row-mapper';
import { COLUMNS } from '../lib/export/schema';
import type { ResultRow } from '../lib/spec/types';

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const limit = Number(arg('limit', '200000'));
const out = arg('out');
await mkdir(out, { recursive: true });
const source = await parseReportResultStream(createReadStream(arg('file'), { highWaterMark: 1 << 20 }));
const rows: ResultRow[] = [];
for await (const batch of source.batches) {
  for (const row of batch) if (rows.length < limit) rows.push(row);
  if (rows.length >= limit) {
    source.cancel('enough rows');
    break;
  }
}

const rate = (n: number, started: number) => Math.round(n / ((performance.now() - started) / 1000));

// ours: map + encode in row groups of 32,768 rows.
let started = performance.now();
{
  const mapper = new RowMapper({
    reportId: 'r',
    requestId: 'q',
    zone: new ZoneConverter(source.head.request.timeZoneId),
  });
  const encoder = new ParquetFileEncoder();
  const chunks: Uint8Array[] = [encoder.header()];
  let buffer = mapper.newBuffer();
  for (const row of rows) {
    mapper.append(row, buffer);
    if (buffer.rows === 32_768) {
      chunks.push(...encoder.rowGroup(buffer));
      buffer = mapper.newBuffer();
    }
  }
  chunks.push(...encoder.rowGroup(buffer), encoder.footer());
  await writeFile(join(out, 'ours.parquet'), chunks);
}
const ours = rate(rows.length, started);

// hyparquet-writer as published: columns transposed from the same rows.
started = performance.now();
{
  const members = COLUMNS.flatMap((c) => (c.source.from === 'member' ? [c] : []));
  const type = {
    string: 'STRING',
    int32: 'INT32',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    localTimestamp: 'TIMESTAMP',
    utcTimestamp: 'TIMESTAMP',
  } as const;
  const columnData = members.map((c) => {
    const name = c.name as keyof ResultRow;
    const data = rows.map((r) => {
      const v = r[name];
      if (v === undefined) return null;
      return c.kind === 'localTimestamp' ? new Date(`${String(v)}Z`) : v;
    });
    return { name: c.name, data, type: type[c.kind] };
  });
  const writer = new ByteWriter();
  parquetWrite({ writer, columnData, rowGroupSize: 32_768 });
  await writeFile(join(out, 'hyparquet-writer.parquet'), writer.getBytes());
}
const hyparquet = rate(rows.length, started);

// parquetjs-lite: appendRow per row.
interface ParquetModule {
  ParquetSchema: new (fields: Record<string, unknown>) => unknown;
  ParquetWriter: {
    openFile(
      schema: unknown,
      path: string,
    ): Promise<{ appendRow(row: object): Promise<void>; close(): Promise<void> }>;
  };
}
const parquet = createRequire(import.meta.url)('parquetjs-lite') as ParquetModule;
started = performance.now();
{
  const kinds = {
    string: 'UTF8',
    int32: 'INT32',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    localTimestamp: 'TIMESTAMP_MILLIS',
    utcTimestamp: 'TIMESTAMP_MILLIS',
  };
  const fields = Object.fromEntries(
    COLUMNS.filter((c) => c.source.from === 'member').map((c) => [
      c.name,
      { type: kinds[c.kind], optional: true, compression: 'SNAPPY' },
    ]),
  );
  const writer = await parquet.ParquetWriter.openFile(
    new parquet.ParquetSchema(fields),
    join(out, 'parquetjs-lite.parquet'),
  );
  for (const row of rows) await writer.appendRow({ ...row, start: new Date(`${String(row.start)}Z`) });
  await writer.close();
}
const parquetjs = rate(rows.length, started);

process.stdout.write(
  `${JSON.stringify({
    bench: 'parquet-libs',
    rows: rows.length,
    ours_rows_per_s: ours,
    hyparquet_writer_rows_per_s: hyparquet,
    parquetjs_lite_rows_per_s: parquetjs,
  })}\n`,
);
