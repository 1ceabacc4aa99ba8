import { type ApiErrorDetails, ProtocolError, TruncatedBodyError } from './errors';
import {
  BACKSLASH,
  COLON,
  COMMA,
  headObjectText,
  isSpace,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
  type StringState,
  stepString,
  tailObjectText,
  tryParseArray,
} from './json-bytes';

const DATA_KEY = Buffer.from('data');
const ROW_END = Buffer.from('},');
const RUN_WINDOW_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

export interface ScannerLimits {
  /** Largest head (members before `data`). Default 16 MiB. */
  maxHeadBytes: number;
  /** Largest single row or tail. Default 16 MiB. */
  maxPendingBytes: number;
}

type Phase = 'head' | 'rows' | 'tail' | 'end';

/**
 * Byte-level scanner of the report result document. It finds the top-level `data` array
 * and cuts it into runs of complete row elements at depth-0 commas, tracking only string,
 * escape and nesting state; the caller JSON.parses each run as one array. Keeps only the
 * bytes of the unfinished row, so memory stays flat whatever the row count.
 *
 * Members before `data` form the head; members after it the tail. Only ASCII bytes are
 * structural in JSON, so cutting at them never splits a UTF-8 sequence.
 */
export class ResultScanner {
  #buf: Buffer = EMPTY;
  /** Reused backing store for the unfinished bytes plus the next chunk (no allocation per chunk). */
  #store: Buffer = EMPTY;
  /** Bytes before this offset are no longer needed. */
  #keep = 0;
  #pos = 0;
  #phase: Phase = 'head';
  /** String state of the head and tail scans. */
  readonly #str: StringState = { inString: false, escaped: false };
  #depth = 0;
  // head state
  #started = false;
  #expectKey = false;
  #isKey = false;
  #keyStart = -1;
  #dataKeyStart = -1;
  #afterDataKey: 0 | 1 | 2 = 0;
  #head: string | undefined;
  // rows state
  #runs: unknown[][] = [];
  // tail state
  #tail: string | undefined;
  readonly #limits: ScannerLimits;
  readonly #details: ApiErrorDetails;

  constructor(details: ApiErrorDetails = {}, limits: Partial<ScannerLimits> = {}) {
    this.#details = details;
    this.#limits = { maxHeadBytes: 16 * 1024 * 1024, maxPendingBytes: 16 * 1024 * 1024, ...limits };
  }

  /** JSON text of the head object (members before `data`), once `data`'s `[` was seen. */
  get headText(): string | undefined {
    return this.#head;
  }

