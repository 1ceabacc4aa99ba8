/**
 * Contestant "parquetjs-lite" (the library the original design named): JSON.parse of the
 * whole document, then appendRow per row into one Parquet file (SNAPPY). Parquet only.
 * Usage: tsx bench/export-parquetjs-lite.ts --file DOC --out DIR
 * Last stdout line: {"contestant":"parquetjs-lite","rows":..,"seconds":..,"rows_per_s":..,"peak_rss_mb":..}
 */
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { printContestantResult } from './export-result';

interface ParquetWriterLike {
  appendRow(row: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}
interface ParquetModule {
  ParquetSchema: new (fields: Record<string, unknown>) => unknown;
  ParquetWriter: { openFile(schema: unknown, path: string): Promise<ParquetWriterLike> };
}

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

// parquetjs-lite ships CommonJS without types.
const parquet = createRequire(import.meta.url)('parquetjs-lite') as ParquetModule;
const out = arg('out');
await mkdir(out, { recursive: true });
const started = performance.now();
const doc = JSON.parse(await readFile(arg('file'), 'utf8')) as { data: Record<string, unknown>[] };
const text = { type: 'UTF8', optional: true, compression: 'SNAPPY' };
const int = { type: 'INT32', optional: true, compression: 'SNAPPY' };
const dbl = { type: 'DOUBLE', optional: true, compression: 'SNAPPY' };
const schema = new parquet.ParquetSchema({
  connId: text,
  start: { type: 'TIMESTAMP_MILLIS', optional: true, compression: 'SNAPPY' },
  userName: text,
  userNum: text,
  cli: text,
  cliName: text,
  hgNum: text,
  hgName: text,
  callType: int,
  callDir: int,
  ans: int,
  ref: int,
  lost: int,
  ring: dbl,
  duration: dbl,
  calledUserNum: text,
  calledUserName: text,
  callUserName: text,
  callUserNum: text,
  docId: text,
});
const writer = await parquet.ParquetWriter.openFile(schema, join(out, 'calls.parquet'));
let rows = 0;
for (const row of doc.data) {
  await writer.appendRow({ ...row, start: new Date(`${String(row.start)}Z`) });
  rows++;
}
await writer.close();
printContestantResult('parquetjs-lite', rows, started);
