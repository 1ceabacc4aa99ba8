/**
 * The bytes of Avro's binary encoding: a growing output buffer (zigzag varints, little-endian
 * floats, length-prefixed bytes) and a bounds-checked input cursor whose every read names what
 * it was reading when the data ends early. See avro.ts for the container format.
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

export const INT_MIN = -(2 ** 31);
export const INT_MAX = 2 ** 31 - 1;

export const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** One growing buffer. */
export class ByteSink {
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
export class ByteSource {
  /**
   * A plain Uint8Array view even when given a Buffer (what the stores and zlib return): the
   * `bytes` values decoded from it are then copies of type Uint8Array, where a Buffer's
   * `slice` would be a Buffer sharing the whole file's memory.
   */
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos = 0;

  constructor(
    bytes: Uint8Array,
    readonly what: string,
  ) {
    this.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
    let count = this.smallLong(path);
    if (count < 0) {
      const size = this.smallLong(path);
      if (size < 0) throw new AvroError(`Avro ${this.what}: ${path} has a negative block size`);
      count = -count;
    }
    this.checkCount(count, path);
    return count;
  }

  /**
   * Refuses a count of items larger than the bytes left: every item takes a byte or more
   * (a null or an empty record would not, and no schema of ours repeats them), so a count
   * beyond that is corrupt data, and looping over it would only spin.
   */
  checkCount(count: number, path: string): void {
    const left = this.bytes.length - this.pos;
    if (count > left)
      throw new AvroError(`Avro ${this.what}: ${path} claims ${count} items with ${left} bytes left`);
  }
}
