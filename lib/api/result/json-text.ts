import { BACKSLASH, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';
import { wellFormed } from './text';

// Walks over the text of a run that JSON.parse accepted: the text is valid JSON, so these
// only find where tokens end, never check them. No recursion: any depth.

export function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/**
 * Offset of the closing quote of the string whose opening quote is at `at`: the next quote
 * not escaped (after an even number of backslashes). `indexOf` jumps over the text, which a
 * loop over every character does several times slower.
 */
export function stringEnd(s: string, at: number): number {
  let i = s.indexOf('"', at + 1);
  for (;;) {
    let backslashes = 0;
    while (s.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
    i = s.indexOf('"', i + 1);
  }
}

/** Whether the string [open, close] has an escape (a bounded loop: `indexOf` would search on past it). */
export function hasEscape(s: string, open: number, close: number): boolean {
  for (let i = open + 1; i < close; i++) if (s.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** The string [open, close] as the parsed row holds it (escapes decoded, lone surrogates replaced). */
export function stringValue(s: string, open: number, close: number): string {
  return hasEscape(s, open, close)
    ? wellFormed(JSON.parse(s.slice(open, close + 1)) as string)
    : s.slice(open + 1, close);
}

/** Offset just after the JSON value that starts at `at`. */
export function valueEnd(s: string, at: number): number {
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
