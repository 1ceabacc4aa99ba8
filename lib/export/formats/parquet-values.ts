import { ByteWriter } from 'hyparquet-writer';
import { type BufferedColumn, type RunDictionaries, textStart } from '../rows/column-buffer';
import type { ColumnDefinition } from '../schema';

const DICTIONARY_SAMPLE = 2_000;
const MAX_DICTIONARY_ENTRIES = 65_536;
/** Average UTF-8 bytes per row above which a text chunk gets no dictionary. */
const MAX_DICTIONARY_AVERAGE = 1_024;

type TextColumn = Extract<BufferedColumn, { type: 'text' }>;
type IndexedColumn = Extract<BufferedColumn, { type: 'indexed' }>;
type NumberColumn = Extract<BufferedColumn, { type: 'number' }>;

/** A column chunk's dictionary: its PLAIN-encoded entries and each row's index (-1 for null). */
export interface ChunkDictionary {
  plain: Uint8Array;
  size: number;
  indexes: Int32Array;
}

/**
 * The chunk dictionary of an indexed string column: the run dictionary's entries this
 * chunk uses, in order of first use, re-numbered from 0; undefined when every value is null.
 */
export function indexedDictionary(
  dictionaries: RunDictionaries,
  column: number,
  c: IndexedColumn,
  n: number,
): ChunkDictionary | undefined {
  const numbered = firstUseIndexes(c.present, n, (r) => c.indexes[r] as number);
  // Every value null: no dictionary, the pages hold definition levels only.
  if (numbered === undefined || numbered.firsts.length === 0) return undefined;
  const entries = numbered.firsts.map((r) => dictionaries.utf8(column, c.indexes[r] as number));
  return { plain: lengthPrefixed(entries), size: entries.length, indexes: numbered.indexes };
}

/**
 * Numbers each distinct key of the present rows of [0, n) from 0 in order of first use
 * (-1 for null rows); `firsts` holds the row where each key first appears. Undefined
 * when there are more than MAX_DICTIONARY_ENTRIES keys.
 */
function firstUseIndexes<K>(
  present: Uint8Array,
  n: number,
  keyOf: (r: number) => K,
): { indexes: Int32Array; firsts: number[] } | undefined {
  const numbers = new Map<K, number>();
  const firsts: number[] = [];
  const indexes = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (present[r] !== 1) {
      indexes[r] = -1;
      continue;
    }
    const key = keyOf(r);
    let index = numbers.get(key);
    if (index === undefined) {
      index = firsts.length;
      if (index >= MAX_DICTIONARY_ENTRIES) return undefined;
      numbers.set(key, index);
      firsts.push(r);
    }
    indexes[r] = index;
  }
  return { indexes, firsts };
}

/** Whether the present values repeat enough to pay for a dictionary (at most half distinct in a sample). */
function repeats<K>(present: Uint8Array, n: number, keyOf: (r: number) => K): boolean {
  const sample = new Set<K>();
  let sampled = 0;
  for (let r = 0; r < n && sampled < DICTIONARY_SAMPLE; r++) {
    if (present[r] === 1) {
      sample.add(keyOf(r));
      sampled++;
    }
  }
  return sampled > 0 && sample.size <= sampled / 2;
}

/** PLAIN BYTE_ARRAY encoding of the given values. */
function lengthPrefixed(values: readonly Uint8Array[]): Uint8Array {
  let bytes = 0;
  for (const utf8 of values) bytes += 4 + utf8.length;
  const plain = Buffer.allocUnsafeSlow(bytes);
  let o = 0;
  for (const utf8 of values) {
    plain.writeUInt32LE(utf8.length, o);
    plain.set(utf8, o + 4);
    o += 4 + utf8.length;
  }
  return plain;
}

/**
 * A dictionary for a text column (a string column whose run dictionary closed) when its
 * values repeat within the chunk: decided on a sample, so unique ids cost little.
 */
export function textDictionary(c: TextColumn, n: number): ChunkDictionary | undefined {
  // Long values (a free-text member of kilobytes or megabytes) are not worth a JS string
  // each to find repeats: PLAIN (the service's values average well under 100 bytes).
  if (n > 0 && (c.ends[n - 1] as number) > n * MAX_DICTIONARY_AVERAGE) return undefined;
  const view = Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.length);
  const text = (r: number) => view.toString('utf8', textStart(c, r), c.ends[r] as number);
  if (!repeats(c.present, n, text)) return undefined;
  const numbered = firstUseIndexes(c.present, n, text);
  if (numbered === undefined) return undefined;
  const entries = numbered.firsts.map((r) => view.subarray(textStart(c, r), c.ends[r] as number));
  return { plain: lengthPrefixed(entries), size: entries.length, indexes: numbered.indexes };
}

/** A dictionary for a number column when its values repeat enough to pay for it. */
export function numberDictionary(
  column: ColumnDefinition,
  c: NumberColumn,
  n: number,
): ChunkDictionary | undefined {
  const value = (r: number) => c.values[r] as number;
  if (!repeats(c.present, n, value)) return undefined;
  const numbered = firstUseIndexes(c.present, n, value);
  if (numbered === undefined) return undefined;
  const size = numbered.firsts.length;
  const entries: NumberColumn = {
    type: 'number',
    present: new Uint8Array(size).fill(1),
    values: Float64Array.from(numbered.firsts, value),
  };
  const plain = new ByteWriter(8 * size + 8);
  writePlainNumbers(plain, column, entries, 0, size);
  return { plain: plain.getBytes(), size, indexes: numbered.indexes };
}