  get phase(): Phase {
    return this.#phase;
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
      this.#scanAfterEnd(chunk);
      return;
    }
    this.#append(chunk);
    if (this.#phase === 'head') this.#scanHead();
    if (this.#phase === 'rows') this.#scanRows();
    if (this.#phase === 'tail') this.#scanTail();
    const pending = this.#buf.length - this.#keep;
    const limit = this.#phase === 'head' ? this.#limits.maxHeadBytes : this.#limits.maxPendingBytes;
    if (pending > limit)
      throw new ProtocolError(`A ${this.#phase} part of the result exceeds ${limit} bytes`, this.#details);
  }

  /** The body ended: returns the tail object's JSON text, or throws if the document is incomplete. */
  finish(): string {
    if (this.#phase !== 'end' || this.#tail === undefined) {
      throw new TruncatedBodyError(`The result body ended early (in the ${this.#phase})`, this.#details);
    }
    return this.#tail;
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
    this.#keyStart -= shift;
    this.#dataKeyStart -= shift;
  }

  #protocol(message: string): ProtocolError {
    return new ProtocolError(message, this.#details);
  }

  #scanHead(): void {
    const b = this.#buf;
    const n = b.length;
    for (let i = this.#pos; i < n; i++) {
      const c = b[i] as number;
      if (this.#str.inString) {
        const closed = stepString(this.#str, c);
        if (closed && this.#isKey && i - this.#keyStart - 1 === 4) {
          if (b.subarray(this.#keyStart + 1, i).equals(DATA_KEY)) {
            this.#afterDataKey = 1;
            this.#dataKeyStart = this.#keyStart;
          }
        }
        continue;
      }
      if (isSpace(c)) continue;
      if (!this.#started) {
        if (i === 0 && c === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
          i += 2; // UTF-8 byte order mark
          continue;
        }
        if (c !== LBRACE) throw this.#protocol('The result is not a JSON object');
        this.#started = true;
      }
      if (this.#afterDataKey === 1) {
        if (c !== COLON) throw this.#protocol("Malformed result near 'data'");
        this.#afterDataKey = 2;
        continue;
      }
      if (this.#afterDataKey === 2) {
        if (c !== LBRACKET) throw this.#protocol("The result's 'data' is not an array");
        this.#head = headObjectText(b, this.#dataKeyStart);
        this.#phase = 'rows';
        this.#depth = 0;
        this.#pos = i + 1;
        this.#keep = i + 1;
        return;
      }
      if (c === QUOTE) {
        this.#str.inString = true;
        this.#isKey = this.#depth === 1 && this.#expectKey;
        this.#expectKey = false;
        this.#keyStart = i;
      } else if (c === LBRACE || c === LBRACKET) {
        this.#depth++;
        this.#expectKey = this.#depth === 1;
      } else if (c === RBRACE || c === RBRACKET) {
        this.#depth--;
        if (this.#depth === 0) throw this.#protocol("The result has no 'data' array");
      } else if (c === COMMA) {
        this.#expectKey = this.#depth === 1;
      }
    }
    this.#pos = n;
  }

  /**
   * Fast path first: the text up to the last `},` of the buffer is tried as a whole array
   * with one JSON.parse. That succeeds exactly when the cut is a row boundary (a cut inside
   * a string leaves it unterminated; inside a nested value, brackets unbalanced), so the
   * byte scan below only runs over the unfinished row, or over the buffer when the guess
   * was wrong (a string containing `},`, the end of the array, pretty-printed JSON).
   */
  #scanRows(): void {
    const b = this.#buf;
    // Windows of ~64 KiB: small arrays die young, which keeps JSON.parse and GC fast.
    while (this.#keep < b.length) {
      const cut = b.lastIndexOf(ROW_END, Math.min(b.length - 1, this.#keep + RUN_WINDOW_BYTES));
      if (cut <= this.#keep) break;
      const rows = tryParseArray(b.toString('utf8', this.#keep, cut + 1));
      if (!rows) break;
      this.#runs.push(rows);
      this.#keep = cut + 2;
    }
    this.#scanRowsExactly();
  }

  /** Byte scan from the last row boundary: string, escape and depth tracking only. */
  #scanRowsExactly(): void {
    const b = this.#buf;
    const n = b.length;
    const start = this.#keep;
    let inString = false;
    let escaped = false;
    let depth = 0;
    let lastComma = -1;
    let end = -1;
    for (let i = start; i < n; i++) {
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
        if (depth === 0) {
          if (c === RBRACE) throw this.#protocol("Malformed 'data' array");
          end = i;
          break;
        }
        depth--;
      } else if (c === COMMA && depth === 0) {
        lastComma = i;
      }
    }
    const upTo = end >= 0 ? end : lastComma;
    if (upTo >= start) {
      const text = b.toString('utf8', start, upTo);
      if (text.trim() === '') {
        if (lastComma >= start) throw this.#protocol("Malformed 'data' array (empty element)");
      } else {
        const rows = tryParseArray(text);
        if (!rows) throw this.#protocol('Malformed row in the result');
        this.#runs.push(rows);
      }
    }
    if (end >= 0) {
      this.#phase = 'tail';
      this.#depth = 1;
      this.#str.inString = false;
      this.#str.escaped = false;
      this.#pos = end + 1;
      this.#keep = end + 1;
      return;
    }
    if (lastComma >= start) this.#keep = lastComma + 1;
    this.#pos = n;
  }

  #scanTail(): void {
    const b = this.#buf;
    const n = b.length;
    for (let i = this.#pos; i < n; i++) {
      const c = b[i] as number;
      if (this.#str.inString) {
        stepString(this.#str, c);
        continue;
      }
      if (c === QUOTE) this.#str.inString = true;
      else if (c === LBRACE || c === LBRACKET) this.#depth++;
      else if (c === RBRACE || c === RBRACKET) {
        this.#depth--;
        if (this.#depth === 0) {
          this.#tail = tailObjectText(b.toString('utf8', this.#keep, i), this.#details);
          this.#phase = 'end';
          this.#scanAfterEnd(b.subarray(i + 1));
          this.#buf = EMPTY;
          this.#keep = 0;
          this.#pos = 0;
          return;
        }
      }
    }
    this.#pos = n;
  }

  #scanAfterEnd(bytes: Uint8Array): void {
    for (const c of bytes)
      if (!isSpace(c)) throw this.#protocol('Unexpected bytes after the result document');
  }
}
