import { createHash } from 'node:crypto';
import { DIRECTORY_FIELD_NAMES, type DirectoryFieldName } from '../../spec';
import { EXPORT_ERROR_CODES, RowConversionError } from '../errors';
import { canonicalJson } from './canonical-json';
import type { OmittableField } from './columns';

/** What a version holds of an item: the fields the spec names, the rest, and their hash. */
export interface ContactContent {
  readonly itemId: string;
  readonly fields: Readonly<Partial<Record<DirectoryFieldName, string>>>;
  /** The members the spec does not name, as canonical JSON shaped like the item; null when none. */
  readonly extra: string | null;
  /** SHA-256 hex of the canonical JSON of `{fields, extra}` (keys sorted). */
  readonly contentHash: string;
}

const KNOWN_FIELDS: ReadonlySet<string> = new Set(DIRECTORY_FIELD_NAMES);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The content of one item as the service sent it (untrusted: any JSON). A field the spec
 * names with a string value goes to `fields`; a field it does not name, or one it names whose
 * value is not a string, goes to `extra` under `fields`; members beside `id` and `fields` go to
 * `extra` as they are. What `omit` names (a field, or `extra`) is dropped before anything is
 * kept or hashed, so the lake neither holds it nor versions its changes. An item without a
 * string `id` is refused (EXPORT_ROW_INVALID): it cannot be versioned.
 */
export function contactContent(item: unknown, omit: ReadonlySet<OmittableField>): ContactContent {
  if (!isRecord(item) || typeof item.id !== 'string' || item.id === '') {
    throw new RowConversionError(
      EXPORT_ERROR_CODES.rowInvalid,
      'A directory item has no id (a non-empty string): it cannot be versioned',
    );
  }
  const fields: Partial<Record<DirectoryFieldName, string>> = {};
  // Keyed by what the service sent: no prototype, so `__proto__` is a member like any other.
  const extraFields: Record<string, unknown> = Object.create(null);
  const extraMembers: Record<string, unknown> = Object.create(null);
  const sentFields = isRecord(item.fields) ? item.fields : undefined;
  if (item.fields !== undefined && sentFields === undefined) extraMembers.fields = item.fields;
  for (const name of Object.keys(sentFields ?? {})) {
    const value = (sentFields as Record<string, unknown>)[name];
    if (omit.has(name as OmittableField) || value === undefined) continue;
    if (KNOWN_FIELDS.has(name) && typeof value === 'string') fields[name as DirectoryFieldName] = value;
    else extraFields[name] = value;
  }
  for (const name of Object.keys(item)) {
    if (name !== 'id' && name !== 'fields') extraMembers[name] = item[name];
  }
  let extraValue: Record<string, unknown> | null = null;
  if (!omit.has('extra')) {
    if (Object.keys(extraFields).length > 0) extraMembers.fields = extraFields;
    if (Object.keys(extraMembers).length > 0) extraValue = extraMembers;
  }
  const extra = extraValue === null ? null : canonicalJson(extraValue, `Item ${item.id}'s extra members`);
  return { itemId: item.id, fields, extra, contentHash: contentHashOf(fields, extra) };
}

/** SHA-256 hex of a version's canonical content: its fields and its extra text. */
export function contentHashOf(
  fields: Readonly<Partial<Record<DirectoryFieldName, string>>>,
  extra: string | null,
): string {
  const canonical = canonicalJson({ fields, extra }, 'A version');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