/** Appends the PLAIN BYTE_ARRAY encoding of the non-null values of rows [a, b) of a text column. */
export function writePlainText(writer: ByteWriter, c: TextColumn, a: number, b: number): void {
  let values = 0;
  for (let r = a; r < b; r++) values += c.present[r] as number;
  const from = textStart(c, a);
  const to = b === 0 ? 0 : (c.ends[b - 1] as number);
  const size = values * 4 + (to - from);
  writer.ensure(size);
  const out = new Uint8Array(writer.buffer, writer.index, size);
  const src = c.bytes;
  let o = 0;
  let s = from;
  for (let r = a; r < b; r++) {
    if (c.present[r] !== 1) continue;
    const e = c.ends[r] as number;
    const length = e - s;
    out[o] = length & 0xff;
    out[o + 1] = (length >>> 8) & 0xff;
    out[o + 2] = (length >>> 16) & 0xff;
    out[o + 3] = (length >>> 24) & 0xff;
    o += 4;
    if (length < 64) {
      for (let k = s; k < e; k++) out[o++] = src[k] as number;
    } else {
      out.set(src.subarray(s, e), o);
      o += length;
    }
    s = e;
  }
  writer.index += size;
  writer.offset += size;
}

/**
 * Appends the PLAIN encoding of the non-null values of rows [a, b) of a number or
 * timestamp column; a timestamp's epoch ms are multiplied by `timestampScale` (1000: micros).
 */
export function writePlainNumbers(
  writer: ByteWriter,
  column: ColumnDefinition,
  c: NumberColumn,
  a: number,
  b: number,
  timestampScale = 1,
): void {
  let values = 0;
  for (let r = a; r < b; r++) values += c.present[r] as number;
  if (column.kind === 'boolean') {
    writePlainBooleans(writer, c, a, b, values);
    return;
  }
  const width = column.kind === 'int32' ? 4 : 8;
  writer.ensure(width * values);
  const view = writer.view;
  let o = writer.index;
  for (let r = a; r < b; r++) {
    if (c.present[r] !== 1) continue;
    const x = c.values[r] as number;
    if (column.kind === 'int32') view.setInt32(o, x, true);
    else if (column.kind === 'double') view.setFloat64(o, x, true);
    else {
      // Epoch ms, and micros of years 1685-2255, fit in 53 bits: split into 32-bit halves
      // instead of allocating a BigInt per value. Micros beyond: a BigInt, exact.
      const t = x * timestampScale;
      if (t > Number.MAX_SAFE_INTEGER || t < Number.MIN_SAFE_INTEGER) {
        view.setBigInt64(o, BigInt(x) * BigInt(timestampScale), true);
      } else {
        const hi = Math.floor(t / 4_294_967_296);
        view.setUint32(o, t - hi * 4_294_967_296, true);
        view.setInt32(o + 4, hi, true);
      }
    }
    o += width;
  }
  writer.offset += o - writer.index;
  writer.index = o;
}

/** PLAIN BOOLEAN: one bit per non-null value, least significant bit first (parquet-format Encodings.md). */
function writePlainBooleans(writer: ByteWriter, c: NumberColumn, a: number, b: number, values: number): void {
  const size = Math.ceil(values / 8);
  writer.ensure(size);
  const bytes = new Uint8Array(writer.view.buffer, writer.view.byteOffset + writer.index, size);
  bytes.fill(0);
  let k = 0;
  for (let r = a; r < b; r++) {
    if (c.present[r] !== 1) continue;
    if (c.values[r] !== 0) bytes[k >> 3] = (bytes[k >> 3] as number) | (1 << (k & 7));
    k++;
  }
  writer.offset += size;
  writer.index += size;
}

/** Null count of the first n rows. */
export function nullCount(c: BufferedColumn, n: number): number {
  let values = 0;
  for (let r = 0; r < n; r++) values += c.present[r] as number;
  return n - values;
}

/** Column chunk statistics: null count, and min/max for numbers and timestamps. */
export function statistics(column: ColumnDefinition, c: BufferedColumn, n: number, nulls: number) {
  const stats: { null_count: bigint; min_value?: number | bigint; max_value?: number | bigint } = {
    null_count: BigInt(nulls),
  };
  // Booleans: the null count only (min/max of a BOOLEAN are not numbers to the footer's writer).
  if (c.type !== 'number' || nulls === n || column.kind === 'boolean') return stats;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let r = 0; r < n; r++) {
    if (c.present[r] !== 1) continue;
    const v = c.values[r] as number;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const timestamp = column.kind === 'localTimestamp' || column.kind === 'utcTimestamp';
  stats.min_value = timestamp ? BigInt(min) : min;
  stats.max_value = timestamp ? BigInt(max) : max;
  return stats;
}
