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
