import { LBRACE, LBRACKET } from './json-bytes';

// Numbers whose text `String(Number(text))` would not reproduce (too many significant digits,
// 1.50, 1e3, -0, 0.0000001) are handed out as their exact source text. Finding them must not
// cost a pass of JavaScript over every byte: a regular expression anchored where a number can
// start tells whether a run may hold one, and only such runs are tokenized exactly. The
// expression may match text that is no number (a false alarm costs one exact pass); it never
// misses a number that does not round-trip: a number of at most 15 digits, without exponent,
// trailing fraction zero or minus zero, and not below 1e-6, prints back as it was written.

const INEXACT = String.raw`(?:-0(?![1-9])|-?(?:[0-9.]{16}|[0-9]+(?:\.[0-9]+)?[eE]|[0-9]*\.[0-9]*0(?![0-9])|0\.0{6}))`;
/** In object rows a number can only follow a member's colon (a colon after a digit is inside a time). */
const AFTER_COLON = new RegExp(String.raw`(?<![0-9]):[ \t\n\r]*${INEXACT}`);
/** In array rows a number can only follow `[` or `,`. */
const AFTER_ELEMENT_START = new RegExp(String.raw`[,[][ \t\n\r]*${INEXACT}`);
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

/**
 * False only when no number of the run can need its source text. `bytes` are the run's
 * bytes, `text` the same decoded. Rows holding both objects and arrays (nested values) are
 * always tokenized exactly.
 */
export function mayHoldInexactNumbers(bytes: Uint8Array, text: string): boolean {
  const objects = bytes.indexOf(LBRACE) >= 0;
  const arrays = bytes.indexOf(LBRACKET) >= 0;
  if (objects && arrays) return true;
  return objects ? AFTER_COLON.test(text) : AFTER_ELEMENT_START.test(text);
}

/** True when `token` (a valid JSON number) would not be reproduced by `String(Number(token))`. */
export function isInexactNumber(token: string): boolean {
  return String(Number(token)) !== token;
}

/**
 * Rewrites JSON text so that every number that does not round-trip becomes a string holding
 * its exact source text; everything else is left as it was (the same string when nothing
 * changes). Invalid number tokens are left alone so that JSON.parse still rejects them.
 */
export function quoteInexactNumbers(text: string): string {
  const n = text.length;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      const token = text.slice(i, j);
      if (JSON_NUMBER.test(token) && isInexactNumber(token)) {
        out += `${text.slice(last, i)}"${token}"`;
        last = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
