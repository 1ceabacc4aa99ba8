import { parseReportResultStream, type ReportResultMetadata } from '../../../lib/api';
import type { ResultRow } from '../../../lib/spec/types';

/**
 * A result document around `data` written as is (raw JSON text, not re-serialized), with
 * `displayFields` named in its request and `tail` (members after `data`) as given.
 */
export function resultDocument(
  data: string,
  totalCount: number,
  displayFields: readonly string[] = [],
  tail = '"summary":[],"status":1',
): Buffer {
  const fields = JSON.stringify(displayFields.map((f) => ({ fieldName: f, mandatory: false })));
  return Buffer.from(
    `{"requestId":"r1","request":{"requestId":"r1","displayFields":${fields}},"totalCount":${totalCount},` +
      `"data":${data},${tail}}`,
  );
}

export async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Every row and the metadata of a document fed in chunks of `size` bytes. */
export async function readResult(
  bytes: Uint8Array,
  size = 1 << 16,
): Promise<{ rows: ResultRow[]; meta: ReportResultMetadata }> {
  const stream = await parseReportResultStream(chunks(bytes, size));
  const rows: ResultRow[] = [];
  for await (const row of stream.rows) rows.push(row);
  return { rows, meta: await stream.done() };
}
