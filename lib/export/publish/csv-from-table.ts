import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { type ParquetParsers, parquetMetadata, parquetReadObjects, type SchemaElement } from 'hyparquet';
import { type ObjectStore, readObject } from '../../stores/object-store';
import { CsvFileEncoder } from '../formats/csv-encoder';
import { zlib } from '../formats/zstd';
import { ArrayPool } from '../rows/array-pool';
import { ColumnBuffer, RunDictionaries } from '../rows/column-buffer';
import {
  type Dataset,
  PARTITION_COLUMN,
  type PromotedColumn,
  type PromotedType,
  type TableSchema,
  TENANT_COLUMN,
  tableSchema,
} from '../schema';
import type { LiveFile } from '../table';
import type { CallTotals, SpilledFile } from '../types';

/**
 * A partition's CSV written again from its rows in the table (a rollback restores a tenant's
 * Parquet files; its CSV must say the same): the rows of the partition's data files, read
 * with hyparquet, go through the export's own CSV encoder (CsvFileEncoder over a
 * ColumnBuffer), so the bytes are those the export writes for the same rows. Columns are
 * matched by Iceberg field id to the table's current names (a file written before a rename
 * has the old names), and a column of the files that the dataset does not define is a
 * promoted one, typed from its Parquet type.
 */

/** Rows read from a data file at once (a partition of 1,000,000 rows is read in steps). */
const READ_ROWS = 100_000;

/** Values as the buffers hold them: timestamps as epoch ms, JSON as its text. */
const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms) => Number(ms),
  timestampFromMicroseconds: (micros) => Number(micros) / 1000,
  timestampFromNanoseconds: (nanos) => Number(nanos) / 1_000_000,
  jsonFromBytes: (bytes) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8')),
};

/** The CSV file of a partition, and a summary partition's call totals. */
export interface RestoredCsv {
  file: SpilledFile;
  schema: TableSchema;
  callTotals: CallTotals | undefined;
}

/**
 * Writes the CSV of `files` (one partition's data files) to `path`: one part (`part`), the
 * header first, gzipped when `gzip`. `fieldNames` are the table's current names by field id.
 */
export async function writeCsvFromDataFiles(
  store: ObjectStore,
  dataset: Dataset,
  files: readonly LiveFile[],
  fieldNames: ReadonlyMap<number, string>,
  out: { path: string; part: number; gzip: boolean },
): Promise<RestoredCsv> {
  const read = await Promise.all(
    [...files]
      .sort((a, b) => a.key.localeCompare(b.key))
      .map(async (f) => {
        const bytes = await readObject(store, f.key);
        const buffer = bytes.buffer.slice(
          bytes.byteOffset,
          bytes.byteOffset + bytes.byteLength,
        ) as ArrayBuffer;
        return { buffer, metadata: parquetMetadata(buffer) };
      }),
  );
  const schema = schemaOf(dataset, read[0]?.metadata.schema ?? [], fieldNames);
  const encoder = new CsvFileEncoder({ gzip: out.gzip, schema });
  const handle = await open(out.path, 'w');
  const hash = createHash('sha256');
  let bytes = 0;
  const write = async (chunks: readonly Uint8Array[]) => {
    for (const c of chunks) {
      hash.update(c);
      bytes += c.length;
    }
    if (chunks.length > 0) await handle.writev([...chunks]);
  };
  const totals = { ans: 0, ref: 0, lost: 0 };
  const pool = new ArrayPool();
  const dictionaries = new RunDictionaries(schema);
  const zstd = zlib.zstdDecompress;
  try {
    await write([encoder.header()]);
    for (const { buffer, metadata } of read) {
      const names = fileNames(metadata.schema, fieldNames);
      const total = Number(metadata.num_rows);
      for (let rowStart = 0; rowStart < total; rowStart += READ_ROWS) {
        const rows = await parquetReadObjects({
          file: buffer,
          metadata,
          rowStart,
          rowEnd: Math.min(total, rowStart + READ_ROWS),
          parsers: PARSERS,
          ...(zstd === undefined ? {} : { compressors: { ZSTD: (input: Uint8Array) => zstd(input) } }),
        });
        const columnBuffer = new ColumnBuffer(dictionaries, {
          modes: schema.columns.map(() => 'text'),
          pool,
        });
        for (const row of rows) {
          columnBuffer.reserveRow();
          schema.columns.forEach((c, i) => {
            const v = row[names.get(c.name) ?? c.name];
            if (c.kind === 'string') columnBuffer.setString(i, v == null ? null : String(v));
            else columnBuffer.setNumber(i, numberOf(v));
          });
          columnBuffer.rows++;
          if (dataset === 'summaries') {
            for (const k of ['ans', 'ref', 'lost'] as const) {
              const n = row[names.get(k) ?? k];
              if (typeof n === 'number') totals[k] += n;
            }
          }
        }
        const chunks = encoder.rowGroup(columnBuffer);
        await write(chunks);
        encoder.recycle(chunks);
        columnBuffer.release();
      }
    }
  } finally {
    await handle.close();
  }
  return {
    file: {
      format: 'csv',
      part: out.part,
      path: out.path,
      rows: encoder.rows,
      bytes,
      sha256: hash.digest('hex'),
    },
    schema,
    callTotals: dataset === 'summaries' ? totals : undefined,
  };
}

/** A value as a number column holds it: booleans 1/0, timestamps epoch ms, null when absent. */
function numberOf(v: unknown): number | null {
  if (v == null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.getTime();
  return Number(v);
}

/** A file's column names by the table's current name (matched by field id; by name without one). */
function fileNames(
  elements: readonly SchemaElement[],
  fieldNames: ReadonlyMap<number, string>,
): Map<string, string> {
  const names = new Map<string, string>();
  for (const e of elements.slice(1)) {
    const current = e.field_id === undefined ? undefined : fieldNames.get(e.field_id);
    names.set(current ?? e.name, e.name);
  }
  return names;
}

/** The promoted type of a Parquet column (the inverse of the schema's mapping). */
function promotedType(e: SchemaElement): PromotedType {
  if (e.type === 'INT32') return 'int';
  if (e.type === 'DOUBLE') return 'double';
  if (e.type === 'BOOLEAN') return 'boolean';
  if (e.type === 'INT64') return 'timestamp-local';
  return 'string';
}

/** The dataset's columns, and as promoted columns those of the file the dataset does not define. */
function schemaOf(
  dataset: Dataset,
  elements: readonly SchemaElement[],
  fieldNames: ReadonlyMap<number, string>,
): TableSchema {
  const base = new Set(tableSchema({ dataset }).columns.map((c) => c.name));
  const promoted: PromotedColumn[] = [];
  for (const e of elements.slice(1)) {
    const name = (e.field_id === undefined ? undefined : fieldNames.get(e.field_id)) ?? e.name;
    if (base.has(name) || name === TENANT_COLUMN || name === PARTITION_COLUMN) continue;
    promoted.push({ name, type: promotedType(e) });
  }
  return tableSchema({ dataset, promoted });
}
