import { isUtf8 } from 'node:buffer';
import { BACKSLASH, COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';

// Text checks of the result: bytes that are not UTF-8 and `\uD800`-style escapes of lone
// surrogates. Decoding either silently yields U+FFFD (at once, or when the text is written
// out as UTF-8), so the parser counts them or fails, as the caller chose.

/** What the parser does with text that is not valid Unicode. */
export const INVALID_TEXT_MODES = { count: 'count', fail: 'fail' } as const;
export type InvalidTextMode = (typeof INVALID_TEXT_MODES)[keyof typeof INVALID_TEXT_MODES];

const REPLACEMENT = 0xfffd;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const LONE_SURROGATE_TEST = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export { isUtf8 };

/** Decodes bytes known not to be UTF-8; returns the text and how many U+FFFD decoding added. */
export function decodeReplacing(bytes: Buffer): { text: string; replaced: number } {
  const text = bytes.toString('utf8');
  let decoded = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) decoded++;
  // U+FFFD that was in the body already (EF BF BD) is text, not a replacement.
  let present = 0;
  const encoded = Buffer.from([0xef, 0xbf, 0xbd]);
  for (let i = bytes.indexOf(encoded); i >= 0; i = bytes.indexOf(encoded, i + 3)) present++;
  return { text, replaced: decoded - present };
}

/** Offset of the first byte that is not part of a valid UTF-8 sequence (or -1). */
export function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [need, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [need, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** True when the bytes hold a `\u` escape (possibly a lone surrogate): checked before walking rows. */
export function hasUnicodeEscape(b: Uint8Array): boolean {
  for (let i = b.indexOf(BACKSLASH); i >= 0; i = b.indexOf(BACKSLASH, i + 2)) {
    if (b[i + 1] === 0x75) return true;
  }
  return false;
}

/** Where a byte offset lies inside a run of rows: the row (0-based in the run) and its top-level member. */
export interface MemberLocation {
  row: number;
  /** Member name for object rows, element index for array rows; undefined between members. */
  member: string | number | undefined;
}

/** Walks the run's bytes from its start (a row boundary) to `offset`. Error path only. */
export function locateMember(b: Uint8Array, offset: number): MemberLocation {
  let row = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let keyStart = -1;
  let expectKey = false;
  let member: string | number | undefined;
  for (let i = 0; i < offset; i++) {
    const c = b[i] as number;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) {
        inString = false;
        if (keyStart >= 0) {
          member = Buffer.from(b.subarray(keyStart, i)).toString('utf8');
          keyStart = -1;
        }
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      if (expectKey && depth === 1) keyStart = i + 1;
      expectKey = false;
    } else if (c === LBRACE || c === LBRACKET) {
      depth++;
      if (depth === 1) {
        expectKey = c === LBRACE;
        member = c === LBRACKET ? 0 : undefined;
      }
    } else if (c === RBRACE || c === RBRACKET) depth--;
    else if (c === COMMA) {
      if (depth === 0) {
        row++;
        member = undefined;
      } else if (depth === 1) {
        if (typeof member === 'number') member++;
        else expectKey = true;
      }
    } else if (c === COLON) expectKey = false;
  }
  return { row, member };
}

/**
 * Replaces lone surrogates in the strings (and member names) of `value` with U+FFFD, walking
 * it with an explicit stack (any depth). `onFound(member, isName)` is called once per string
 * holding one, before it is replaced, with the top-level member (name or index) it lies
 * under and whether it is a member name; it may throw (fail mode). Returns the number of
 * replaced code units.
 */
export function replaceLoneSurrogates(
  value: unknown,
  onFound: (member: string | number, isName: boolean) => void,
): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  const nodes: object[] = [value];
  /** The top-level member each node lies under (undefined: the value itself). */
  const tops: (string | number | undefined)[] = [undefined];
  /** A member or element `v` under the top-level `member`; `put` replaces a fixed string. */
  const visit = (v: unknown, member: string | number, put: (text: string) => void): void => {
    if (typeof v === 'string') {
      if (!LONE_SURROGATE_TEST.test(v)) return;
      onFound(member, false);
      const fixed = fixString(v);
      put(fixed.text);
      count += fixed.replaced;
    } else if (typeof v === 'object' && v !== null) {
      nodes.push(v);
      tops.push(member);
    }
  };
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const top = tops.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        visit(node[i], top ?? i, (text) => {
          node[i] = text;
        });
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      let name = key;
      if (LONE_SURROGATE_TEST.test(key)) {
        onFound(top ?? key, true);
        const fixed = fixString(key);
        name = fixed.text;
        count += fixed.replaced;
        // An own data property whatever the name; two names that differ only in their lone
        // surrogates become one here, which the duplicate check of the rows then refuses.
        Object.defineProperty(obj, name, {
          value: obj[key],
          writable: true,
          enumerable: true,
          configurable: true,
        });
        delete obj[key];
      }
      visit(obj[name], top ?? name, (text) => {
        obj[name] = text;
      });
    }
  }
  return count;
}

/** `s` with each lone surrogate replaced by U+FFFD (what the parsed values hold). */
export function wellFormed(s: string): string {
  return LONE_SURROGATE_TEST.test(s) ? s.replace(LONE_SURROGATE, String.fromCharCode(REPLACEMENT)) : s;
}

function fixString(s: string): { text: string; replaced: number } {
  let replaced = 0;
  const text = s.replace(LONE_SURROGATE, () => {
    replaced++;
    return String.fromCharCode(REPLACEMENT);
  });
  return { text, replaced };
}
