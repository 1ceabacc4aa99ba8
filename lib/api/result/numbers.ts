// Numbers whose text `String(Number(text))` would not reproduce (too many significant digits,
// 1.50, 1e21, -0, 1e-7) are handed out as their exact source text. Finding them must not cost
// a pass of JavaScript (or of a regular expression: measured +30% parse time) over every byte,
// so a run is tokenized exactly only when a cheap check says it may hold one:
// - every `.` between digits (found with memchr) is checked as a number token on the spot;
// - the parsed values are checked (in the one walk over the rows, run-facts.ts): |v| >= 1e15,
//   -0, and non-integers below 1e-3.
// What the check cannot see: an exponent written without a fraction for a value between 1e-3
// and 1e15 (`1e3`, `25e-1`), which serializers do not produce (they write exponents only for
// very large or very small values); such a number stays a number.

const DOT = 0x2e;
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** A `d.d` whose token (read around it, inside a string or not) does not round-trip (false alarms allowed). */
export function hasInexactDecimal(b: Buffer): boolean {
  for (let i = b.indexOf(DOT); i >= 0; i = b.indexOf(DOT, i + 1)) {
    if (!isDigit(b[i - 1]) || !isDigit(b[i + 1])) continue;
    let start = i - 1;
    while (isDigit(b[start - 1])) start--;
    if (b[start - 1] === 0x2d) start--;
    let end = i + 1;
    while (isDigit(b[end])) end++;
    const next = b[end];
    if (next === 0x65 || next === 0x45) return true;
    if (isInexactNumber(b.toString('latin1', start, end))) return true;
  }
  return false;
}

/**
 * A parsed value that only an inexact text produces (or an exponent, which the decimal check
 * cannot see): |v| >= 1e15, -0, a non-integer below 1e-3. The rows' walk asks it of every number.
 */
export function isSuspectNumber(v: number): boolean {
  const a = Math.abs(v);
  return a >= 1e15 || (a < 1e-3 && (a !== 0 || 1 / v < 0));
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
