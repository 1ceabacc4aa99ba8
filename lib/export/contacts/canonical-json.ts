import { EXPORT_ERROR_CODES, ExportError } from '../errors';
import { MAX_VALUE_DEPTH, nestsDeeperThan } from '../rows/value-depth';

/**
 * JSON text of `value` with every object's keys sorted (by UTF-16 code units, as
 * `Array.prototype.sort` orders strings), no whitespace: two values equal as data give the
 * same text whatever order their members came in. Arrays keep their order. Walked with an
 * explicit stack (what the service sends is untrusted): a value nesting deeper than
 * MAX_VALUE_DEPTH containers is refused (EXPORT_ROW_INVALID, `what` naming it). Values are
 * what JSON.parse makes: strings, finite numbers, booleans, null, arrays and plain objects;
 * `undefined` members are left out as JSON.stringify does.
 */
export function canonicalJson(value: unknown, what: string): string {
  if (typeof value === 'object' && value !== null && nestsDeeperThan(value)) {
    throw new ExportError(
      EXPORT_ERROR_CODES.rowInvalid,
      `${what} nests deeper than ${MAX_VALUE_DEPTH} levels, more than the export writes`,
    );
  }
  const out: string[] = [];
  // Each entry is a value to write or a literal piece of text (brackets, commas, keys).
  const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop() as { text: string } | { value: unknown };
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const v = next.value;
    if (typeof v !== 'object' || v === null) {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const pieces: Array<{ text: string } | { value: unknown }> = [];
    if (Array.isArray(v)) {
      pieces.push({ text: '[' });
      v.forEach((item, i) => {
        if (i > 0) pieces.push({ text: ',' });
        pieces.push({ value: item === undefined ? null : item });
      });
      pieces.push({ text: ']' });
    } else {
      pieces.push({ text: '{' });
      const keys = Object.keys(v)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort();
      keys.forEach((k, i) => {
        pieces.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
        pieces.push({ value: (v as Record<string, unknown>)[k] });
      });
      pieces.push({ text: '}' });
    }
    for (let i = pieces.length - 1; i >= 0; i--)
      stack.push(pieces[i] as { text: string } | { value: unknown });
  }
  return out.join('');
}
