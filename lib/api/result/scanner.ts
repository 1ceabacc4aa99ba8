import { type ApiErrorDetails, ProtocolError, TruncatedBodyError } from '../errors';
import { BACKSLASH, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';
import { RunDecoder } from './run-decoder';
import { INVALID_TEXT_MODES, type InvalidTextMode } from './text';
import { TopLevelMembers } from './top-level';

const OBJECT_ROW_END = Buffer.from('},');
const ARRAY_ROW_END = Buffer.from('],');
const RUN_WINDOW_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);
const BOM = [0xef, 0xbb, 0xbf] as const;

export interface ScannerLimits {
  /** Largest head (members before `data`). Default 16 MiB. */
  maxHeadBytes: number;
  /** Largest single row or tail. Default 16 MiB. */
  maxPendingBytes: number;
}

export interface ScannerOptions {
  limits?: Partial<ScannerLimits> | undefined;
  /** Invalid UTF-8 and lone surrogates: replaced and counted (default), or a ProtocolError. */
  invalidText?: InvalidTextMode | undefined;
}

/** Work done so far, for tests and benchmarks: parse time must stay linear in the body. */
export interface ScannerWork {
  /** Bytes the scanner looked at itself (byte loops and row-end searches). */
  scannedBytes: number;
  /** Bytes handed to JSON.parse, including guesses that failed. */
  parsedBytes: number;
  /** Member names compared with the names a row wants kept as text: linear in the members. */
  comparedNames: number;
}

type Phase = 'head' | 'rows' | 'tail' | 'end';

/**
 * Byte-level scanner of the report result document. It finds the top-level `data` array and
 * cuts it into runs of complete rows, which are JSON.parsed as one array each; only the bytes
 * of the unfinished row are kept, so memory stays flat whatever the row count. Members before
 * `data` form the head, members after it the tail ({@link TopLevelMembers} checks their
 * syntax and names). Only ASCII bytes are structural in JSON, so cutting at them never splits
 * a UTF-8 sequence.
 *
 * Rows are found two ways. Fast: the text up to the last row end (`},` or `],`) of a window
 * is tried as a whole array; that parses exactly when the cut is a row boundary. Exact: a
 * byte scan tracking strings, escapes and depth, which resumes where it stopped when the next
 * chunk arrives, so a row of any size is scanned once. After a failed guess the exact scan
 * runs at least past the guessed window, so no byte is guessed at twice.
 */
export class ResultScanner {
  #buf: Buffer = EMPTY;
  /** Reused backing store for the unfinished bytes plus the next chunk (no allocation per chunk). */
  #store: Buffer = EMPTY;
  /** Bytes before this offset are no longer needed (in rows: the start of the unfinished row). */
  #keep = 0;
  /** Where the byte scan resumes. */
  #pos = 0;
  #phase: Phase = 'head';
  #bomChecked = false;
  readonly #top: TopLevelMembers;
  // rows state
  #runs: unknown[][] = [];
  #rowsEmitted = 0;
  /** The exact scan must not hand back to the fast path before this offset. */
  #exactUntil = 0;
  /** The unfinished element follows a comma (so `]` there is a trailing comma). */
  #commaBefore = false;
  #inString = false;
  #escaped = false;
  #depth = 0;
  readonly #decoder: RunDecoder;
  readonly #limits: ScannerLimits;
  readonly #details: ApiErrorDetails;
  readonly work: ScannerWork = { scannedBytes: 0, parsedBytes: 0, comparedNames: 0 };

  constructor(details: ApiErrorDetails = {}, options: ScannerOptions = {}) {
    this.#details = details;
    this.#limits = { maxHeadBytes: 16 * 1024 * 1024, maxPendingBytes: 16 * 1024 * 1024, ...options.limits };
    this.#decoder = new RunDecoder(options.invalidText ?? INVALID_TEXT_MODES.count, details, this.work);
    this.#top = new TopLevelMembers(details);
  }

