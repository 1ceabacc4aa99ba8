import { isSpecRowMember, type Undocumented } from './members';
import { isSuspectNumber } from './numbers';

// The one walk over a run's parsed rows (a `for...in` per object row), which every later
// step reads instead of walking again. Values nested inside members are walked with an
// explicit stack, never by recursion: what the service sends may nest to any depth.

/**
 * Deepest nesting of a member's value, in containers (`"m":[[1]]` nests 2): a row member's,
 * or a head or tail member's (`request`, `summary`). JSON.parse reads any depth and no walk
 * of the client recurses, but consumers of the rows may (JSON.stringify, structured clone);
 * past this a value is refused ({@link ValueTooDeepError}) rather than handed on. serde_json's
 * default recursion limit is the same.
 */
export const MAX_VALUE_DEPTH = 128;

/** What the walk found in a run of rows. */
export interface RunFacts {
  /** A number that may not round-trip (see numbers.ts): the run is then tokenized exactly. */
  suspect: boolean;
  /** Top-level members of the object rows, as parsed (a member sent twice counts once). */
  members: number;
  /** Colons inside the object rows' `start` strings (a date-time holds two). */
  startColons: number;
  /** Per row, what it holds beyond the spec (sparse; undefined when no row holds any). */
  undocumented: Undocumented[] | undefined;
}

/** Where a value nests too deep: the row (0-based in the run) and its member. */
export interface TooDeepAt {
  row: number;
  member: string | number;
}

/**
 * Walks the rows once. `columns` are the array-row indexes whose column the spec does not
 * document; `tooDeep` makes the error for a member nested past {@link MAX_VALUE_DEPTH}.
 */
export function inspectRows(
  rows: unknown[],
  columns: readonly number[],
  tooDeep: (at: TooDeepAt) => Error,
): RunFacts {
  let suspect = false;
  let members = 0;
  let startColons = 0;
  let undocumented: Undocumented[] | undefined;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (typeof row !== 'object' || row === null) continue;
    let found: string[] | true | undefined;
    if (Array.isArray(row)) {
      for (let i = 0; i < row.length; i++) {
        const v: unknown = row[i];
        if (typeof v === 'number') {
          if (isSuspectNumber(v)) suspect = true;
        } else if (typeof v === 'object' && v !== null) {
          if (walkMember(v, tooDeep, r, i)) suspect = true;
        }
      }
      for (let k = 0; k < columns.length; k++) {
        const v: unknown = row[columns[k] as number];
        if (v !== undefined && v !== null) {
          found = true;
          break;
        }
      }
    } else {
      const obj = row as Record<string, unknown>;
      let names: string[] | undefined;
      for (const key in obj) {
        members++;
        const v = obj[key];
        if (typeof v === 'number') {
          if (isSuspectNumber(v)) suspect = true;
        } else if (typeof v === 'string') {
          if (key === 'start') startColons += colonsIn(v);
        } else if (typeof v === 'object' && v !== null) {
          if (walkMember(v, tooDeep, r, key)) suspect = true;
        }
        if (isSpecRowMember(key)) continue;
        if (names === undefined) names = [key];
        else names.push(key);
      }
      found = names;
    }
    if (found !== undefined) {
      undocumented ??= [];
      undocumented[r] = found;
    }
  }
  return { suspect, members, startColons, undocumented };
}

/**
 * {@link walkValue} for a row's member. Apart from inspectRows, so that its loop variables are
 * not captured by a closure: that would put them in a context allocated per row and member
 * (the walk cost twice as much).
 */
function walkMember(value: object, tooDeep: (at: TooDeepAt) => Error, row: number, member: string | number) {
  return walkValue(value, () => tooDeep({ row, member }));
}

/**
 * Walks a member's value (an object or array) with an explicit stack: throws `tooDeep()`
 * when it nests past {@link MAX_VALUE_DEPTH}; returns whether it holds a suspect number.
 */
export function walkValue(root: object, tooDeep: () => Error): boolean {
  let suspect = false;
  const nodes: object[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = (depths.pop() as number) + 1;
    const values: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'number') {
        if (isSuspectNumber(v)) suspect = true;
      } else if (typeof v === 'object' && v !== null) {
        if (depth > MAX_VALUE_DEPTH) throw tooDeep();
        nodes.push(v);
        depths.push(depth);
      }
    }
  }
  return suspect;
}

/**
 * The colons of the rows that parsing accounts for: one per member name at any depth, and
 * those inside names and strings. Without `\u003a` escapes in the text, this equals the
 * text's colons exactly when no object of the rows had a member sent twice.
 */
export function colonsAccountedFor(rows: unknown[]): number {
  let colons = 0;
  const nodes: unknown[] = [rows];
  while (nodes.length > 0) {
    const node = nodes.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') colons += colonsIn(v);
        else if (typeof v === 'object' && v !== null) nodes.push(v);
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    for (const key in obj) {
      colons += 1 + colonsIn(key);
      const v = obj[key];
      if (typeof v === 'string') colons += colonsIn(v);
      else if (typeof v === 'object' && v !== null) nodes.push(v);
    }
  }
  return colons;
}

/** The colons in `s`: `indexOf` jumps between them (a one-character search is a memchr). */
export function colonsIn(s: string): number {
  let n = 0;
  for (let i = s.indexOf(':'); i >= 0; i = s.indexOf(':', i + 1)) n++;
  return n;
}
