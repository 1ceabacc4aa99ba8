import type { RunRecord, RunRecordContacts } from '../../../workflow';
import { type LakeDatabase, sqlString } from '../../shared/lake-database';

/**
 * What `npm start` says of a tenant's contact directories: the run's sync (its run record's
 * `contacts`) and, read back from the lake, how many of the window's external calls the
 * `calls_with_contacts` view matched to a contact.
 */

/** A tenant's directories as this run synced them. */
export interface TenantContacts {
  /** The run record's status: synced, unchanged, partial, failed or skipped. */
  status: RunRecordContacts['status'];
  directories: number;
  /** Items the service listed, over the directories read. */
  items: number;
  newVersions: number;
  closedVersions: number;
  deletions: number;
  failed: number;
  held: number;
  /** The listing's error, else the first failed directory's: `Name: message`. */
  error: string | null;
}

/**
 * The sync of a tenant's run, from its run records (the chain's first execution syncs, its
 * continuations skip): null when no record synced the directories.
 */
export function tenantContacts(records: readonly RunRecord[]): TenantContacts | null {
  const synced = records.find((r) => r.contacts !== undefined && r.contacts.status !== 'skipped');
  if (synced === undefined) return null;
  const { status, directories, error } = synced.contacts;
  const sum = (pick: (d: RunRecordContacts['directories'][number]) => number) =>
    directories.reduce((n, d) => n + pick(d), 0);
  return {
    status,
    directories: directories.length,
    items: sum((d) => d.items),
    newVersions: sum((d) => d.newVersions),
    closedVersions: sum((d) => d.closedVersions),
    deletions: sum((d) => d.deletions),
    failed: directories.filter((d) => d.status === 'failed').length,
    held: directories.filter((d) => d.status === 'held').length,
    error: error === undefined ? null : `${error.name}: ${error.message}`,
  };
}

/** The window's external calls of a tenant and those a contact matched (calls_with_contacts). */
export interface ContactMatches {
  /** Distinct calls (conn_id) with an external number. */
  externalCalls: number;
  /** Of those, the calls the view gave a contact. */
  matched: number;
  /** matched / externalCalls; null without an external call. */
  share: number | null;
}

/**
 * How many of the window's external calls met a contact: distinct `conn_id`s of the
 * tenant's `calls_with_contacts` rows (a call is in several reports) whose external number
 * is known, and those with a contact. Undefined when the lake has no view (no calls' columns).
 */
export async function contactMatches(
  db: LakeDatabase,
  scope: { from: string; to: string; tenant: string; reportIds: readonly string[] },
): Promise<ContactMatches | undefined> {
  if (scope.reportIds.length === 0) return { externalCalls: 0, matched: 0, share: null };
  const views = await db.query(
    "SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE view_name = 'calls_with_contacts' AND schema_name = 'main'",
  );
  if (Number(views.rows[0]?.n ?? 0) === 0) return undefined;
  const answer = await db.query(`SELECT
      (count(DISTINCT conn_id) FILTER (WHERE external_number_e164 IS NOT NULL))::INTEGER AS external_calls,
      (count(DISTINCT conn_id) FILTER (WHERE contact_item_id IS NOT NULL))::INTEGER AS matched
    FROM calls_with_contacts
    WHERE dt BETWEEN ${sqlString(scope.from)} AND ${sqlString(scope.to)}
      AND tenant = ${sqlString(scope.tenant)}
      AND report_id IN (${scope.reportIds.map(sqlString).join(', ')})`);
  const externalCalls = Number(answer.rows[0]?.external_calls ?? 0);
  const matched = Number(answer.rows[0]?.matched ?? 0);
  return { externalCalls, matched, share: externalCalls === 0 ? null : matched / externalCalls };
}

/** The report's line of a tenant's contacts, e.g. `3 directories, 120 items; this run: 2 new versions, ...`. */
export function describeContacts(contacts: TenantContacts, matches: ContactMatches | undefined): string {
  const run =
    contacts.newVersions + contacts.closedVersions + contacts.deletions === 0
      ? 'no change since the last sync'
      : `this run wrote ${contacts.newVersions} new version(s), closed ${contacts.closedVersions}, ${contacts.deletions} deletion(s)`;
  const trouble = [
    ...(contacts.failed > 0 ? [`${contacts.failed} failed`] : []),
    ...(contacts.held > 0 ? [`${contacts.held} held by the shrink guard (--force-replace)`] : []),
  ];
  const matched =
    matches === undefined || matches.share === null
      ? ''
      : `; ${(matches.share * 100).toFixed(1)} % of ${matches.externalCalls} external calls matched a contact (calls_with_contacts)`;
  return `${contacts.directories} director${contacts.directories === 1 ? 'y' : 'ies'}, ${contacts.items} items (${contacts.status}); ${run}${trouble.length > 0 ? `; ${trouble.join(', ')}` : ''}${matched}`;
}
