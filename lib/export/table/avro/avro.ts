import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { AvroError, ByteSink, ByteSource, utf8 } from './avro-bytes';
import { compileSchema } from './avro-schema';
import type { AvroSchema } from './avro-types';

/**
 * Avro object container files (Avro 1.11 specification), our own encoder and decoder: what
 * Iceberg manifests and manifest lists are. The encoder writes codec `null` only; the decoder
 * also reads `deflate` (Iceberg's Java writer compresses manifests by default, and Glue's table
 * optimizers rewrite manifests with it), multiple blocks and negatively counted array / map
 * blocks. It is strict: a wrong magic, a sync mismatch, truncated data, bytes left over in a
 * block, an unknown type or codec each throw an AvroError naming what is wrong.
 *
 * Schemas are plain JSON objects and are written to `avro.schema` as given, so the Iceberg
 * attributes (`field-id`, `element-id`, `logicalType: map`, ...) reach any reader. Values:
 * null, boolean, number (int, float, double), bigint (long; a safe-integer number is accepted
 * on encode), string (string, enum symbol), Uint8Array (bytes, fixed), arrays, Map (map; a
 * plain object is accepted on encode) and records as objects keyed by field name that inherit
 * nothing (emptyRecord).
 * A union's branch is chosen on encode by the value's kind (the first branch that accepts it).
 * Logical types pass through (a `date` is its int).
 *
 * Schemas are compiled once into closures. Decoding recurses only along the schema's nesting,
 * which is bounded (MAX_SCHEMA_DEPTH) and never recursive: a named type referring to itself is
 * refused, so a file's data cannot nest deeper than its schema.
 */

export { AVRO_ERROR_CODE, AvroError } from './avro-bytes';
export { type AvroCodec, emptyRecord } from './avro-codecs';
export { compileSchema, MAX_SCHEMA_DEPTH } from './avro-schema';
export type {
  AvroAnnotatedPrimitive,
  AvroArraySchema,
  AvroEnumSchema,
  AvroField,
  AvroFixedSchema,
  AvroMapSchema,
  AvroPrimitiveName,
  AvroRecordSchema,
  AvroSchema,
} from './avro-types';

/** A decoded container file: its schema, its metadata (UTF-8 text) and its records. */
export interface AvroFile {
  schema: AvroSchema;
  metadata: Map<string, string>;
  records: unknown[];
}

/** Options of `encodeAvroFile`. */
export interface AvroEncodeOptions {
  /** Extra file metadata (`avro.*` keys are ours). */
  metadata?: Record<string, string>;
  /** Encoded bytes after which a block is closed; default 64 KiB. */
  blockBytes?: number;
  /** The 16-byte sync marker; default random (a fixed one makes output reproducible in tests). */
  sync?: Uint8Array;
  /**
   * `null` (default: what our tables write) or `deflate` (what Iceberg's Java writer and Glue's
   * optimizers write; tests use it to stand for their manifests).
   */
  codec?: AvroCodecName;
}

/** Options of `decodeAvroFile`. */
export interface AvroDecodeOptions {
  /** Largest inflated size of one deflate block; default MAX_INFLATED_BLOCK_BYTES. */
  maxInflatedBlockBytes?: number;
}

export type AvroCodecName = 'null' | 'deflate';

/**
 * Largest inflated deflate block: Avro writers close blocks at tens of KiB (Java's default sync
 * interval is 64,000 bytes), so 64 MiB is generous; a block inflating beyond it is refused, not
 * allowed to take the Lambda's memory.
 */
export const MAX_INFLATED_BLOCK_BYTES = 64 * 1024 * 1024;

const MAGIC = [0x4f, 0x62, 0x6a, 0x01];
const SYNC_SIZE = 16;
const DEFAULT_BLOCK_BYTES = 64 * 1024;

