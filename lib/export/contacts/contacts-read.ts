import { parquetReadObjects } from 'hyparquet';
import type { DirectoryFieldName } from '../../spec';
import type { ObjectStore } from '../../stores';
import { columnName } from '../schema';
import { readBounded } from '../table';
import { CONTACT_FIELD_ORDER, type ContactRow } from './columns';
import { ContactHistoryError } from './errors';

/**
 * Most bytes of one contacts data file read back: a directory's partition is a few MB (a
 * file of tens of thousands of versions); a larger one is refused, never read into memory.
 */
export const MAX_CONTACTS_FILE_BYTES = 256 * 1024 * 1024;

const utf8 = new TextDecoder();
/** `extra` is read as the text it was written as (its canonical JSON is what its hash covers), never parsed. */
const TEXT_JSON = { jsonFromBytes: (bytes: Uint8Array) => bytes && utf8.decode(bytes) };

const FIELD_COLUMNS: readonly [DirectoryFieldName, string][] = CONTACT_FIELD_ORDER.map((f) => [
  f,
  columnName(f),
]);

/**
 * The versions a partition's data files hold (the table's live files of a directory), read
 * back with hyparquet exactly as they were written: timestamps as epoch ms, booleans, NULL
 * fields absent, `extra` as its text. A file of another tenant or directory, a value of the
 * wrong type or a file too large is a ContactHistoryError: the sync then writes nothing.
 * `tenant` undefined: a single-tenant lake's files, which have no tenant column.
 */
export async function readContactVersions(
  store: ObjectStore,
  keys: readonly string[],
  partition: { tenant: string | undefined; directoryId: string },
): Promise<ContactRow[]> {
  const out: ContactRow[] = [];
  for (const key of keys) {
    const bytes = await readBounded(store, key, MAX_CONTACTS_FILE_BYTES);
    if (bytes === undefined) {
      throw new ContactHistoryError(
        `The contacts data file ${key} is larger than ${MAX_CONTACTS_FILE_BYTES} bytes: not read`,
      );
    }
    const file = new Uint8Array(bytes).buffer;
    let records: Record<string, unknown>[];
    try {
      records = (await parquetReadObjects({ file, parsers: TEXT_JSON })) as Record<string, unknown>[];
    } catch (cause) {
      throw new ContactHistoryError(
        `The contacts data file ${key} cannot be read (${(cause as Error).message})`,
      );
    }
    for (const [i, record] of records.entries()) out.push(contactRowOf(record, key, i, partition));
  }
  return out;
}

function contactRowOf(
  record: Record<string, unknown>,
  key: string,
  index: number,
  partition: { tenant: string | undefined; directoryId: string },
): ContactRow {
  const bad = (why: string) => new ContactHistoryError(`The contacts data file ${key}, row ${index}: ${why}`);
  const text = (name: string): string => {
    const v = record[name];
    if (typeof v !== 'string') throw bad(`${name} is not a string`);
    return v;
  };
  const optionalText = (name: string): string | null => {
    const v = record[name];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw bad(`${name} is not a string`);
    return v;
  };
  const instant = (name: string): number | null => {
    const v = record[name];
    if (v === null || v === undefined) return null;
    const ms = v instanceof Date ? v.getTime() : Number.NaN;
    if (!Number.isFinite(ms)) throw bad(`${name} is not a timestamp`);
    return ms;
  };
  const flag = (name: string): boolean => {
    const v = record[name];
    if (typeof v !== 'boolean') throw bad(`${name} is not a boolean`);
    return v;
  };
  const tenant = partition.tenant === undefined ? undefined : text('tenant');
  const directoryId = text('directory_id');
  if (tenant !== partition.tenant || directoryId !== partition.directoryId) {
    throw bad(
      `it is of tenant ${tenant ?? '(none)'}, directory ${directoryId}, not of the partition's (${partition.tenant ?? '(none)'}, ${partition.directoryId})`,
    );
  }
  const fields: Partial<Record<DirectoryFieldName, string>> = {};
  for (const [field, column] of FIELD_COLUMNS) {
    const v = optionalText(column);
    if (v !== null) fields[field] = v;
  }
  const validFrom = instant('valid_from');
  if (validFrom === null) throw bad('valid_from is NULL');
  return {
    tenant,
    directoryId,
    directoryName: text('directory_name'),
    itemId: text('item_id'),
    fields,
    extra: optionalText('extra'),
    validFrom,
    validTo: instant('valid_to'),
    isCurrent: flag('is_current'),
    isDeleted: flag('is_deleted'),
    contentHash: text('content_hash'),
  };
}
