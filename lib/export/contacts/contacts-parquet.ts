import { type FileMetaData, parquetMetadata, type SchemaElement } from 'hyparquet';
import { ExportConfigError } from '../errors';
import type { IcebergFileSchema } from '../formats/iceberg-file';
import type { ParquetCodec } from '../formats/parquet-codecs';
import { ParquetFileEncoder } from '../formats/parquet-encoder';
import { PARQUET_PRIMITIVES } from '../formats/parquet-primitives';
import { ArrayPool } from '../rows/array-pool';
import { ColumnBuffer, RunDictionaries } from '../rows/column-buffer';
import type { ContactColumns } from './columns';

/** Rows per row group: a directory's partition is small (thousands of versions), one group mostly. */
const ROWS_PER_GROUP = 65_536;
/** Footer key of the table's schema JSON in an Iceberg data file (as formats/iceberg-file.ts writes it). */
const ICEBERG_SCHEMA_KEY = 'iceberg.schema';
/** Iceberg's timestamps are micros; the rows hold epoch ms. */
const MICROS_PER_MILLI = 1_000;

/** What a contacts table's data file carries for Iceberg: the table's field ids and schema. */
export type ContactsFileSchema = Pick<IcebergFileSchema, 'fieldIds' | 'schemaJson'>;

/**
 * One Parquet file of a contacts table's rows, written by the export's own encoder (the one
 * the report datasets use: v1 pages, RLE levels, TIMESTAMP logical types) from the table's
 * column definitions. A partition of a directory is small, so the file is built in memory.
 * Booleans are BOOLEAN. Timestamps are epoch milliseconds in the rows and TIMESTAMP(MILLIS,
 * UTC) in the file; with `iceberg` (the table's `fileSchema`) the file is a data file of the
 * table: every column carries its field id, timestamps are TIMESTAMP(MICROS, UTC) as
 * Iceberg's spec stores `timestamptz`, `extra` a plain STRING, and the footer holds the
 * table's schema JSON (`iceberg.schema`).
 */
export function encodeContactsParquet<Row>(
  table: ContactColumns<Row>,
  rows: readonly Row[],
  options: { codec?: ParquetCodec; iceberg?: ContactsFileSchema } = {},
): Uint8Array {
  const encoder = new ParquetFileEncoder({
    schema: table,
    ...(options.codec ? { codec: options.codec } : {}),
  });
  // The encoder's Iceberg mode is the report datasets' (a constant `dt` last): a contacts
  // file is written plain, with micros, and its footer made the table's below.
  const scale = options.iceberg === undefined ? 1 : MICROS_PER_MILLI;
  const dictionaries = new RunDictionaries(table);
  const pool = new ArrayPool();
  const modes = table.columns.map((c) => (c.kind === 'string' ? ('text' as const) : undefined));
  const parts: Uint8Array[] = [encoder.header()];
  for (let start = 0; start < rows.length; start += ROWS_PER_GROUP) {
    const buffer = new ColumnBuffer(dictionaries, { modes, pool });
    for (const row of rows.slice(start, start + ROWS_PER_GROUP)) {
      buffer.reserveRow();
      table.columns.forEach((column, i) => {
        const value = column.value(row);
        if (column.kind === 'string') {
          buffer.setString(i, value === null ? null : String(value));
        } else if (typeof value === 'boolean') {
          buffer.setNumber(i, value ? 1 : 0);
        } else if (typeof value === 'number' && column.kind === 'utcTimestamp') {
          buffer.setNumber(i, value * scale);
        } else {
          buffer.setNumber(i, typeof value === 'number' ? value : null);
        }
      });
      buffer.rows++;
    }
    // The encoder's chunks are pooled and reused by its next row group: copy them out first.
    const chunks = encoder.rowGroup(buffer);
    for (const chunk of chunks) parts.push(new Uint8Array(chunk));
    encoder.recycle(chunks);
    buffer.release();
  }
  parts.push(encoder.footer());
  const file = Buffer.concat(parts);
  return options.iceberg === undefined ? file : withIcebergFooter(file, options.iceberg);
}

/** Parquet's trailer: the footer's length (4 bytes LE) and the magic `PAR1`. */
const TRAILER = 8;

/**
 * The file with its footer rewritten for the table: the pages stay where they are (every
 * offset in the footer is from the file's start), the schema elements get their field ids
 * and the MICROS unit (the values were written in micros), the footer the schema JSON.
 */
function withIcebergFooter(file: Buffer, iceberg: ContactsFileSchema): Uint8Array {
  const length = file.readUInt32LE(file.length - TRAILER);
  const footerStart = file.length - TRAILER - length;
  const metadata = parquetMetadata(new Uint8Array(file).buffer);
  const schema = metadata.schema.map((e, i) => (i === 0 ? e : icebergElement(e, iceberg)));
  const timestamps = new Set(
    metadata.schema.filter((e) => e.logical_type?.type === 'TIMESTAMP').map((e) => e.name),
  );
  const rewritten: FileMetaData = {
    ...metadata,
    schema,
    row_groups: metadata.row_groups.map((g) => ({
      ...g,
      columns: g.columns.map((c) => {
        const meta = c.meta_data;
        if (meta?.statistics === undefined || !timestamps.has(meta.path_in_schema[0] ?? '')) return c;
        // hyparquet read the micros as millis (a Date of that many ms): back to the raw value.
        const raw = (v: unknown) => (v instanceof Date ? BigInt(v.getTime()) : v);
        const s = meta.statistics;
        const statistics = {
          ...s,
          ...(s.min_value === undefined ? {} : { min_value: raw(s.min_value) }),
          ...(s.max_value === undefined ? {} : { max_value: raw(s.max_value) }),
          ...(s.min === undefined ? {} : { min: raw(s.min) }),
          ...(s.max === undefined ? {} : { max: raw(s.max) }),
        } as typeof s;
        return { ...c, meta_data: { ...meta, statistics } };
      }),
    })),
    key_value_metadata: [
      ...(metadata.key_value_metadata ?? []).filter((kv) => kv.key !== ICEBERG_SCHEMA_KEY),
      { key: ICEBERG_SCHEMA_KEY, value: iceberg.schemaJson },
    ],
  };
  delete (rewritten as Partial<FileMetaData>).metadata_length;
  const writer = new PARQUET_PRIMITIVES.ByteWriter();
  PARQUET_PRIMITIVES.writeMetadata(writer, rewritten);
  writer.appendUint32(0x31524150);
  return Buffer.concat([file.subarray(0, footerStart), new Uint8Array(writer.getBytes())]);
}

function icebergElement(e: SchemaElement, iceberg: ContactsFileSchema): SchemaElement {
  const id = Object.hasOwn(iceberg.fieldIds, e.name) ? iceberg.fieldIds[e.name] : undefined;
  if (!Number.isInteger(id)) {
    throw new ExportConfigError(`The contacts table's schema has no field id for column ${e.name}`);
  }
  const field_id = id as number;
  const logical = e.logical_type;
  if (logical?.type === 'TIMESTAMP') {
    return {
      ...e,
      converted_type: 'TIMESTAMP_MICROS',
      logical_type: { ...logical, unit: 'MICROS' },
      field_id,
    };
  }
  if (logical?.type === 'JSON')
    return { ...e, converted_type: 'UTF8', logical_type: { type: 'STRING' }, field_id };
  return { ...e, field_id };
}
