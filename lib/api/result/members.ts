import { COMMA, RBRACE, RBRACKET } from './json-bytes';
import { compactJson, hasEscape, skipSpace, stringEnd, stringValue, valueEnd } from './json-text';
import { RAW_MEMBERS } from './stream';

// Members of a row that the spec does not document are handed over with their source text
// (see RawMembers), which JSON.parse loses: numbers become doubles (`1e3` -> 1000, `12.50`
// -> 12.5) and nested values lose their layout. They are found in the one walk over the
// parsed rows (run-facts.ts); their text is then read from the run's text, only for runs
// that hold such a row, so rows of the spec's members alone pay nothing more.

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

/** Counts the member names compared while the text of undocumented members is kept. */
export interface NameWork {
  comparedNames: number;
}

/**
 * What a row holds beyond the spec: the names of an object row's undocumented members, true
 * for an array row with a value in an undocumented column, undefined when it holds none.
 */
export type Undocumented = readonly string[] | true | undefined;

/**
 * Sets {@link RAW_MEMBERS} on every row of a parsed run that has a member the spec does not
 * document. `text` is the run's text exactly as parsed (rows separated by commas, before any
 * rewrite of numbers); `names` are the columns of array rows; `undocumented[r]` says what row
 * `r` holds beyond the spec (see {@link Undocumented}; the array is sparse).
 */
export function keepRawMembers(
  text: string,
  rows: unknown[],
  names: readonly string[],
  undocumented: readonly Undocumented[],
  work: NameWork,
): void {
  // Rows are found in the text only up to the last one that needs it, and only once.
  let at = 0;
  let reached = 0;
  for (let r = 0; r < undocumented.length; r++) {
    const wanted = undocumented[r];
    if (wanted === undefined) continue;
    for (; reached < r; reached++) at = skipSpace(text, valueEnd(text, skipSpace(text, at))) + 1;
    at = skipSpace(text, at);
    const raw = new Map<string, string>();
    at = wanted === true ? arrayMembers(text, at, names, raw) : objectMembers(text, at, wanted, raw, work);
    setRawMembers(rows[r] as object, raw);
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
 * Up to this many wanted names are compared in place with each member name of the text (no
 * copy of names the row does not want); more are looked up in a Set, so that a row of many
 * undocumented members costs time linear in its members, not their square.
 */
const WANTED_COMPARED_IN_PLACE = 8;

/**
 * The object row at `at`: the members named in `wanted` into `raw`, in the order of the
 * text; returns the offset after the row.
 */
function objectMembers(
  s: string,
  at: number,
  wanted: readonly string[],
  raw: Map<string, string>,
  work: NameWork,
): number {
  const lookup = wanted.length > WANTED_COMPARED_IN_PLACE ? new Set(wanted) : undefined;
  let i = skipSpace(s, at + 1);
  if (s.charCodeAt(i) === RBRACE) return i + 1;
  for (;;) {
    const close = stringEnd(s, i);
    work.comparedNames += lookup === undefined ? wanted.length : 1;
    const name = lookup === undefined ? wantedName(s, i, close, wanted) : lookedUp(s, i, close, lookup);
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

function lookedUp(s: string, open: number, close: number, lookup: ReadonlySet<string>): string | undefined {
  const name = stringValue(s, open, close);
  return lookup.has(name) ? name : undefined;
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