/** Encodes records into an Avro object container file (codec `null` unless asked). */
export function encodeAvroFile(
  schema: AvroSchema,
  records: Iterable<unknown>,
  options: AvroEncodeOptions = {},
): Uint8Array {
  const codec = compileSchema(schema);
  const sync = options.sync ?? randomBytes(SYNC_SIZE);
  if (sync.length !== SYNC_SIZE)
    throw new AvroError(`An Avro sync marker is ${SYNC_SIZE} bytes, not ${sync.length}`);
  const blockBytes = options.blockBytes ?? DEFAULT_BLOCK_BYTES;
  const codecName = options.codec ?? 'null';

  const out = new ByteSink();
  out.raw(Uint8Array.from(MAGIC));
  const metadata: [string, string][] = [
    ...Object.entries(options.metadata ?? {}).filter(([k]) => !k.startsWith('avro.')),
    ['avro.schema', JSON.stringify(schema)],
    ['avro.codec', codecName],
  ];
  out.varint(metadata.length);
  for (const [key, value] of metadata) {
    out.lengthPrefixed(utf8.encode(key));
    out.lengthPrefixed(utf8.encode(value));
  }
  out.byte(0);
  out.raw(sync);

  const block = new ByteSink();
  let count = 0;
  const flush = (): void => {
    if (count === 0) return;
    const data = block.bytes.subarray(0, block.length);
    const stored = codecName === 'deflate' ? deflateRawSync(data) : data;
    out.varint(count);
    out.varint(stored.length);
    out.raw(stored);
    out.raw(sync);
    block.length = 0;
    count = 0;
  };
  for (const record of records) {
    codec.write(block, record);
    count++;
    if (block.length >= blockBytes) flush();
  }
  flush();
  return out.result();
}

/** Reads only the header: the schema and metadata of a container file. */
export function decodeAvroHeader(bytes: Uint8Array): { schema: AvroSchema; metadata: Map<string, string> } {
  const { schema, metadata } = readHeader(new ByteSource(bytes, 'file header'));
  return { schema, metadata };
}

function readHeader(src: ByteSource): {
  schema: AvroSchema;
  metadata: Map<string, string>;
  sync: Uint8Array;
} {
  src.need(MAGIC.length, 'magic');
  for (let i = 0; i < MAGIC.length; i++) {
    if (src.bytes[i] !== MAGIC[i])
      throw new AvroError('Not an Avro object container file: wrong magic (expected Obj\\x01)');
  }
  src.pos = MAGIC.length;
  const metadata = new Map<string, string>();
  for (let count = src.blockCount('metadata map'); count !== 0; count = src.blockCount('metadata map')) {
    for (let i = 0; i < count; i++) {
      const key = src.string('metadata key');
      metadata.set(key, src.string(`metadata ${key}`));
    }
  }
  const sync = src.take(SYNC_SIZE, 'sync marker');
  const schemaText = metadata.get('avro.schema');
  if (schemaText === undefined) throw new AvroError('Avro file header has no avro.schema');
  let schema: AvroSchema;
  try {
    schema = JSON.parse(schemaText) as AvroSchema;
  } catch (cause) {
    throw new AvroError('Avro file header: avro.schema is not JSON', { cause });
  }
  return { schema, metadata, sync };
}

/** Decodes a whole container file (codec `null` or `deflate`). */
export function decodeAvroFile(bytes: Uint8Array, options: AvroDecodeOptions = {}): AvroFile {
  const maxInflated = options.maxInflatedBlockBytes ?? MAX_INFLATED_BLOCK_BYTES;
  const src = new ByteSource(bytes, 'file');
  const { schema, metadata, sync } = readHeader(src);
  const codecName = metadata.get('avro.codec') ?? 'null';
  if (codecName !== 'null' && codecName !== 'deflate')
    throw new AvroError(`Unsupported Avro codec ${JSON.stringify(codecName)}`);
  const codec = compileSchema(schema);
  const records: unknown[] = [];
  let blockIndex = 0;
  while (src.pos < bytes.length) {
    const where = `block ${blockIndex}`;
    const count = src.smallLong(`${where} count`);
    const size = src.smallLong(`${where} size`);
    if (count < 0 || size < 0) throw new AvroError(`Avro file: ${where} has a negative count or size`);
    let data = src.take(size, `${where} data`);
    const marker = src.take(SYNC_SIZE, `${where} sync marker`);
    for (let i = 0; i < SYNC_SIZE; i++) {
      if (marker[i] !== sync[i])
        throw new AvroError(`Avro file: ${where} sync marker does not match the header's`);
    }
    if (codecName === 'deflate') {
      try {
        data = inflateRawSync(data, { maxOutputLength: maxInflated });
      } catch (cause) {
        const tooLarge = (cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
        throw new AvroError(
          tooLarge
            ? `Avro file: ${where} inflates to more than ${maxInflated} bytes`
            : `Avro file: ${where} is not valid deflate data`,
          { cause },
        );
      }
    }
    const blockSrc = new ByteSource(data, `file ${where}`);
    blockSrc.checkCount(count, 'record count');
    for (let i = 0; i < count; i++) records.push(codec.read(blockSrc));
    if (blockSrc.pos !== data.length) {
      throw new AvroError(
        `Avro file: ${where} has ${data.length - blockSrc.pos} bytes after its ${count} records`,
      );
    }
    blockIndex++;
  }
  return { schema, metadata, records };
}
