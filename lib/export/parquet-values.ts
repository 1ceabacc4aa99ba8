import { ByteWriter } from 'hyparquet-writer';
import { type BufferedColumn, type RunDictionaries, textStart } from './column-buffer';
import type { ColumnDefinition } from './schema';

const DICTIONARY_SAMPLE = 2_000;
const MAX_DICTIONARY_ENTRIES = 65_536;

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
  const local = new Map<number, number>();
  const used: Uint8Array[] = [];
  const indexes = new Int32Array(n);
  let bytes = 0;
  for (let r = 0; r < n; r++) {
    if (c.present[r] !== 1) {
      indexes[r] = -1;
      continue;
    }
    const global = c.indexes[r] as number;
    let i = local.get(global);
    if (i === undefined) {
      i = used.length;
      local.set(global, i);
      const utf8 = dictionaries.utf8(column, global);
      used.push(utf8);
      bytes += 4 + utf8.length;
    }
    indexes[r] = i;
  }
  // Every value null: no dictionary, the pages hold definition levels only.
  if (used.length === 0) return undefined;
  return { plain: lengthPrefixed(used, bytes), size: used.length, indexes };
}

/** PLAIN BYTE_ARRAY encoding of the given values (`bytes`: their total size with prefixes). */
function lengthPrefixed(values: readonly Uint8Array[], bytes: number): Uint8Array {
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
  const view = Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.length);
  const text = (r: number) => view.toString('utf8', textStart(c, r), c.ends[r] as number);
  const sample = new Set<string>();
  let sampled = 0;
  for (let r = 0; r < n && sampled < DICTIONARY_SAMPLE; r++) {
    if (c.present[r] === 1) {
      sample.add(text(r));
      sampled++;
    }
  }
  if (sampled === 0 || sample.size > sampled / 2) return undefined;
  const map = new Map<string, number>();
  const entries: Buffer[] = [];
  const indexes = new Int32Array(n);
  let bytes = 0;
  for (let r = 0; r < n; r++) {
    if (c.present[r] !== 1) {
      indexes[r] = -1;
      continue;
    }
    const v = text(r);
    let index = map.get(v);
    if (index === undefined) {
      index = entries.length;
      if (index >= MAX_DICTIONARY_ENTRIES) return undefined;
      map.set(v, index);
      const utf8 = view.subarray(textStart(c, r), c.ends[r] as number);
      entries.push(utf8);
      bytes += 4 + utf8.length;
    }
    indexes[r] = index;
  }
  return { plain: lengthPrefixed(entries, bytes), size: entries.length, indexes };
}

/** A dictionary for a number column when its values repeat enough to pay for it. */
export function numberDictionary(
  column: ColumnDefinition,
  c: NumberColumn,
  n: number,
): ChunkDictionary | undefined {
  const sample = new Set<number>();
  let sampled = 0;
  for (let r = 0; r < n && sampled < DICTIONARY_SAMPLE; r++) {
    if (c.present[r] === 1) {
      sample.add(c.values[r] as number);
      sampled++;
    }
  }
  if (sampled === 0 || sample.size > sampled / 2) return undefined;
  const map = new Map<number, number>();
  const entries: number[] = [];
  const indexes = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (c.present[r] !== 1) {
      indexes[r] = -1;
      continue;
    }
    const v = c.values[r] as number;
    let index = map.get(v);
    if (index === undefined) {
      index = entries.length;
      if (index >= MAX_DICTIONARY_ENTRIES) return undefined;
      map.set(v, index);
      entries.push(v);
    }
    indexes[r] = index;
  }
  const values = Float64Array.from(entries);
  const present = new Uint8Array(entries.length).fill(1);
  const plain = new ByteWriter(8 * entries.length + 8);
  writePlainNumbers(plain, column, { type: 'number', present, values }, 0, entries.length);
  return { plain: plain.getBytes(), size: entries.length, indexes };
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

/** Appends the PLAIN encoding of the non-null values of rows [a, b) of a number or timestamp column. */
export function writePlainNumbers(
  writer: ByteWriter,
  column: ColumnDefinition,
  c: NumberColumn,
  a: number,
  b: number,
): void {
  const width = column.kind === 'int32' ? 4 : 8;
  let values = 0;
  for (let r = a; r < b; r++) values += c.present[r] as number;
  writer.ensure(width * values);
  const view = writer.view;
  let o = writer.index;
  for (let r = a; r < b; r++) {
    if (c.present[r] !== 1) continue;
    const x = c.values[r] as number;
    if (column.kind === 'int32') view.setInt32(o, x, true);
    else if (column.kind === 'double') view.setFloat64(o, x, true);
    else {
      // Epoch ms fit in 53 bits; split into 32-bit halves instead of allocating a BigInt per value.
      const hi = Math.floor(x / 4_294_967_296);
      view.setUint32(o, x - hi * 4_294_967_296, true);
      view.setInt32(o + 4, hi, true);
    }
    o += width;
  }
  writer.offset += o - writer.index;
  writer.index = o;
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
  if (c.type !== 'number' || nulls === n) return stats;
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
