import { gzipSync } from 'node:zlib';
import {
  type BufferedColumn,
  type ColumnBuffer,
  type RunDictionaries,
  textStart,
} from '../rows/column-buffer';
import { CALLS_SCHEMA, type ColumnKind, csvHeader, type TableSchema } from '../schema';
import { CHUNK_BYTES, recycleChunk, recycleChunks, takeChunk } from './chunk-pool';

/**
 * RFC 4180 CSV: UTF-8, CRLF records, a header, fields quoted when they hold a comma,
 * quote, CR or LF (quotes doubled), nulls as empty fields, empty strings as `""`.
 * Timestamps are ISO 8601: `start` without offset (local wall time), `start_utc` with `Z`.
 *
 * Bytes are written straight into pooled 1 MiB chunks: strings arrive as UTF-8 (text
 * columns) or as dictionary entries whose field bytes are made once per run; numbers and
 * timestamps are formatted by hand.
 *
 * With gzip, each 1 MiB chunk becomes one gzip member; concatenated members are one valid
 * gzip stream (RFC 1952 2.2) that gunzip, DuckDB and Athena read, and the encoder keeps
 * no compression state between row groups (memory stays flat with many open partitions).
 */
export class CsvFileEncoder {
  readonly #gzip: boolean;
  readonly #schema: TableSchema;
  readonly #kinds: readonly ColumnKind[];
  /** Bytes of separators a record has beyond its fields: commas and CRLF. */
  readonly #separators: number;
  #rows = 0;
  #out: Buffer = EMPTY;
  #o = 0;
  #chunks: Uint8Array[] = [];

  constructor(options: { gzip?: boolean; schema?: TableSchema | undefined } = {}) {
    this.#gzip = options.gzip ?? false;
    this.#schema = options.schema ?? CALLS_SCHEMA;
    this.#kinds = this.#schema.columns.map((c) => c.kind);
    this.#separators = this.#kinds.length + 2;
  }

  get rows(): number {
    return this.#rows;
  }

  header(): Uint8Array {
    const bytes = Buffer.from(csvHeaderLine(this.#schema), 'utf8');
    // level 6 and no mtime/name: the same rows always give the same bytes.
    return this.#gzip ? gzipSync(bytes) : bytes;
  }

  /** CSV has no footer. */
  footer(): undefined {
    return undefined;
  }

  rowGroup(buffer: ColumnBuffer): Uint8Array[] {
    this.#chunks = [];
    this.#out = takeChunk(CHUNK_BYTES);
    this.#o = 0;
    const columns = buffer.columns;
    const kinds = this.#kinds;
    const width = columns.length;
    const fields = entryFields(buffer.dictionaries);
    for (let r = 0; r < buffer.rows; r++) {
      if (this.#o > CHUNK_BYTES - 4096) this.#flushChunk(0);
      for (let c = 0; c < width; c++) {
        if (c > 0) this.#out[this.#o++] = COMMA;
        const column = columns[c] as BufferedColumn;
        if (column.present[r] !== 1) continue;
        if (column.type === 'text') {
          this.#text(column.bytes, textStart(column, r), column.ends[r] as number);
        } else if (column.type === 'indexed') {
          this.#field(fields, c, column.indexes[r] as number, buffer.dictionaries);
        } else {
          const v = column.values[r] as number;
          const kind = kinds[c];
          if (kind === 'localTimestamp') this.#timestamp(v, false);
          else if (kind === 'utcTimestamp') this.#timestamp(v, true);
          else if (kind === 'boolean') this.#ascii(v === 0 ? 'false' : 'true');
          else this.#ascii(String(v));
        }
      }
      this.#out[this.#o++] = CR;
      this.#out[this.#o++] = LF;
    }
    this.#endChunk();
    this.#rows += buffer.rows;
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks;
  }

  /**
   * Takes back chunks rowGroup returned, once the caller has written them, for the next
   * row groups of any encoder of this thread (no 1 MiB allocation per chunk).
   */
  recycle(chunks: readonly Uint8Array[]): void {
    if (!this.#gzip) recycleChunks(chunks); // gzip output is not a chunk buffer
  }

  /** Ends the current chunk; makes sure `need` more bytes fit in the next one. */
  #flushChunk(need: number): void {
    this.#endChunk();
    this.#out = takeChunk(Math.max(CHUNK_BYTES, need + 16));
  }

  #endChunk(): void {
    const out = this.#out;
    if (this.#o > 0) {
      const bytes = out.subarray(0, this.#o);
      if (this.#gzip) {
        this.#chunks.push(gzipSync(bytes));
        recycleChunk(out);
      } else {
        this.#chunks.push(bytes);
      }
    } else {
      recycleChunk(out);
    }
    this.#out = EMPTY;
    this.#o = 0;
  }

  /**
   * Makes room for `need` bytes plus the rest of the record's separators (a comma per
   * column and CRLF), which are written without a check of their own.
   */
  #ensure(need: number): void {
    const room = need + this.#separators;
    if (this.#o + room > this.#out.length) this.#flushChunk(room);
  }

  #ascii(text: string): void {
    this.#ensure(text.length);
    const out = this.#out;
    let o = this.#o;
    for (let i = 0; i < text.length; i++) out[o++] = text.charCodeAt(i);
    this.#o = o;
  }

  /** A string field from its UTF-8 bytes [s, e): copied, or quoted when it needs it. */
  #text(bytes: Uint8Array, s: number, e: number): void {
    const n = e - s;
    if (n === 0) {
      this.#ensure(2);
      this.#out[this.#o++] = QUOTE;
      this.#out[this.#o++] = QUOTE;
      return;
    }
    if (n > BIG_FIELD) {
      this.#bigText(bytes, s, e);
      return;
    }
    // Worst case: every byte a doubled quote, plus the quotes.
    this.#ensure(n * 2 + 2);
    const out = this.#out;
    const start = this.#o;
    let o = start;
    for (let i = s; i < e; i++) {
      const b = bytes[i] as number;
      if (b === COMMA || b === QUOTE || b === CR || b === LF) {
        this.#o = start;
        this.#quoted(bytes, s, e);
        return;
      }
      out[o++] = b;
    }
    this.#o = o;
  }

  #quoted(bytes: Uint8Array, s: number, e: number): void {
    const out = this.#out;
    let o = this.#o;
    out[o++] = QUOTE;
    for (let i = s; i < e; i++) {
      const b = bytes[i] as number;
      if (b === QUOTE) out[o++] = QUOTE;
      out[o++] = b;
    }
    out[o++] = QUOTE;
    this.#o = o;
  }

