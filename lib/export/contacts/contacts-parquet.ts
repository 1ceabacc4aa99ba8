import type { ParquetCodec } from '../formats/parquet-codecs';
import { ParquetFileEncoder } from '../formats/parquet-encoder';
import { ArrayPool } from '../rows/array-pool';
import { ColumnBuffer, RunDictionaries } from '../rows/column-buffer';
import type { ContactColumns } from './columns';

/** Rows per row group: a directory's partition is small (thousands of versions), one group mostly. */
const ROWS_PER_GROUP = 65_536;

/**
 * One Parquet file of a contacts table's rows, written by the export's own encoder (the one
 * the report datasets use: v1 pages, RLE levels, TIMESTAMP logical types) from the table's
 * column definitions. A partition of a directory is small, so the file is built in memory.
 * Timestamps are epoch milliseconds in the rows and TIMESTAMP(MILLIS, UTC) in the file;
 * booleans are BOOLEAN.
 */
export function encodeContactsParquet<Row>(
  table: ContactColumns<Row>,
  rows: readonly Row[],
  options: { codec?: ParquetCodec } = {},
): Uint8Array {
  const encoder = new ParquetFileEncoder({
    schema: table,
    ...(options.codec ? { codec: options.codec } : {}),
  });
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
  return Buffer.concat(parts);
}
