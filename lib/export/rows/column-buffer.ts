import { CALLS_SCHEMA, type ColumnSet } from '../schema';
import type { ArrayPool, ArrayRecycler } from './array-pool';

/**
 * Rows of one partition held column by column in typed arrays until they are written as
 * a row group: no JS string or heap number per buffered value, so buffered rows put no
 * load on the garbage collector, and a full buffer is handed to the encode worker by
 * transferring its ArrayBuffers (no copy).
 *
 * A string column is `text` (UTF-8 bytes and end offsets) or `indexed` (an index per row
 * into the run's dictionary of that column, see RunDictionaries). Numbers and timestamps
 * are Float64Arrays. `present` is 1 for a value and 0 for null: the Parquet definition
 * levels as they are.
 */
export type BufferedColumn =
  | { type: 'text'; present: Uint8Array; ends: Int32Array; bytes: Uint8Array }
  | { type: 'indexed'; present: Uint8Array; indexes: Int32Array }
  | { type: 'number'; present: Uint8Array; values: Float64Array };

/** How a string column is buffered for the rest of a run. */
export type StringMode = 'text' | 'indexed';

const INITIAL_ROWS = 64;

/**
 * A dictionary stops taking entries (and its column is buffered as text from then on)
 * when it has more than MIN_FREEZE entries and they are more than a quarter of the values
 * seen (ids, unique text), when it reaches MAX_ENTRIES, or when its entries would pass
 * MAX_DICTIONARY_CHARS in all. The last bound is what keeps long values (a free-text
 * member of megabytes) out of it: entries live for the whole run, on both threads, with
 * their UTF-8 and CSV bytes cached beside them, so their size must not depend on the data.
 * Names and numbers stay far below it (the service's: under 1,000 characters per column).
 */
const MIN_FREEZE = 1_024;
const MAX_ENTRIES = 65_536;
export const MAX_DICTIONARY_CHARS = 256 * 1024;

/**
 * Strings longer than this are measured (exact UTF-8 length) before they are copied in,
 * instead of reserving 3 bytes per UTF-16 unit: a 4 MB value would otherwise reserve 12 MB.
 */
const MEASURE_ABOVE = 4_096;

/** The distinct values of one string column in a run; append-only, so indexes stay valid. */
class StringDictionary {
  readonly entries: string[] = [];
  #index: Map<string, number> | undefined = new Map();
  #seen = 0;
  /** UTF-16 units of the entries. */
  #chars = 0;

  /** False once the column switched to text: entries stay for the buffers that use them. */
  get open(): boolean {
    return this.#index !== undefined;
  }

  /** The value's index, adding it; -1 when the dictionary is closed (buffer the value as text). */
  indexOf(value: string): number {
    const index = this.#index;
    if (index === undefined) return -1;
    this.#seen++;
    let i = index.get(value);
    if (i === undefined) {
      i = this.entries.length;
      const chars = this.#chars + value.length;
      if (i >= MAX_ENTRIES || (i >= MIN_FREEZE && i * 4 > this.#seen) || chars > MAX_DICTIONARY_CHARS) {
        this.#index = undefined;
        return -1;
      }
      index.set(value, i);
      this.entries.push(value);
      this.#chars = chars;
    }
    return i;
  }

  /** Adds entries sent by the thread that owns the dictionary (a mirror never indexes). */
  extend(values: readonly string[]): void {
    for (const v of values) this.entries.push(v);
  }
}

/**
 * The string dictionaries of one run, one per string column (undefined for the others),
 * plus per-entry byte caches the encoders fill lazily.
 */
export class RunDictionaries {
  /** The columns of the run's dataset. */
  readonly schema: ColumnSet;
  readonly columns: (StringDictionary | undefined)[];
  readonly #utf8: (Uint8Array | undefined)[][];

