import { ByteWriter } from 'hyparquet-writer';
import { avroMetadata, avroRead, avroWrite } from 'icebird';

/**
 * icebird's own Avro decoder and encoder (it shares no code with ours): the independent side
 * of the Avro tests.
 */
export function icebirdRead(bytes: Uint8Array): {
  metadata: Record<string, unknown>;
  records: Record<string, unknown>[];
} {
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const header = avroMetadata(reader);
  return { metadata: header.metadata, records: avroRead({ reader, ...header }) };
}

export function icebirdWrite(
  schema: Parameters<typeof avroWrite>[0]['schema'],
  records: Record<string, unknown>[],
  blockSize?: number,
): Uint8Array {
  const writer = new ByteWriter();
  avroWrite({ writer, schema, records, ...(blockSize === undefined ? {} : { blockSize }) });
  return new Uint8Array(writer.getBuffer());
}
