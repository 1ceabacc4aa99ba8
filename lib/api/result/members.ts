import { BACKSLASH, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';
import { RAW_MEMBERS } from './stream';
import { wellFormed } from './text';

// Members of a row that the spec does not document are handed over with their source text
// (see RawMembers), which JSON.parse loses: numbers become doubles (`1e3` -> 1000, `12.50`
// -> 12.5) and nested values lose their layout. Finding them costs one `for...in` per parsed
// row; their text is then read from the run's text, only for runs that hold such a row, so
// rows of the spec's members alone pay nothing more.

/**
 * Whether `name` is a member of the spec's Result row (`RESULT_ROW_FIELDS`): any other member
 * gets its source text kept. A switch, not a Set: it is asked for every member of every row,
 * and on parsed (internalized) names it takes half the time of `Set#has` (measured: 22 vs
 * 46 ms per 270,000 rows, 3 % of the parse). A test holds it to `RESULT_ROW_FIELDS`.
 */
export function isSpecRowMember(name: string): boolean {
  switch (name) {
    case 'connId':
    case 'start':
    case 'userName':
    case 'userNum':
    case 'cli':
    case 'cliName':
    case 'hgNum':
    case 'hgName':
    case 'callType':
    case 'callDir':
    case 'ans':
    case 'ref':
    case 'lost':
    case 'ring':
    case 'duration':
    case 'calledUserNum':
    case 'calledUserName':
    case 'callUserName':
    case 'callUserNum':
    case 'docId':
      return true;
    default:
      return false;
  }
}

/**
 * Indexes of array-row elements whose column (`request.displayFields` entry) is not a
 * member of the spec: array rows' other elements never need a look.
 */
export function undocumentedColumns(names: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < names.length; i++) if (!isSpecRowMember(names[i] as string)) out.push(i);
  return out;
}

/**
 * Sets {@link RAW_MEMBERS} on every row of a parsed run that has a member the spec does not
 * document. `text` is the run's text exactly as parsed (rows separated by commas, before any
 * rewrite of numbers); `names` are the columns of array rows and `columns` the indexes
 * {@link undocumentedColumns} gave for them.
 */
export function keepRawMembers(
  text: string,
  rows: unknown[],
  names: readonly string[],
  columns: readonly number[],
): void {
  // Rows are found in the text only up to the last one that needs it, and only once.
  let at = 0;
  let reached = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const undocumented = undocumentedOf(row, columns);
    if (undocumented === undefined) continue;
    for (; reached < r; reached++) at = skipSpace(text, valueEnd(text, skipSpace(text, at))) + 1;
    at = skipSpace(text, at);
    const raw = new Map<string, string>();
    at =
      undocumented === true ? arrayMembers(text, at, names, raw) : objectMembers(text, at, undocumented, raw);
    setRawMembers(row as object, raw);
    at = skipSpace(text, at) + 1; // the comma between rows
    reached = r + 1;
  }
}

/**
 * Sets {@link RAW_MEMBERS} on a row, not enumerable: a copy (`{ ...row }`), a comparison or a
 * serialization of the row sees only its members, as before.
 */
export function setRawMembers(row: object, raw: ReadonlyMap<string, string>): void {
  Object.defineProperty(row, RAW_MEMBERS, { value: raw, enumerable: false });
}

/**
 * The names of an object row's undocumented members, true for an array row with a value in
 * an undocumented column, undefined when the row has none.
 */
function undocumentedOf(row: unknown, columns: readonly number[]): string[] | true | undefined {
  if (typeof row !== 'object' || row === null) return undefined;
  if (Array.isArray(row)) {
    for (let k = 0; k < columns.length; k++) {
      const v: unknown = row[columns[k] as number];
      if (v !== undefined && v !== null) return true;
    }
    return undefined;
  }
  let out: string[] | undefined;
  for (const key in row) {
    if (isSpecRowMember(key)) continue;
    if (out === undefined) out = [key];
    else out.push(key);
  }
  return out;
}

/**
 * The object row at `at`: the members named in `wanted` into `raw`, in the order of the
 * text; returns the offset after the row. Other members are skipped without a copy of
 * their names.
 */