  constructor(schema: ColumnSet = CALLS_SCHEMA) {
    this.schema = schema;
    this.columns = schema.columns.map((c) => (c.kind === 'string' ? new StringDictionary() : undefined));
    this.#utf8 = schema.columns.map(() => []);
  }

  entries(column: number): readonly string[] {
    return (this.columns[column] as StringDictionary).entries;
  }

  /** UTF-8 bytes of an entry, encoded once per run. */
  utf8(column: number, index: number): Uint8Array {
    const cache = this.#utf8[column] as (Uint8Array | undefined)[];
    let bytes = cache[index];
    if (bytes === undefined) {
      bytes = Buffer.from(this.entries(column)[index] as string, 'utf8');
      cache[index] = bytes;
    }
    return bytes;
  }

  /** Entries added since `sent` (per column), for a mirror; advances `sent`. */
  additions(sent: number[]): { column: number; values: string[] }[] {
    const out: { column: number; values: string[] }[] = [];
    this.columns.forEach((d, column) => {
      if (d === undefined) return;
      const from = sent[column] ?? 0;
      if (d.entries.length > from) {
        out.push({ column, values: d.entries.slice(from) });
        sent[column] = d.entries.length;
      }
    });
    return out;
  }
}

const encoder = new TextEncoder();

/** Rows of one partition; see BufferedColumn. */
export class ColumnBuffer {
  readonly dictionaries: RunDictionaries;
  columns: BufferedColumn[];
  rows = 0;
  #capacity = INITIAL_ROWS;
  /** Bytes used per text column. */
  readonly #textBytes: number[];
  /** Their sum: what the partitioner holds against its byte budget. */
  #textTotal = 0;
  /** Where the arrays come from (undefined for a received buffer, which never grows). */
  readonly #pool: ArrayPool | undefined;
  /** Where the arrays go when released. */
  readonly #recycler: ArrayRecycler;

  /**
   * An empty buffer whose arrays come from `pool`, with each string column indexed or text
   * as `modes` says; or (`received`) a full buffer over arrays from another thread.
   */
  constructor(
    dictionaries: RunDictionaries,
    from:
      | { modes: readonly (StringMode | undefined)[]; pool: ArrayPool }
      | { columns: BufferedColumn[]; rows: number; recycler: ArrayRecycler },
  ) {
    this.dictionaries = dictionaries;
    const columns = dictionaries.schema.columns;
    this.#textBytes = columns.map(() => 0);
    if ('pool' in from) {
      const { modes, pool } = from;
      this.#pool = pool;
      this.#recycler = pool;
      this.columns = columns.map((c, i) => {
        if (c.kind !== 'string') return this.#numberColumn(INITIAL_ROWS);
        return modes[i] === 'indexed' ? this.#indexedColumn(INITIAL_ROWS) : this.#textColumn(INITIAL_ROWS);
      });
    } else {
      this.#pool = undefined;
      this.#recycler = from.recycler;
      this.columns = from.columns;
      this.rows = from.rows;
    }
  }

  /** A buffer over columns received from another thread (rows already in); released into `recycler`. */
  static received(
    dictionaries: RunDictionaries,
    columns: BufferedColumn[],
    rows: number,
    recycler: ArrayRecycler,
  ): ColumnBuffer {
    return new ColumnBuffer(dictionaries, { columns, rows, recycler });
  }

  /** The pool this buffer's arrays come from (undefined for a received buffer). */
  get pool(): ArrayPool | undefined {
    return this.#pool;
  }

  /**
   * UTF-8 bytes held in text columns: the part of a buffer that grows with the size of
   * the values rather than with the rows (a row costs at most 9 bytes per other column).
   */
  get textBytes(): number {
    return this.#textTotal;
  }

