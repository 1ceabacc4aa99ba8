import { type ApiErrorDetails, ProtocolError } from './errors';

// Byte-level JSON helpers of the result scanner. Only ASCII bytes are structural in JSON,
// so cutting a UTF-8 body at them never splits a character.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Where a scan is with respect to JSON strings; kept across chunks. */
export interface StringState {
  inString: boolean;
  escaped: boolean;
}

/** Advances `state` over byte `c` of a string; true when `c` closed the string. */
export function stepString(state: StringState, c: number): boolean {
  if (state.escaped) state.escaped = false;
  else if (c === BACKSLASH) state.escaped = true;
  else if (c === QUOTE) {
    state.inString = false;
    return true;
  }
  return false;
}

/** `{"a":1,"b":2,"data":[` -> `{"a":1,"b":2}` */
export function headObjectText(b: Buffer, dataKeyStart: number): string {
  let end = dataKeyStart;
  while (end > 0 && isSpace(b[end - 1] as number)) end--;
  if (b[end - 1] === COMMA) end--;
  return `${b.toString('utf8', 0, end)}}`;
}

/** `,"summary":[],"status":1` (before the closing brace) -> `{"summary":[],"status":1}` */
export function tailObjectText(raw: string, details: ApiErrorDetails): string {
  const t = raw.trim();
  if (t === '') return '{}';
  if (t[0] !== ',') throw new ProtocolError("Malformed result after the 'data' array", details);
  return `{${t.slice(1)}}`;
}

export function tryParseArray(text: string): unknown[] | undefined {
  try {
    return JSON.parse(`[${text}]`) as unknown[];
  } catch {
    return undefined;
  }
}
