import type { CellValue, ColumnValues } from './row-mapper';
import type { ColumnDefinition } from './schema';

const DICTIONARY_SAMPLE = 2_000;
const MAX_DICTIONARY_ENTRIES = 65_536;

/** Distinct values of a column chunk and each row's index into them. */
export interface Dictionary {
  entries: (string | number)[];
  /** Per row: index into entries, or -1 for null. */
  indexes: Int32Array;
}

/** A dictionary when the strings repeat enough to pay for it; unique ids stay PLAIN. */
export function buildDictionary(values: CellValue[], n: number): Dictionary | undefined {
  const sample = new Set<string | number>();
  let sampled = 0;
  for (let r = 0; r < n && sampled < DICTIONARY_SAMPLE; r++) {
    const v = values[r];
    if (v !== null && v !== undefined) {
      sample.add(v);
      sampled++;
    }
  }
  if (sampled > 0 && sample.size > sampled / 2) return undefined;
  const map = new Map<string | number, number>();
  const entries: (string | number)[] = [];
  const indexes = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const v = values[r];
    if (v === null || v === undefined) {
      indexes[r] = -1;
      continue;
    }
    let index = map.get(v);
    if (index === undefined) {
      index = entries.length;
      if (index >= MAX_DICTIONARY_ENTRIES) return undefined;
      map.set(v, index);
      entries.push(v);
    }
    indexes[r] = index;
  }
  return entries.length === 0 ? undefined : { entries, indexes };
}

/** PLAIN BYTE_ARRAY encoding of the non-null strings in [a, b). */
export function plainStrings(values: readonly (string | null)[], a: number, b: number): Uint8Array {
  let size = 0;
  for (let r = a; r < b; r++) {
    const v = values[r];
    if (v !== null && v !== undefined) size += 4 + Buffer.byteLength(v, 'utf8');
  }
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  for (let r = a; r < b; r++) {
    const v = values[r];
    if (v === null || v === undefined) continue;
    const written = out.write(v, o + 4, 'utf8');
    out.writeUInt32LE(written, o);
    o += 4 + written;
  }
  return out;
}

/** PLAIN encoding of the non-null values in [a, b). */
export function plainValues(
  column: ColumnDefinition,
  values: ColumnValues | readonly (string | number)[],
  a: number,
  b: number,
): Uint8Array {
  if (column.kind === 'string') return plainStrings(values as (string | null)[], a, b);
  const width = column.kind === 'int32' ? 4 : 8;
  const out = new Uint8Array(width * (b - a));
  const view = new DataView(out.buffer);
  let o = 0;
  for (let r = a; r < b; r++) {
    const v = values[r];
    if (v === null || v === undefined) continue;
    const x = v as number;
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
  return o === out.length ? out : out.subarray(0, o);
}

/** Column chunk statistics: null count, and min/max for numbers and timestamps. */
export function statistics(column: ColumnDefinition, values: ColumnValues, n: number, nulls: number) {
  const stats: { null_count: bigint; min_value?: number | bigint; max_value?: number | bigint } = {
    null_count: BigInt(nulls),
  };
  if (column.kind === 'string' || nulls === n) return stats;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let r = 0; r < n; r++) {
    const v = values[r];
    if (typeof v === 'number') {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const timestamp = column.kind === 'localTimestamp' || column.kind === 'utcTimestamp';
  stats.min_value = timestamp ? BigInt(min) : min;
  stats.max_value = timestamp ? BigInt(max) : max;
  return stats;
}
