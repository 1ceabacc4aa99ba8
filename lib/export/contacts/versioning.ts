import { EXPORT_ERROR_CODES, RowConversionError } from '../errors';
import type { ContactRow, OmittableField } from './columns';
import { type ContactContent, contactContent } from './content';
import { ContactHistoryError } from './errors';

/** One directory's sync: what the table holds of it, and what the service listed now. */
export interface DirectorySyncInput {
  /** Undefined in a single-tenant lake. */
  readonly tenant: string | undefined;
  readonly directory: { readonly id: string; readonly name: string };
  /** Every version of the tenant's directory, as read from the table (the whole partition). */
  readonly current: readonly ContactRow[];
  /** The directory's items, every one of them (`readWholeDirectory`), as the service sent them. */
  readonly items: readonly unknown[];
  /** When the sync read the directory: valid_from of what it opens, valid_to of what it closes. */
  readonly now: Date;
  /** Fields the deployment leaves out of the lake (`omittedFields`). */
  readonly omit?: ReadonlySet<OmittableField>;
}

/** What a sync did to a directory's history. */
export interface DirectorySyncCounts {
  /** Items listed by the service now. */
  items: number;
  /** Versions opened: new items, changed items, deleted items that came back. */
  newVersions: number;
  /** Versions closed (valid_to set): changed, deleted, and deleted items that came back. */
  closed: number;
  /** Deletion versions opened: items gone since the last sync. */
  deletions: number;
  /** Listed items whose content is the current version's. */
  unchanged: number;
}

export interface DirectorySyncResult {
  /** The partition's new full content, ordered by item id then valid_from. */
  readonly rows: ContactRow[];
  readonly counts: DirectorySyncCounts;
  /** False when `rows` equal `current` (as sets): the partition needs no new snapshot. */
  readonly changed: boolean;
}

/**
 * The next content of a directory's partition of `contacts` (SCD type 2), replaced whole in
 * one snapshot. The conventions:
 * - a version is keyed by (tenant, directory_id, item_id, valid_from); an item has exactly
 *   one current version (is_current), whose valid_to is NULL; closed ones have valid_to set;
 * - an unchanged item (same content hash) gets nothing: equality is by content, not by the
 *   order its members came in;
 * - a changed item: its current version is closed at `now` and a new one opened at `now`;
 * - an item gone from the listing: its current version is closed at `now` and a deletion
 *   version opened at `now`: is_deleted, is_current, valid_to NULL, the last version's fields,
 *   extra and hash. It stays the item's current version until the item comes back (a deleted
 *   item still gone gets nothing more), so "the directory as of T" is
 *   `valid_from <= T < coalesce(valid_to, +inf) and not is_deleted`;
 * - a deleted item that comes back: its deletion version is closed and a new version opened;
 * - directory_name is the directory's name of the latest sync on current versions (it is not
 *   item content: a renamed directory makes no version), and stays as it was on closed ones.
 *
 * Pure: the same input gives the same rows, and a second sync with the same listing (at a
 * later `now`) gives the rows of the first. Refuses (ContactHistoryError) a partition with
 * rows of another tenant or directory, an item with no or several current versions, or
 * timestamps after `now`; and (EXPORT_ROW_INVALID) a listing that names an item twice.
 */