  /** The head object (members before `data`), once `data`'s `[` was seen. */
  get head(): Record<string, unknown> | undefined {
    return this.#top.head;
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** U+FFFD put in place of invalid text so far (mode `count`). */
  get replacedCharacters(): number {
    return this.#decoder.replacedCharacters;
  }

  /** Runs of complete rows parsed so far (each row an object, an array, or whatever the body held). */
  takeRuns(): unknown[][] {
    const runs = this.#runs;
    this.#runs = [];
    return runs;
  }

  /** Feeds the next chunk of the body. */
  push(chunk: Uint8Array): void {
    if (this.#phase === 'end') {
      this.#top.checkAfterEnd(chunk);
      return;
    }
    this.#append(chunk);
    if (this.#phase === 'head' && !this.#skipBom()) return;
    if (this.#phase === 'head') this.#scanHead();
    if (this.#phase === 'rows') this.#scanRows();
    if (this.#phase === 'tail') this.#scanTail();
    const pending = this.#buf.length - this.#keep;
    const limit = this.#phase === 'head' ? this.#limits.maxHeadBytes : this.#limits.maxPendingBytes;
    if (pending > limit)
      throw new ProtocolError(`A ${this.#phase} part of the result exceeds ${limit} bytes`, this.#details);
  }

  /** The body ended: returns the tail object, or throws if the document is incomplete. */
  finish(): Record<string, unknown> {
    const tail = this.#top.tail;
    if (this.#phase !== 'end' || tail === undefined) {
      throw new TruncatedBodyError(`The result body ended early (in the ${this.#phase})`, this.#details);
    }
    return tail;
  }

  #append(chunk: Uint8Array): void {
    const shift = this.#keep;
    const rest = this.#buf.subarray(shift);
    const next = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (rest.length === 0) {
      this.#buf = next;
    } else {
      // Copy into a store kept across chunks: a fresh buffer per chunk (Buffer.concat) is
      // external memory that only a full GC frees, and it piles up on a long body.
      const need = rest.length + next.length;
      if (this.#store.length < need) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(need, this.#store.length * 2, 64 * 1024));
        rest.copy(bigger, 0);
        this.#store = bigger;
      } else {
        rest.copy(this.#store, 0); // overlapping regions are copied correctly
      }
      next.copy(this.#store, rest.length);
      this.#buf = this.#store.subarray(0, need);
    }
    this.#keep = 0;
    this.#pos -= shift;
    this.#exactUntil = Math.max(0, this.#exactUntil - shift);
    this.#top.shift(shift);
  }

  /** A UTF-8 byte order mark may start the body (also split across chunks); false: wait for more. */
  #skipBom(): boolean {
    if (this.#bomChecked) return true;
    const b = this.#buf;
    for (let i = 0; i < BOM.length; i++) {
      if (i >= b.length) return false;
      if (b[i] !== BOM[i]) {
        this.#bomChecked = true;
        return true;
      }
    }
    this.#bomChecked = true;
    this.#pos = BOM.length;
    this.#keep = BOM.length;
    return true;
  }

  #scanHead(): void {
    const b = this.#buf;
    const at = this.#top.scanHead(b, this.#pos, this.#decoder);
    this.work.scannedBytes += (at < 0 ? b.length : at) - this.#pos;
    if (at < 0) {
      this.#pos = b.length;
      return;
    }
    this.#decoder.useHead(this.#top.head as Record<string, unknown>);
    this.#phase = 'rows';
    this.#pos = at + 1;
    this.#keep = at + 1;
    this.#exactUntil = at + 1;
  }

  #scanRows(): void {
    for (;;) {
      if (this.#pos === this.#keep) this.#scanFast();
      if (!this.#scanExactly()) return;
    }
  }

  /** Whole windows of rows with one JSON.parse each, while the guessed cuts are row boundaries. */
  #scanFast(): void {
    const b = this.#buf;
    const n = b.length;
    while (this.#keep < n && this.#keep >= this.#exactUntil) {
      let first = this.#keep;
      while (first < n && isSpace(b[first] as number)) first++;
      const c = b[first];
      if (c !== LBRACE && c !== LBRACKET) return; // the end of data, or a row to scan exactly
      // Windows of ~64 KiB: small arrays die young, which keeps JSON.parse and GC fast.
      const windowEnd = Math.min(n, this.#keep + RUN_WINDOW_BYTES);
      const cut = b
        .subarray(this.#keep, windowEnd)
        .lastIndexOf(c === LBRACE ? OBJECT_ROW_END : ARRAY_ROW_END);
      this.work.scannedBytes += windowEnd - this.#keep - Math.max(cut, 0);
      if (cut <= 0) {
        this.#exactUntil = windowEnd;
        return;
      }
      const end = this.#keep + cut + 1;
      this.work.parsedBytes += end - this.#keep;
      const rows = this.#decoder.rows(b.subarray(this.#keep, end), this.#rowsEmitted);
      if (!rows) {
        this.#exactUntil = end;
        return;
      }
      this.#emit(rows);
      this.#keep = end + 1;
      this.#pos = end + 1;
      this.#commaBefore = true;
    }
  }

  /**
   * Byte scan from where it stopped. Returns true at a row boundary past `#exactUntil` (the
   * fast path may take over), false when the buffer is used up or `data` ended.
   */
  #scanExactly(): boolean {
    const b = this.#buf;
    const n = b.length;
    const from = this.#pos;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let depth = this.#depth;
    let lastComma = -1;
    for (let i = from; i < n; i++) {
      const c = b[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) {
        inString = true;
      } else if (c === LBRACE || c === LBRACKET) {
        depth++;
      } else if (c === RBRACE || c === RBRACKET) {
        if (depth > 0) {
          depth--;
          continue;
        }
        if (c === RBRACE) throw this.#protocol("Malformed 'data' array");
        this.work.scannedBytes += i + 1 - from;
        this.#endRows(i);
        return false;
      } else if (c === COMMA && depth === 0) {
        if (i >= this.#exactUntil) {
          this.work.scannedBytes += i + 1 - from;
          this.#inString = false;
          this.#escaped = false;
          this.#depth = 0;
          this.#emitRange(this.#keep, i);
          this.#keep = i + 1;
          this.#pos = i + 1;
          this.#commaBefore = true;
          return true;
        }
        lastComma = i;
      }
    }
    this.work.scannedBytes += n - from;
    this.#inString = inString;
    this.#escaped = escaped;
    this.#depth = depth;
    if (lastComma >= 0) {
      this.#emitRange(this.#keep, lastComma);
      this.#keep = lastComma + 1;
      this.#commaBefore = true;
    }
    this.#pos = n;
    return false;
  }

  /** `]` of `data` at `end`. */
  #endRows(end: number): void {
    if (isBlank(this.#buf, this.#keep, end)) {
      if (this.#commaBefore) throw this.#protocol("Malformed 'data' array (trailing comma)");
    } else {
      this.#emitRange(this.#keep, end);
    }
    this.#phase = 'tail';
    this.#pos = end + 1;
    this.#keep = end + 1;
    this.#top.startTail();
  }

  /** Rows between `start` and `end` (a comma or the closing bracket): they must parse. */
  #emitRange(start: number, end: number): void {
    if (isBlank(this.#buf, start, end)) throw this.#protocol("Malformed 'data' array (empty element)");
    this.work.parsedBytes += end - start;
    const rows = this.#decoder.rows(this.#buf.subarray(start, end), this.#rowsEmitted);
    if (!rows) throw this.#protocol(`Malformed row in the result (after row index ${this.#rowsEmitted - 1})`);
    this.#emit(rows);
  }

  #emit(rows: unknown[]): void {
    this.#runs.push(rows);
    this.#rowsEmitted += rows.length;
  }

  #scanTail(): void {
    const b = this.#buf;
    const end = this.#top.scanTail(b, this.#pos, this.#decoder);
    this.work.scannedBytes += (end < 0 ? b.length : end + 1) - this.#pos;
    if (end < 0) {
      this.#pos = b.length;
      return;
    }
    this.#phase = 'end';
    this.#top.checkAfterEnd(b.subarray(end + 1));
    this.#buf = EMPTY;
    this.#keep = 0;
    this.#pos = 0;
  }

  #protocol(message: string): ProtocolError {
    return new ProtocolError(message, this.#details);
  }
}

function isBlank(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(b[i] as number)) return false;
  return true;
}