  /** Makes room for one more row in every column. */
  reserveRow(): void {
    if (this.rows < this.#capacity) return;
    const capacity = this.#capacity * 2;
    this.columns = this.columns.map((c): BufferedColumn => {
      const present = this.#grown(c.present, capacity);
      if (c.type === 'text') return { ...c, present, ends: this.#grown(c.ends, capacity) };
      if (c.type === 'indexed')
        return { type: 'indexed', present, indexes: this.#grown(c.indexes, capacity) };
      return { type: 'number', present, values: this.#grown(c.values, capacity) };
    });
    this.#capacity = capacity;
  }

  /** Hands every array back for reuse; the buffer must not be used afterwards. */
  release(): void {
    for (const buffer of this.columns.flatMap(arrayBuffersOf)) this.#recycler.give(buffer);
    this.columns = [];
    this.rows = 0;
    this.#textTotal = 0;
  }

  /** Call reserveRow first. Appends a number or null at row `rows`. */
  setNumber(column: number, value: number | null): void {
    const c = this.columns[column] as Extract<BufferedColumn, { type: 'number' }>;
    if (value !== null) {
      c.values[this.rows] = value;
      c.present[this.rows] = 1;
    } else {
      c.present[this.rows] = 0;
    }
  }

  /** Call reserveRow first. Sets a string column's value at row `rows` (null when absent). */
  setString(column: number, value: string | null): void {
    const c = this.columns[column] as BufferedColumn;
    const at = this.rows;
    if (c.type === 'indexed') {
      if (value === null) {
        c.indexes[at] = -1;
        c.present[at] = 0;
        return;
      }
      const index = (this.dictionaries.columns[column] as StringDictionary).indexOf(value);
      if (index >= 0) {
        c.indexes[at] = index;
        c.present[at] = 1;
        return;
      }
      this.#toText(column);
    }
    this.#setText(column, at, value);
  }

  /** Call reserveRow first. Sets the current row's value of an indexed column to dictionary entry `index`. */
  setIndex(column: number, index: number): void {
    const c = this.columns[column] as Extract<BufferedColumn, { type: 'indexed' }>;
    c.indexes[this.rows] = index;
    c.present[this.rows] = 1;
  }

  /** The column's values (null where absent) as JS values: for tests and rare paths. */
  values(column: number): (string | number | null)[] {
    const c = this.columns[column] as BufferedColumn;
    const out: (string | number | null)[] = [];
    for (let r = 0; r < this.rows; r++) out.push(valueAt(this.dictionaries, column, c, r));
    return out;
  }

  /** The typed arrays, trimmed to the rows, and their ArrayBuffers to transfer. */
  trimmed(): { columns: BufferedColumn[]; transfer: ArrayBuffer[] } {
    const n = this.rows;
    const transfer = this.columns.flatMap(arrayBuffersOf);
    const columns = this.columns.map((c, i): BufferedColumn => {
      const present = c.present.subarray(0, n);
      if (c.type === 'number') return { type: 'number', present, values: c.values.subarray(0, n) };
      if (c.type === 'indexed') return { type: 'indexed', present, indexes: c.indexes.subarray(0, n) };
      return {
        type: 'text',
        present,
        ends: c.ends.subarray(0, n),
        bytes: c.bytes.subarray(0, this.#textBytes[i] ?? 0),
      };
    });
    return { columns, transfer };
  }

  #setText(column: number, at: number, value: string | null): void {
    const c = this.columns[column] as Extract<BufferedColumn, { type: 'text' }>;
    let o = this.#textBytes[column] as number;
    if (value === null) {
      c.present[at] = 0;
      c.ends[at] = o;
      return;
    }
    const n = value.length;
    // Worst case 3 bytes per UTF-16 unit; a long value is measured instead.
    const room = n > MEASURE_ABOVE ? Buffer.byteLength(value, 'utf8') : n * 3;
    if (o + room > c.bytes.length) c.bytes = this.#grown(c.bytes, textCapacity(o + room));
    const bytes = c.bytes;
    let i = 0;
    for (; i < n; i++) {
      const ch = value.charCodeAt(i);
      if (ch > 127) break;
      bytes[o + i] = ch;
    }
    o += i;
    if (i < n) o += encoder.encodeInto(value.slice(i), bytes.subarray(o)).written;
    c.present[at] = 1;
    c.ends[at] = o;
    this.#textTotal += o - (this.#textBytes[column] as number);
    this.#textBytes[column] = o;
  }

  /** An indexed column whose dictionary closed: its rows so far become text. */
  #toText(column: number): void {
    const c = this.columns[column] as Extract<BufferedColumn, { type: 'indexed' }>;
    const entries = this.dictionaries.entries(column);
    const rows = this.rows;
    this.columns[column] = this.#textColumn(this.#capacity);
    this.#textTotal -= this.#textBytes[column] as number;
    this.#textBytes[column] = 0;
    for (let r = 0; r < rows; r++) {
      this.#setText(column, r, c.present[r] === 1 ? (entries[c.indexes[r] as number] as string) : null);
    }
    for (const buffer of arrayBuffersOf(c)) this.#recycler.give(buffer);
  }

  #array<T extends Uint8Array | Int32Array | Float64Array>(
    Kind: { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number },
    length: number,
  ): T {
    const pool = this.#pool as ArrayPool;
    return new Kind(pool.take(length * Kind.BYTES_PER_ELEMENT));
  }

  /** A bigger array of the same kind holding the same values; the old one goes back to the pool. */
  #grown<T extends Uint8Array | Int32Array | Float64Array>(a: T, length: number): T {
    const Kind = a.constructor as { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number };
    const b = this.#array(Kind, length);
    b.set(a);
    this.#recycler.give(a.buffer as ArrayBuffer);
    return b;
  }

  #numberColumn(rows: number): BufferedColumn {
    return {
      type: 'number',
      present: this.#array(Uint8Array, rows),
      values: this.#array(Float64Array, rows),
    };
  }