export function versionDirectory(input: DirectorySyncInput): DirectorySyncResult {
  const now = input.now.getTime();
  if (!Number.isFinite(now)) throw new ContactHistoryError('The sync time is not a valid date');
  const history = historyByItem(input);
  const listing = listingById(input);
  const counts: DirectorySyncCounts = {
    items: listing.size,
    newVersions: 0,
    closed: 0,
    deletions: 0,
    unchanged: 0,
  };
  const rows: ContactRow[] = [];
  let changed = false;
  /** A version opened now: of listed content, or (a deletion) of the last version's. */
  const open = (content: ContactContent, deleted: boolean): ContactRow => ({
    tenant: input.tenant,
    directoryId: input.directory.id,
    directoryName: input.directory.name,
    itemId: content.itemId,
    fields: content.fields,
    extra: content.extra,
    validFrom: now,
    validTo: null,
    isCurrent: true,
    isDeleted: deleted,
    contentHash: content.contentHash,
  });
  /** A current version kept: only its directory name follows the directory's. */
  const keep = (row: ContactRow): ContactRow => {
    if (row.directoryName === input.directory.name) return row;
    changed = true;
    return { ...row, directoryName: input.directory.name };
  };
  const close = (row: ContactRow): ContactRow => {
    if (row.validFrom >= now) {
      throw new ContactHistoryError(
        `Item ${row.itemId}: its current version is from ${new Date(row.validFrom).toISOString()}, not before the sync at ${input.now.toISOString()}: it cannot be closed then`,
      );
    }
    counts.closed++;
    changed = true;
    return { ...row, validTo: now, isCurrent: false };
  };

  for (const [itemId, { closed, current }] of history) {
    rows.push(...closed);
    const content = listing.get(itemId);
    if (content === undefined) {
      if (current.isDeleted) {
        rows.push(keep(current));
        continue;
      }
      rows.push(close(current), open(current, true));
      counts.deletions++;
    } else if (!current.isDeleted && current.contentHash === content.contentHash) {
      counts.unchanged++;
      rows.push(keep(current));
    } else {
      rows.push(close(current), open(content, false));
      counts.newVersions++;
    }
  }
  for (const [itemId, content] of listing) {
    if (history.has(itemId)) continue;
    rows.push(open(content, false));
    counts.newVersions++;
    changed = true;
  }
  rows.sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : a.validFrom - b.validFrom));
  return { rows, counts, changed };
}

/** The partition's versions per item: the closed ones and the one current, checked. */
function historyByItem(
  input: DirectorySyncInput,
): Map<string, { closed: ContactRow[]; current: ContactRow }> {
  const now = input.now.getTime();
  const byItem = new Map<string, { closed: ContactRow[]; current: ContactRow[] }>();
  for (const row of input.current) {
    if (row.tenant !== input.tenant || row.directoryId !== input.directory.id) {
      throw new ContactHistoryError(
        `The partition of tenant ${input.tenant}, directory ${input.directory.id} holds a row of tenant ${row.tenant}, directory ${row.directoryId}`,
      );
    }
    const latest = Math.max(row.validFrom, row.validTo ?? row.validFrom);
    if (latest > now) {
      throw new ContactHistoryError(
        `Item ${row.itemId} has a version from ${new Date(latest).toISOString()}, after the sync at ${input.now.toISOString()}: a clock gone back, or an older sync run again`,
      );
    }
    if (row.isCurrent !== (row.validTo === null)) {
      throw new ContactHistoryError(
        `Item ${row.itemId}: its version from ${new Date(row.validFrom).toISOString()} is ${row.isCurrent ? 'current with a valid_to' : 'closed without a valid_to'}`,
      );
    }
    let entry = byItem.get(row.itemId);
    if (entry === undefined) {
      entry = { closed: [], current: [] };
      byItem.set(row.itemId, entry);
    }
    (row.isCurrent ? entry.current : entry.closed).push(row);
  }
  const out = new Map<string, { closed: ContactRow[]; current: ContactRow }>();
  for (const [itemId, { closed, current }] of byItem) {
    if (current.length !== 1) {
      throw new ContactHistoryError(`Item ${itemId} has ${current.length} current versions, not one`);
    }
    out.set(itemId, { closed, current: current[0] as ContactRow });
  }
  return out;
}

/** The listed items' content by id; an id listed twice is refused. */
function listingById(input: DirectorySyncInput): Map<string, ContactContent> {
  const omit = input.omit ?? new Set<OmittableField>();
  const out = new Map<string, ContactContent>();
  for (const item of input.items) {
    const content = contactContent(item, omit);
    if (out.has(content.itemId)) {
      throw new RowConversionError(
        EXPORT_ERROR_CODES.rowInvalid,
        `Directory ${input.directory.id}: item ${content.itemId} is listed twice`,
      );
    }
    out.set(content.itemId, content);
  }
  return out;
}
