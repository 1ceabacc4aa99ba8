import { ZoneConverter } from '../../../../lib/calendar';
import { ParquetFileEncoder } from '../../../../lib/export/formats/parquet-encoder';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import type { ResultRow } from '../../../../lib/spec/types';

/** A whole Parquet file of the given row groups, as the part files are written (rows read in `zone`). */
export function encodeFile(
  groups: ResultRow[][],
  encoder = new ParquetFileEncoder(),
  zone = 'UTC',
): ArrayBuffer {
  const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter(zone) });
  const parts: Uint8Array[] = [encoder.header()];
  for (const rows of groups) {
    const buffer = mapper.newBuffer();
    for (const row of rows) mapper.append(row, buffer);
    // Copied: the chunks go back to the pool for the next row group.
    for (const chunk of encoder.rowGroup(buffer)) parts.push(Uint8Array.from(chunk));
    buffer.release();
  }
  parts.push(encoder.footer());
  const bytes = Buffer.concat(parts);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}