  /**
   * A long field (a value of megabytes), written across as many pooled chunks as it
   * needs instead of into one chunk of twice its size (the quoting worst case).
   */
  #bigText(bytes: Uint8Array, s: number, e: number): void {
    let quoted = false;
    for (let i = s; i < e && !quoted; i++) {
      const b = bytes[i] as number;
      quoted = b === COMMA || b === QUOTE || b === CR || b === LF;
    }
    if (!quoted) {
      this.#copy(bytes, s, e);
    } else {
      this.#copy(QUOTE_BYTE, 0, 1);
      for (let from = s; from < e; ) {
        const quote = bytes.subarray(from, e).indexOf(QUOTE);
        const to = quote < 0 ? e : from + quote + 1;
        this.#copy(bytes, from, to);
        if (quote >= 0) this.#copy(QUOTE_BYTE, 0, 1); // doubled
        from = to;
      }
      this.#copy(QUOTE_BYTE, 0, 1);
    }
    this.#ensure(0); // room for the rest of the record's separators
  }

  /** Copies bytes [s, e) at the end of the output, starting new chunks as they fill. */
  #copy(bytes: Uint8Array, s: number, e: number): void {
    while (s < e) {
      if (this.#o === this.#out.length) this.#flushChunk(0);
      const k = Math.min(e - s, this.#out.length - this.#o);
      this.#out.set(bytes.subarray(s, s + k), this.#o);
      this.#o += k;
      s += k;
    }
  }

  /** A dictionary entry's field, its bytes made once per run. */
  #field(
    fields: (Uint8Array | undefined)[][],
    column: number,
    index: number,
    dictionaries: RunDictionaries,
  ): void {
    const cache = fields[column] as (Uint8Array | undefined)[];
    let field = cache[index];
    if (field === undefined) {
      field = Buffer.from(quoteText(dictionaries.entries(column)[index] as string), 'utf8');
      cache[index] = field;
    }
    this.#ensure(field.length);
    const out = this.#out;
    let o = this.#o;
    if (field.length < 64) for (let i = 0; i < field.length; i++) out[o++] = field[i] as number;
    else {
      out.set(field, o);
      o += field.length;
    }
    this.#o = o;
  }

  /** `YYYY-MM-DDTHH:MM:SS.mmm` (+ `Z`), the date part cached per day. */
  #timestamp(ms: number, utc: boolean): void {
    this.#ensure(24);
    const day = Math.floor(ms / DAY_MS);
    if (day !== cachedDay) {
      cachedDay = day;
      cachedDate = Buffer.from(new Date(day * DAY_MS).toISOString().slice(0, 11), 'latin1');
    }
    const out = this.#out;
    let o = this.#o;
    o += cachedDate.copy(out, o);
    let rest = ms - day * DAY_MS;
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = Math.floor(rest / 1000);
    const f = rest - s * 1000;
    out[o++] = 48 + Math.floor(h / 10);
    out[o++] = 48 + (h % 10);
    out[o++] = COLON;
    out[o++] = 48 + Math.floor(m / 10);
    out[o++] = 48 + (m % 10);
    out[o++] = COLON;
    out[o++] = 48 + Math.floor(s / 10);
    out[o++] = 48 + (s % 10);
    out[o++] = DOT;
    out[o++] = 48 + Math.floor(f / 100);
    out[o++] = 48 + (Math.floor(f / 10) % 10);
    out[o++] = 48 + (f % 10);
    if (utc) out[o++] = ZULU;
    this.#o = o;
  }
}

const EMPTY = Buffer.alloc(0);
/** Fields longer than this are written across chunks (#bigText). */
const BIG_FIELD = 64 * 1024;
const QUOTE_BYTE = new Uint8Array([34]);
const DAY_MS = 86_400_000;
const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;
const COLON = 58;
const DOT = 46;
const ZULU = 90;
let cachedDay = Number.NaN;
let cachedDate: Buffer = Buffer.alloc(0);

const NEEDS_QUOTES = /[",\r\n]/;

/** CSV fields of dictionary entries, per run and column. */
const FIELDS = new WeakMap<RunDictionaries, (Uint8Array | undefined)[][]>();

function entryFields(dictionaries: RunDictionaries): (Uint8Array | undefined)[][] {
  let fields = FIELDS.get(dictionaries);
  if (fields === undefined) {
    fields = dictionaries.schema.columns.map(() => []);
    FIELDS.set(dictionaries, fields);
  }
  return fields;
}

/** The header record, CRLF included, as every CSV part starts (before gzip). */
export function csvHeaderLine(schema: TableSchema = CALLS_SCHEMA): string {
  return `${csvHeader(schema).map(quoteText).join(',')}\r\n`;
}

function quoteText(v: string): string {
  // A quoted empty field keeps '' apart from null (an empty field).
  if (v === '') return '""';
  return NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}
