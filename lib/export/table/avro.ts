import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';

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
 * plain object is accepted on encode) and records as null-prototype objects keyed by field name.
 * A union's branch is chosen on encode by the value's kind (the first branch that accepts it).
 * Logical types pass through (a `date` is its int).
 *
 * Schemas are compiled once into closures. Decoding recurses only along the schema's nesting,
 * which is bounded (MAX_SCHEMA_DEPTH) and never recursive: a named type referring to itself is
 * refused, so a file's data cannot nest deeper than its schema.
 */

/** Stable code of every Avro format failure. */
export const AVRO_ERROR_CODE = 'AVRO_FORMAT_INVALID';

/** A file or value does not match the Avro format or the schema; the message names what. */
export class AvroError extends Error {
  readonly code = AVRO_ERROR_CODE;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AvroError';
  }
}

export type AvroPrimitiveName = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';

export interface AvroField {
  name: string;
  type: AvroSchema;
  default?: unknown;
  doc?: string;
  'field-id'?: number;
}

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  fields: AvroField[];
  doc?: string;
}

export interface AvroArraySchema {
  type: 'array';
  items: AvroSchema;
  'element-id'?: number;
  logicalType?: string;
}

export interface AvroMapSchema {
  type: 'map';
  values: AvroSchema;
  'key-id'?: number;
  'value-id'?: number;
}

export interface AvroFixedSchema {
  type: 'fixed';
  name: string;
  namespace?: string;
  size: number;
}

export interface AvroEnumSchema {
  type: 'enum';
  name: string;
  namespace?: string;
  symbols: string[];
}

/** A primitive in object form, e.g. `{ type: 'int', logicalType: 'date' }`. */
export interface AvroAnnotatedPrimitive {
  type: AvroPrimitiveName;
  logicalType?: string;
}

export type AvroSchema =
  | AvroPrimitiveName
  | string
  | AvroAnnotatedPrimitive
  | AvroRecordSchema
  | AvroArraySchema
  | AvroMapSchema
  | AvroFixedSchema
  | AvroEnumSchema
  | AvroSchema[];

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
}

/** Named types nest no deeper than this; our schemas use 5 levels. */
export const MAX_SCHEMA_DEPTH = 32;

const MAGIC = [0x4f, 0x62, 0x6a, 0x01];
const SYNC_SIZE = 16;
const DEFAULT_BLOCK_BYTES = 64 * 1024;
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
/** Longs below this in magnitude zigzag-encode exactly in a double (2^53); larger ones go through bigint. */
const NUMBER_PATH_LIMIT = 2 ** 52;

/**
 * The prototype of decoded records: an empty frozen object without a prototype, so a field
 * named `__proto__` or `toString` is an own property like any other and nothing is inherited,
 * while records keep V8's fast properties (`Object.create(null)` objects are dictionaries,
 * several times slower to build for 10,000-entry manifests).
 */
const RECORD_BASE: object = Object.freeze(Object.create(null));