function objectMembers(s: string, at: number, wanted: readonly string[], raw: Map<string, string>): number {
  let i = skipSpace(s, at + 1);
  if (s.charCodeAt(i) === RBRACE) return i + 1;
  for (;;) {
    const close = stringEnd(s, i);
    const name = wantedName(s, i, close, wanted);
    // The run parsed as JSON: the next non-space character is the colon.
    const start = skipSpace(s, skipSpace(s, close + 1) + 1);
    const end = valueEnd(s, start);
    if (name !== undefined) raw.set(name, compactJson(s, start, end));
    i = skipSpace(s, end);
    if (s.charCodeAt(i) !== COMMA) return i + 1;
    i = skipSpace(s, i + 1);
  }
}

/** The name of the key [open, close] when it is one of `wanted`. */
function wantedName(s: string, open: number, close: number, wanted: readonly string[]): string | undefined {
  if (hasEscape(s, open, close)) {
    const name = stringValue(s, open, close);
    return wanted.includes(name) ? name : undefined;
  }
  const length = close - open - 1;
  for (let k = 0; k < wanted.length; k++) {
    const name = wanted[k] as string;
    if (name.length === length && s.startsWith(name, open + 1)) return name;
  }
  return undefined;
}

/** The array row at `at`: its elements in undocumented columns (null ones left out) into `raw`. */
function arrayMembers(s: string, at: number, names: readonly string[], raw: Map<string, string>): number {
  let i = skipSpace(s, at + 1);
  if (s.charCodeAt(i) === RBRACKET) return i + 1;
  for (let k = 0; ; k++) {
    const end = valueEnd(s, i);
    const name = names[k];
    if (name !== undefined && !isSpecRowMember(name)) {
      const value = compactJson(s, i, end);
      if (value !== 'null') raw.set(name, value);
    }
    i = skipSpace(s, end);
    if (s.charCodeAt(i) !== COMMA) return i + 1;
    i = skipSpace(s, i + 1);
  }
}

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/**
 * Offset of the closing quote of the string whose opening quote is at `at`: the next quote
 * not escaped (after an even number of backslashes). `indexOf` jumps over the text, which a
 * loop over every character does several times slower.
 */
function stringEnd(s: string, at: number): number {
  let i = s.indexOf('"', at + 1);
  for (;;) {
    let backslashes = 0;
    while (s.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
    i = s.indexOf('"', i + 1);
  }
}

/** Whether the string [open, close] has an escape (a bounded loop: `indexOf` would search on past it). */
function hasEscape(s: string, open: number, close: number): boolean {
  for (let i = open + 1; i < close; i++) if (s.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** The string [open, close] as the parsed row holds it (escapes decoded, lone surrogates replaced). */
function stringValue(s: string, open: number, close: number): string {
  return hasEscape(s, open, close)
    ? wellFormed(JSON.parse(s.slice(open, close + 1)) as string)
    : s.slice(open + 1, close);
}

/** Offset just after the JSON value that starts at `at` (no recursion: any depth). */
function valueEnd(s: string, at: number): number {
  let depth = 0;
  let i = at;
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(s, i) + 1;
    else if (c === LBRACE || c === LBRACKET) {
      depth++;
      i++;
    } else if (c === RBRACE || c === RBRACKET) {
      depth--;
      i++;
    } else if (depth > 0) i++;
    else {
      // A number or a literal at the top: it ends at a delimiter or at the end of the run.
      while (i < s.length && !isDelimiter(s.charCodeAt(i))) i++;
      return i;
    }
    if (depth === 0) return i;
  }
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === RBRACE || c === RBRACKET || isSpace(c);
}

/**
 * The value [start, end) as compact JSON: whitespace outside strings removed; numbers,
 * literals and the order of members as they are; a string with an escape re-escaped as
 * `JSON.stringify` writes it (one without is that already: JSON forbids raw control
 * characters in strings, and the text is decoded, so it holds no lone surrogate).
 */
export function compactJson(s: string, start: number, end: number): string {
  let out = '';
  let last = start;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const close = stringEnd(s, i);
      if (hasEscape(s, i, close)) {
        out += s.slice(last, i) + JSON.stringify(stringValue(s, i, close));
        last = close + 1;
      }
      i = close;
    } else if (isSpace(c)) {
      out += s.slice(last, i);
      last = i + 1;
    }
  }
  return last === start ? s.slice(start, end) : out + s.slice(last, end);
}
