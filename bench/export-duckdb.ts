/**
 * Contestant "duckdb": @duckdb/node-api, 2 threads, read_json of the whole document and
 * COPY to Parquet and CSV. Usage: tsx bench/export-duckdb.ts --file DOC --out DIR
 * Last stdout line: {"contestant":"duckdb","rows":..,"seconds":..,"rows_per_s":..,"peak_rss_mb":..}
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { printContestantResult } from './export-result';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const file = arg('file');
const out = arg('out');
await mkdir(out, { recursive: true });
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
const started = performance.now();
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const connection = await instance.connect();
// The document is one JSON object: DuckDB must read it whole (maximum_object_size).
await connection.run(
  `CREATE TABLE calls AS SELECT unnest(data, recursive := true)
   FROM read_json(${quote(file)}, format = 'auto', maximum_object_size = 2147483647)`,
);
const count = await connection.runAndReadAll('SELECT count(*)::BIGINT AS n FROM calls');
const rows = Number(count.getRowObjectsJS()[0]?.n ?? 0);
await connection.run(
  `COPY calls TO ${quote(join(out, 'calls.parquet'))} (FORMAT parquet, COMPRESSION snappy)`,
);
await connection.run(`COPY calls TO ${quote(join(out, 'calls.csv'))} (FORMAT csv, HEADER true)`);
connection.closeSync();
instance.closeSync();
printContestantResult('duckdb', rows, started);