/** A new empty record object as the decoder builds them (no Object.prototype in its chain). */
export function emptyRecord(): Record<string, unknown> {
  return Object.create(RECORD_BASE);
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** One growing buffer. */
class ByteSink {
  bytes = new Uint8Array(1024);
  view = new DataView(this.bytes.buffer);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.length++] = b;
  }

  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  /** Zigzag varint of a safe integer. */
  varint(v: number): void {
    let n = v >= 0 ? v * 2 : -v * 2 - 1;
    this.reserve(10);
    while (n >= 0x80) {
      this.bytes[this.length++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.bytes[this.length++] = n;
  }

  bigVarint(v: bigint): void {
    let n = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    this.reserve(10);
    while (n >= 0x80n) {
      this.bytes[this.length++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.bytes[this.length++] = Number(n);
  }

  float32(v: number): void {
    this.reserve(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }

  float64(v: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  lengthPrefixed(b: Uint8Array): void {
    this.varint(b.length);
    this.raw(b);
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** A cursor over bytes; every read checks the end (`what` names the structure in errors). */
class ByteSource {
  readonly view: DataView;
  pos = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(n: number, path: string): void {
    if (n < 0 || this.pos + n > this.bytes.length) {
      throw new AvroError(`Truncated Avro ${this.what}: ${path} needs ${n} bytes at offset ${this.pos}`);
    }
  }

  byte(path: string): number {
    this.need(1, path);
    return this.bytes[this.pos++] as number;
  }

  /** A zigzag varint long as bigint. */
  long(path: string): bigint {
    const start = this.pos;
    const n = this.shortVarint(path);
    if (n !== undefined) return BigInt(n);
    this.pos = start;
    return this.longVarint(path);
  }

  /** A long that must be a safe integer (counts, sizes, lengths, indexes, ints). */
  smallLong(path: string): number {
    const start = this.pos;
    const n = this.shortVarint(path);
    if (n !== undefined) return n;
    this.pos = start;
    const v = this.longVarint(path);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new AvroError(`Avro ${this.what}: ${path} ${v} is out of range`);
    }
    return Number(v);
  }

  /** The zigzag varint as a number when it takes at most 7 bytes (49 bits: exact), else undefined. */
  private shortVarint(path: string): number | undefined {
    let b = this.byte(path);
    let n = b & 0x7f;
    let scale = 0x80;
    while (b & 0x80) {
      if (scale > 2 ** 42) return undefined;
      b = this.byte(path);
      n += (b & 0x7f) * scale;
      scale *= 0x80;
    }
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** Any zigzag varint of at most 10 bytes that fits 64 bits, through bigint. */
  private longVarint(path: string): bigint {
    let n = 0n;
    let shift = 0n;
    let b: number;
    do {
      if (shift > 63n) throw new AvroError(`Avro ${this.what}: ${path} is a varint longer than 10 bytes`);
      b = this.byte(path);
      n |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    if (n >= 2n ** 64n) throw new AvroError(`Avro ${this.what}: ${path} does not fit 64 bits`);
    return (n >> 1n) ^ -(n & 1n);
  }

  int(path: string): number {
    const v = this.smallLong(path);
    if (v < INT_MIN || v > INT_MAX)
      throw new AvroError(`Avro ${this.what}: ${path} ${v} does not fit an int`);
    return v;
  }

  take(n: number, path: string): Uint8Array {
    this.need(n, path);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  lengthPrefixed(path: string): Uint8Array {
    const n = this.smallLong(path);
    if (n < 0) throw new AvroError(`Avro ${this.what}: ${path} has a negative length ${n}`);
    return this.take(n, path);
  }

  string(path: string): string {
    const b = this.lengthPrefixed(path);
    try {
      return utf8Strict.decode(b);
    } catch (cause) {
      throw new AvroError(`Avro ${this.what}: ${path} is not valid UTF-8`, { cause });
    }
  }

  /** Block count of an array or map (a negative count is followed by the block's byte size). */
  blockCount(path: string): number {
    const count = this.smallLong(path);
    if (count >= 0) return count;
    const size = this.smallLong(path);
    if (size < 0) throw new AvroError(`Avro ${this.what}: ${path} has a negative block size`);
    return -count;
  }
}

export interface AvroCodec {
  read(src: ByteSource): unknown;
  write(sink: ByteSink, value: unknown): void;
  /** Whether a union may pick this branch for the value. */
  accepts(value: unknown): boolean;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return 'Uint8Array';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map) return 'Map';
  return typeof value;
}

function mismatch(path: string, expected: string, value: unknown): AvroError {
  return new AvroError(`Avro value at ${path}: expected ${expected}, got ${kindOf(value)}`);
}

const isRecordLike = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof Uint8Array) &&
  !(v instanceof Map);

function primitiveCodec(name: AvroPrimitiveName, path: string): AvroCodec {
  switch (name) {
    case 'null':
      return {
        read: () => null,
        write: (_s, v) => {
          if (v !== null && v !== undefined) throw mismatch(path, 'null', v);
        },
        accepts: (v) => v === null || v === undefined,
      };
    case 'boolean':
      return {
        read: (src) => {
          const b = src.byte(path);
          if (b > 1) throw new AvroError(`Avro ${src.what}: ${path} boolean byte is ${b}`);
          return b === 1;
        },
        write: (s, v) => {
          if (typeof v !== 'boolean') throw mismatch(path, 'boolean', v);
          s.byte(v ? 1 : 0);
        },
        accepts: (v) => typeof v === 'boolean',
      };
    case 'int':
      return {
        read: (src) => src.int(path),
        write: (s, v) => {
          if (typeof v !== 'number' || !Number.isInteger(v) || v < INT_MIN || v > INT_MAX)
            throw mismatch(path, 'an int', v);
          s.varint(v);
        },
        accepts: (v) => typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX,
      };
    case 'long':
      return {
        read: (src) => src.long(path),
        write: (s, v) => {
          if (typeof v === 'number' && Number.isSafeInteger(v)) {
            if (v < NUMBER_PATH_LIMIT && v > -NUMBER_PATH_LIMIT) s.varint(v);
            else s.bigVarint(BigInt(v));
          } else if (typeof v === 'bigint' && v >= LONG_MIN && v <= LONG_MAX) {
            if (v < NUMBER_PATH_LIMIT && v > -NUMBER_PATH_LIMIT) s.varint(Number(v));
            else s.bigVarint(v);
          } else {
            throw mismatch(path, 'a long (bigint or safe integer)', v);
          }
        },
        accepts: (v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v)),
      };
    case 'float':
    case 'double': {
      const size = name === 'float' ? 4 : 8;
      return {
        read: (src) => {
          src.need(size, path);
          const v = size === 4 ? src.view.getFloat32(src.pos, true) : src.view.getFloat64(src.pos, true);
          src.pos += size;
          return v;
        },
        write: (s, v) => {
          if (typeof v !== 'number') throw mismatch(path, `a ${name}`, v);
          if (size === 4) s.float32(v);
          else s.float64(v);
        },
        accepts: (v) => typeof v === 'number',
      };
    }
    case 'bytes':
      return {
        read: (src) => src.lengthPrefixed(path).slice(),
        write: (s, v) => {
          if (!(v instanceof Uint8Array)) throw mismatch(path, 'bytes (Uint8Array)', v);
          s.lengthPrefixed(v);
        },
        accepts: (v) => v instanceof Uint8Array,
      };
    case 'string':
      return {
        read: (src) => src.string(path),
        write: (s, v) => {
          if (typeof v !== 'string') throw mismatch(path, 'a string', v);
          s.lengthPrefixed(utf8.encode(v));
        },
        accepts: (v) => typeof v === 'string',
      };
  }
}

const PRIMITIVES = new Set<string>(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

/** Compiles a schema into codecs; named types are registered by name and full name. */
class SchemaCompiler {
  private readonly named = new Map<string, AvroCodec | 'defining'>();

  compile(schema: AvroSchema, path: string, depth: number, namespace: string | undefined): AvroCodec {
    if (depth > MAX_SCHEMA_DEPTH)
      throw new AvroError(`Avro schema at ${path} nests deeper than ${MAX_SCHEMA_DEPTH}`);
    if (typeof schema === 'string') {
      if (PRIMITIVES.has(schema)) return primitiveCodec(schema as AvroPrimitiveName, path);
      return this.reference(schema, path, namespace);
    }
    if (Array.isArray(schema)) return this.union(schema, path, depth, namespace);
    if (typeof schema !== 'object' || schema === null || typeof schema.type !== 'string') {
      throw new AvroError(`Avro schema at ${path} is not a type: ${JSON.stringify(schema)}`);
    }
    switch (schema.type) {
      case 'record':
        return this.record(schema as AvroRecordSchema, path, depth, namespace);
      case 'array': {
        const items = this.compile((schema as AvroArraySchema).items, `${path}[]`, depth + 1, namespace);
        return blocksCodec(path, items, undefined);
      }
      case 'map': {
        const values = this.compile((schema as AvroMapSchema).values, `${path}{}`, depth + 1, namespace);
        return blocksCodec(path, values, primitiveCodec('string', `${path} key`));
      }
      case 'fixed':
        return this.define(schema as AvroFixedSchema, namespace, path, () =>
          fixedCodec(schema as AvroFixedSchema, path),
        );
      case 'enum':
        return this.define(schema as AvroEnumSchema, namespace, path, () =>
          enumCodec(schema as AvroEnumSchema, path),
        );
      default:
        if (PRIMITIVES.has(schema.type)) return primitiveCodec(schema.type as AvroPrimitiveName, path);
        return this.reference(schema.type, path, namespace);
    }
  }

  private fullName(name: string, namespace: string | undefined): string {
    return name.includes('.') || namespace === undefined || namespace === '' ? name : `${namespace}.${name}`;
  }

  private reference(name: string, path: string, namespace: string | undefined): AvroCodec {
    const found = this.named.get(this.fullName(name, namespace)) ?? this.named.get(name);
    if (found === 'defining')
      throw new AvroError(`Avro schema at ${path}: recursive type ${name} is not supported`);
    if (found === undefined)
      throw new AvroError(`Avro schema at ${path}: unknown type ${JSON.stringify(name)}`);
    return found;
  }

  private define(
    schema: { name: string; namespace?: string },
    namespace: string | undefined,
    path: string,
    build: () => AvroCodec,
  ): AvroCodec {
    if (typeof schema.name !== 'string' || schema.name === '')
      throw new AvroError(`Avro schema at ${path}: a named type has no name`);
    const full = this.fullName(schema.name, schema.namespace ?? namespace);
    if (this.named.has(full)) throw new AvroError(`Avro schema at ${path}: type ${full} is defined twice`);
    this.named.set(full, 'defining');
    const codec = build();
    this.named.set(full, codec);
    return codec;
  }

  private record(
    schema: AvroRecordSchema,
    path: string,
    depth: number,
    namespace: string | undefined,
  ): AvroCodec {
    if (!Array.isArray(schema.fields))
      throw new AvroError(`Avro schema at ${path}: record ${schema.name} has no fields`);
    const ownNamespace = schema.name?.includes('.')
      ? schema.name.slice(0, schema.name.lastIndexOf('.'))
      : (schema.namespace ?? namespace);
    return this.define(schema, namespace, path, () => {
      const names: string[] = [];
      const codecs: AvroCodec[] = [];
      const defaults: { has: boolean; value: unknown }[] = [];
      for (const field of schema.fields) {
        if (typeof field?.name !== 'string')
          throw new AvroError(`Avro schema at ${path}: a field has no name`);
        names.push(field.name);
        codecs.push(this.compile(field.type, `${path}.${field.name}`, depth + 1, ownNamespace));
        defaults.push({ has: 'default' in field, value: field.default });
      }
      const n = names.length;
      return {
        read: (src) => {
          const out = emptyRecord();
          for (let i = 0; i < n; i++) out[names[i] as string] = (codecs[i] as AvroCodec).read(src);
          return out;
        },
        write: (s, v) => {
          if (!isRecordLike(v)) throw mismatch(path, `a ${schema.name} record`, v);
          for (let i = 0; i < n; i++) {
            let value = v[names[i] as string];
            if (value === undefined) {
              const d = defaults[i] as { has: boolean; value: unknown };
              if (!d.has)
                throw new AvroError(
                  `Avro value at ${path}.${names[i]}: missing, and the field has no default`,
                );
              value = d.value;
            }
            (codecs[i] as AvroCodec).write(s, value);
          }
        },
        accepts: isRecordLike,
      };
    });
  }

  private union(
    branches: AvroSchema[],
    path: string,
    depth: number,
    namespace: string | undefined,
  ): AvroCodec {
    const codecs = branches.map((b, i) => {
      if (Array.isArray(b)) throw new AvroError(`Avro schema at ${path}: a union directly inside a union`);
      return this.compile(b, `${path}<${i}>`, depth + 1, namespace);
    });
    const indexPath = `${path} union index`;
    return {
      read: (src) => {
        const index = src.smallLong(indexPath);
        const codec = codecs[index];
        if (codec === undefined)
          throw new AvroError(`Avro ${src.what}: ${path} union index ${index} is out of range`);
        return codec.read(src);
      },
      write: (s, v) => {
        const index = codecs.findIndex((c) => c.accepts(v));
        if (index < 0) throw mismatch(path, `one of ${JSON.stringify(branches)}`, v);
        s.varint(index);
        (codecs[index] as AvroCodec).write(s, v);
      },
      accepts: (v) => codecs.some((c) => c.accepts(v)),
    };
  }
}

/** Arrays (no key codec) and maps (string keys) as blocks terminated by a zero count. */
function blocksCodec(path: string, item: AvroCodec, key: AvroCodec | undefined): AvroCodec {
  return {
    read: (src) => {
      const out: unknown[] = [];
      const map = new Map<string, unknown>();
      for (let count = src.blockCount(path); count !== 0; count = src.blockCount(path)) {
        for (let i = 0; i < count; i++) {
          if (key === undefined) out.push(item.read(src));
          else map.set(key.read(src) as string, item.read(src));
        }
      }
      return key === undefined ? out : map;
    },
    write: (s, v) => {
      if (key === undefined) {
        if (!Array.isArray(v)) throw mismatch(path, 'an array', v);
        if (v.length > 0) {
          s.varint(v.length);
          for (const element of v) item.write(s, element);
        }
      } else {
        const entries = v instanceof Map ? [...v.entries()] : isRecordLike(v) ? Object.entries(v) : undefined;
        if (entries === undefined) throw mismatch(path, 'a Map', v);
        if (entries.length > 0) {
          s.varint(entries.length);
          for (const [k, value] of entries) {
            key.write(s, k);
            item.write(s, value);
          }
        }
      }
      s.byte(0);
    },
    accepts: (v) => (key === undefined ? Array.isArray(v) : v instanceof Map || isRecordLike(v)),
  };
}

function fixedCodec(schema: AvroFixedSchema, path: string): AvroCodec {
  const size = schema.size;
  if (!Number.isInteger(size) || size < 0)
    throw new AvroError(`Avro schema at ${path}: fixed ${schema.name} has no valid size`);
  return {
    read: (src) => src.take(size, path).slice(),
    write: (s, v) => {
      if (!(v instanceof Uint8Array) || v.length !== size)
        throw mismatch(path, `fixed ${schema.name} of ${size} bytes`, v);
      s.raw(v);
    },
    accepts: (v) => v instanceof Uint8Array && v.length === size,
  };
}

function enumCodec(schema: AvroEnumSchema, path: string): AvroCodec {
  const symbols = schema.symbols;
  if (!Array.isArray(symbols))
    throw new AvroError(`Avro schema at ${path}: enum ${schema.name} has no symbols`);
  return {
    read: (src) => {
      const index = src.smallLong(path);
      const symbol = symbols[index];
      if (symbol === undefined)
        throw new AvroError(`Avro ${src.what}: ${path} enum index ${index} is out of range`);
      return symbol;
    },
    write: (s, v) => {
      const index = typeof v === 'string' ? symbols.indexOf(v) : -1;
      if (index < 0) throw mismatch(path, `a symbol of enum ${schema.name}`, v);
      s.varint(index);
    },
    accepts: (v) => typeof v === 'string' && symbols.includes(v),
  };
}

/** Compiles a schema; throws AvroError on an unknown type. Exposed for tests and schema checks. */
export function compileSchema(schema: AvroSchema): AvroCodec {
  return new SchemaCompiler().compile(schema, rootName(schema), 0, undefined);
}

function rootName(schema: AvroSchema): string {
  return typeof schema === 'object' && !Array.isArray(schema) && 'name' in schema ? schema.name : 'value';
}

/** Encodes records into an Avro object container file with codec `null`. */
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

  const out = new ByteSink();
  out.raw(Uint8Array.from(MAGIC));
  const metadata: [string, string][] = [
    ...Object.entries(options.metadata ?? {}).filter(([k]) => !k.startsWith('avro.')),
    ['avro.schema', JSON.stringify(schema)],
    ['avro.codec', 'null'],
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
    out.varint(count);
    out.varint(block.length);
    out.raw(block.bytes.subarray(0, block.length));
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
export function decodeAvroFile(bytes: Uint8Array): AvroFile {
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
        data = inflateRawSync(data);
      } catch (cause) {
        throw new AvroError(`Avro file: ${where} is not valid deflate data`, { cause });
      }
    }
    const blockSrc = new ByteSource(data, `file ${where}`);
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
