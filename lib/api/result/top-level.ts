import { type ApiErrorDetails, ProtocolError } from '../errors';
import { BACKSLASH, COLON, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';
import type { RunDecoder } from './run-decoder';

type State = 'open' | 'firstKey' | 'key' | 'colon' | 'value' | 'dataValue' | 'afterData';

const CLOSE = Buffer.from('}');

/**
 * The members of the result object around `data`, scanned byte by byte as they arrive
 * (resuming where the last chunk ended). It checks the object's own syntax (commas, colons,
 * no trailing comma) and its member names: `data` once, no name twice. JSON.parse would
 * silently keep the last of two members, and a second `data` would be buffered whole.
 * Values are skipped by depth and parsed at the end of the head and of the tail.
 */
export class TopLevelMembers {
  #state: State = 'open';
  #inString = false;
  #escaped = false;
  #isKey = false;
  /** Nesting depth inside the current member's value. */
  #depth = 0;
  #valueDone = false;
  #scalar = false;
  #openAt = -1;
  #keyStart = -1;
  #lastComma = -1;
  #tailStart = -1;
  #lastKey = '';
  readonly #keys = new Set<string>();
  #head: Record<string, unknown> | undefined;
  #tail: Record<string, unknown> | undefined;
  readonly #details: ApiErrorDetails;

  constructor(details: ApiErrorDetails) {
    this.#details = details;
  }

  get head(): Record<string, unknown> | undefined {
    return this.#head;
  }

  get tail(): Record<string, unknown> | undefined {
    return this.#tail;
  }

  /** The buffer dropped its first `n` bytes. */
  shift(n: number): void {
    this.#openAt -= n;
    this.#keyStart -= n;
    this.#lastComma -= n;
    this.#tailStart -= n;
  }

  /** Scans the head from `from`; returns the offset of `data`'s `[` (head parsed), or -1. */
  scanHead(b: Buffer, from: number, decoder: RunDecoder): number {
    const at = this.#scan(b, from, true);
    if (at < 0) return -1;
    const members =
      this.#lastComma > this.#openAt ? b.subarray(this.#openAt, this.#lastComma) : Buffer.from('{');
    this.#head = asObject(decoder.value(Buffer.concat([members, CLOSE]), "before the 'data' array"));
    return at;
  }

  /** `data`'s closing `]` was read: members may follow. */
  startTail(): void {
    this.#state = 'afterData';
    this.#depth = 0;
    this.#valueDone = true;
  }

  /** Scans the tail from `from`; returns the offset of the closing `}` (tail parsed), or -1. */
  scanTail(b: Buffer, from: number, decoder: RunDecoder): number {
    const at = this.#scan(b, from, false);
    if (at < 0) return -1;
    const members = this.#tailStart >= 0 ? b.subarray(this.#tailStart, at) : Buffer.alloc(0);
    this.#tail = asObject(
      decoder.value(Buffer.concat([Buffer.from('{'), members, CLOSE]), "after the 'data' array"),
    );
    return at;
  }

  checkAfterEnd(bytes: Uint8Array): void {
    for (const c of bytes)
      if (!isSpace(c)) throw this.#protocol('Unexpected bytes after the result document');
  }

  #scan(b: Buffer, from: number, inHead: boolean): number {
    const n = b.length;
    for (let i = from; i < n; i++) {
      const c = b[i] as number;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === BACKSLASH) this.#escaped = true;
        else if (c === QUOTE) {
          this.#inString = false;
          if (this.#isKey) {
            this.#isKey = false;
            this.#member(b, i, inHead);
            this.#state = 'colon';
          } else if (this.#depth === 0) this.#valueDone = true;
        }
        continue;
      }
      if (isSpace(c)) {
        if (this.#scalar && this.#depth === 0) this.#valueDone = true;
        continue;
      }
      switch (this.#state) {
        case 'open':
          if (c !== LBRACE) throw this.#protocol('The result is not a JSON object');
          this.#openAt = i;
          this.#state = 'firstKey';
          break;
        case 'firstKey':
        case 'key':
          if (c === QUOTE) {
            this.#inString = true;
            this.#isKey = true;
            this.#keyStart = i;
          } else if (c === RBRACE && this.#state === 'firstKey') {
            throw this.#protocol("The result has no 'data' array");
          } else if (c === RBRACE) {
            throw this.#protocol('Malformed result (trailing comma in the result object)');
          } else throw this.#protocol('Malformed result (expected a member name)');
          break;
        case 'colon':
          if (c !== COLON) throw this.#protocol(`Malformed result near '${this.#lastKey}'`);
          this.#state = inHead && this.#lastKey === 'data' ? 'dataValue' : 'value';
          this.#depth = 0;
          this.#valueDone = false;
          this.#scalar = false;
          break;
        case 'dataValue':
          if (c !== LBRACKET) throw this.#protocol("The result's 'data' is not an array");
          return i;
        case 'afterData':
          if (c === COMMA) {
            this.#state = 'key';
            this.#tailStart = i + 1;
          } else if (c === RBRACE) return i;
          else throw this.#protocol("Malformed result after the 'data' array");
          break;
        case 'value': {
          const end = this.#value(c, i, inHead);
          if (end) return i;
        }
      }
    }
    return -1;
  }

  /** A byte of a member's value (outside strings); true when it closed the result object. */
  #value(c: number, i: number, inHead: boolean): boolean {
    if (this.#depth === 0 && (c === COMMA || c === RBRACE)) {
      if (c === COMMA) {
        this.#state = 'key';
        if (inHead) this.#lastComma = i;
        return false;
      }
      if (inHead) throw this.#protocol("The result has no 'data' array");
      return true;
    }
    if (this.#depth === 0 && this.#valueDone)
      throw this.#protocol(`Malformed result (a comma is missing after '${this.#lastKey}')`);
    if (c === QUOTE) this.#inString = true;
    else if (c === LBRACE || c === LBRACKET) this.#depth++;
    else if (c === RBRACE || c === RBRACKET) {
      if (this.#depth === 0) throw this.#protocol(`Malformed result near '${this.#lastKey}'`);
      this.#depth--;
      if (this.#depth === 0) this.#valueDone = true;
    } else if (this.#depth === 0) this.#scalar = true;
    return false;
  }

  /** A member name ended at `end` (its closing quote). */
  #member(b: Buffer, end: number, inHead: boolean): void {
    const raw = b.subarray(this.#keyStart + 1, end);
    let name: string;
    try {
      name = raw.includes(BACKSLASH)
        ? (JSON.parse(b.toString('utf8', this.#keyStart, end + 1)) as string)
        : raw.toString('utf8');
    } catch (error) {
      throw new ProtocolError('Malformed member name in the result', { ...this.#details, cause: error });
    }
    if (this.#keys.has(name)) throw this.#protocol(`The result has two '${name}' members`);
    if (!inHead && name === 'data') throw this.#protocol("The result has two 'data' members");
    this.#keys.add(name);
    this.#lastKey = name;
  }

  #protocol(message: string): ProtocolError {
    return new ProtocolError(message, this.#details);
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}
