import { AvroError, type ByteSink, type ByteSource, INT_MAX, INT_MIN, utf8 } from './avro-bytes';
import type { AvroEnumSchema, AvroFixedSchema, AvroPrimitiveName } from './avro-types';

/**
 * The codec of each Avro type as closures over the schema's path (named in every error):
 * primitives, arrays and maps as blocks, fixed and enum. Records and unions are composed from
 * these by the schema compiler (avro-schema.ts).
 */

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

/** A compiled type: reads and writes its values, and tells a union whether a value is its kind. */
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

export function mismatch(path: string, expected: string, value: unknown): AvroError {
  return new AvroError(`Avro value at ${path}: expected ${expected}, got ${kindOf(value)}`);
}

export const isRecordLike = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof Uint8Array) &&
  !(v instanceof Map);

export function primitiveCodec(name: AvroPrimitiveName, path: string): AvroCodec {
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
/** Arrays (no key codec) and maps (string keys) as blocks terminated by a zero count. */
export function blocksCodec(path: string, item: AvroCodec, key: AvroCodec | undefined): AvroCodec {
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

export function fixedCodec(schema: AvroFixedSchema, path: string): AvroCodec {
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

export function enumCodec(schema: AvroEnumSchema, path: string): AvroCodec {
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
