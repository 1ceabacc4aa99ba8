import { countByte } from './byte-count';
import { COLON, LBRACE, RBRACE } from './json-bytes';
import { skipSpace, stringEnd, stringValue, valueEnd } from './json-text';
import { colonsAccountedFor, type RunFacts } from './run-facts';

// A member sent twice inside a row: JSON.parse keeps the last value silently, so the rows
// cannot tell; the text can. Walking every row's text would cost as much as parsing it, so
// the colons of the bytes the text was decoded from are counted instead (WebAssembly SIMD,
// byte-count.ts; a colon is one byte in UTF-8 and never part of another character, nor of
// what an invalid sequence is replaced by): every member name is followed by one, so the
// colons are at least the members written plus the colons inside strings. When they equal
// what the parsed rows account for, no member was written twice; only when they do not (a
// colon in some other string, a nested object) are the rows looked at closer.

const ESCAPED_COLON = /\\u003[aA]/;

/** Where a member was sent twice: the row (0-based in the run) and the member's name. */
export interface DuplicateMember {
  row: number;
  member: string;
}

/**
 * The first member sent twice in an object row of the run, or undefined. `bytes` are the
 * run's bytes and `text` its text as parsed (decoded from them), `rows` the parsed rows (lone
 * surrogates replaced), `facts` their walk (after any rename of a member name),
 * `unicodeEscapes` whether the text has a `\u` escape.
 */
export function duplicateMember(
  bytes: Uint8Array,
  text: string,
  rows: unknown[],
  facts: RunFacts,
  unicodeEscapes: boolean,
): DuplicateMember | undefined {
  if (facts.members === 0) return undefined;
  // `\u003a` is a colon in a parsed string that the text does not show: only the text can tell.
  if (!(unicodeEscapes && ESCAPED_COLON.test(text))) {
    const colons = countByte(bytes, COLON);
    if (colons === facts.members + facts.startColons) return undefined;
    if (colons === colonsAccountedFor(rows)) return undefined;
  }
  return duplicateInText(text);
}

/** The first object row of the run's text with a member name twice (names as parsed). */
function duplicateInText(s: string): DuplicateMember | undefined {
  let at = skipSpace(s, 0);
  for (let row = 0; at < s.length; row++) {
    if (s.charCodeAt(at) === LBRACE) {
      const names = new Set<string>();
      let i = skipSpace(s, at + 1);
      while (s.charCodeAt(i) !== RBRACE) {
        const close = stringEnd(s, i);
        const name = stringValue(s, i, close);
        if (names.has(name)) return { row, member: name };
        names.add(name);
        // Past the colon and the value, then past the comma (or onto the closing brace).
        i = skipSpace(s, valueEnd(s, skipSpace(s, skipSpace(s, close + 1) + 1)));
        if (s.charCodeAt(i) !== RBRACE) i = skipSpace(s, i + 1);
      }
      at = i + 1;
    } else {
      at = valueEnd(s, at);
    }
    at = skipSpace(s, skipSpace(s, at) + 1); // the comma between rows
  }
  return undefined;
}
