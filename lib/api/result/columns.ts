import { type ApiErrorDetails, ProtocolError } from '../errors';

/**
 * Column names of array rows, from `request.displayFields` (objects with `fieldName`; plain
 * strings are accepted too). Checked only when a row is an array: object rows carry their
 * names, and a malformed `displayFields` then changes nothing.
 */
export function columnNamesOf(displayFields: unknown, details: ApiErrorDetails): string[] {
  const fail = (what: string) =>
    new ProtocolError(`The result's request.displayFields ${what}; array rows cannot be read`, details);
  if (!Array.isArray(displayFields)) throw fail('is not an array');
  const names: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < displayFields.length; i++) {
    const entry: unknown = displayFields[i];
    const name =
      typeof entry === 'string'
        ? entry
        : typeof entry === 'object' && entry !== null
          ? (entry as { fieldName?: unknown }).fieldName
          : undefined;
    if (typeof name !== 'string' || name === '') throw fail(`entry ${i} has no fieldName string`);
    if (seen.has(name)) throw fail(`names '${name}' twice`);
    seen.add(name);
    names.push(name);
  }
  return names;
}

/**
 * Builds objects from array rows: each non-null value under its column's name, null values
 * left out like absent members. Every name becomes an own data property, as JSON.parse
 * makes the members of an object row: `__proto__` too, which an assignment would turn into
 * the row's prototype (lending every row members no row sent). A row of another length
 * than the columns is refused, naming the row and both lengths.
 */
export class ArrayRowShape {
  readonly #names: readonly string[];
  /** The column named `__proto__`, or -1. */
  readonly #protoColumn: number;
  readonly #details: ApiErrorDetails;

  constructor(names: readonly string[], details: ApiErrorDetails) {
    this.#names = names;
    this.#protoColumn = names.indexOf('__proto__');
    this.#details = details;
  }

  /** The row at `index` in the result (for errors) as an object. */
  toRow(values: readonly unknown[], index: number): Record<string, unknown> {
    const names = this.#names;
    if (values.length !== names.length) {
      throw new ProtocolError(
        `Array row index ${index} has ${values.length} values, request.displayFields names ${names.length}`,
        this.#details,
      );
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      if (i === this.#protoColumn) {
        Object.defineProperty(row, '__proto__', {
          value: v,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else row[names[i] as string] = v;
    }
    return row;
  }
}