  #indexedColumn(rows: number): BufferedColumn {
    return {
      type: 'indexed',
      present: this.#array(Uint8Array, rows),
      indexes: this.#array(Int32Array, rows),
    };
  }

  #textColumn(rows: number): BufferedColumn {
    return {
      type: 'text',
      present: this.#array(Uint8Array, rows),
      ends: this.#array(Int32Array, rows),
      bytes: this.#array(Uint8Array, powerOfTwo(rows * 40)),
    };
  }
}

/** Row `r` of a column as a JS value. */
export function valueAt(
  dictionaries: RunDictionaries,
  column: number,
  c: BufferedColumn,
  r: number,
): string | number | null {
  if (c.present[r] !== 1) return null;
  if (c.type === 'number') return c.values[r] as number;
  if (c.type === 'indexed') return dictionaries.entries(column)[c.indexes[r] as number] as string;
  return Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.length).toString(
    'utf8',
    textStart(c, r),
    c.ends[r] as number,
  );
}

/** The ArrayBuffers behind a column's arrays. */
function arrayBuffersOf(c: BufferedColumn): ArrayBuffer[] {
  const arrays =
    c.type === 'number'
      ? [c.present, c.values]
      : c.type === 'indexed'
        ? [c.present, c.indexes]
        : [c.present, c.ends, c.bytes];
  return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** Start offset of row `r`'s bytes in a text column. */
export function textStart(c: Extract<BufferedColumn, { type: 'text' }>, r: number): number {
  return r === 0 ? 0 : (c.ends[r - 1] as number);
}

/**
 * Room for `n` bytes of text: a power of two (few sizes, so the pool reuses them) up to
 * 4 MiB, whole MiB above it, so a buffer of large values holds about what the
 * partitioner's byte budget allows rather than up to twice that.
 */
function textCapacity(n: number): number {
  return n <= BIG_TEXT ? powerOfTwo(n) : Math.ceil(n / MIB) * MIB;
}
const MIB = 1024 * 1024;
const BIG_TEXT = 4 * MIB;

function powerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(n, 1024)));
}
