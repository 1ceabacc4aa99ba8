import type { TableMetadata } from './types';

/** Iceberg's table properties of snapshot retention (what Glue's optimizer and Spark's expire read). */
export const MAX_SNAPSHOT_AGE_MS = 'history.expire.max-snapshot-age-ms';
export const MIN_SNAPSHOTS_TO_KEEP = 'history.expire.min-snapshots-to-keep';
/**
 * The lake's retention: what the stack's Glue optimizers are configured with (lib/infra) and
 * what a new table's properties say, so a local lake (the file catalog, whose commits apply
 * it: no optimizer runs there) keeps the same history as a deployed one.
 */
export const TABLE_RETENTION = {
  /** Snapshots older than this are expired: time travel reaches back this far. */
  snapshotRetentionDays: 7,
  /** Snapshots kept whatever their age (the current one at least). */
  snapshotsToRetain: 1,
  /** Files under a table that no snapshot names are deleted once this old (Glue's optimizer). */
  orphanFileRetentionDays: 3,
} as const;

/** TABLE_RETENTION as the table properties Iceberg's expiry (and Glue's optimizer) read. */
export const RETENTION_PROPERTIES: Readonly<Record<string, string>> = {
  [MAX_SNAPSHOT_AGE_MS]: String(TABLE_RETENTION.snapshotRetentionDays * 86_400_000),
  [MIN_SNAPSHOTS_TO_KEEP]: String(TABLE_RETENTION.snapshotsToRetain),
};

/** Iceberg's defaults of those properties: 5 days, 1 snapshot. */
const DEFAULT_MAX_SNAPSHOT_AGE_MS = 5 * 86_400_000;
const DEFAULT_MIN_SNAPSHOTS_TO_KEEP = 1;

/** The retention the table's properties ask for, at `nowMs`. */
export function tableRetention(
  metadata: TableMetadata,
  nowMs: number,
): { olderThanMs: number; retainLast: number } {
  const property = (name: string, fallback: number) => {
    const value = Number(metadata.properties[name]);
    return Number.isSafeInteger(value) && value >= 0 ? value : fallback;
  };
  return {
    olderThanMs: nowMs - property(MAX_SNAPSHOT_AGE_MS, DEFAULT_MAX_SNAPSHOT_AGE_MS),
    retainLast: property(MIN_SNAPSHOTS_TO_KEEP, DEFAULT_MIN_SNAPSHOTS_TO_KEEP),
  };
}

/**
 * The metadata without the snapshots a retention removes (the retention the stack's Glue
 * optimizer applies): snapshots older than `olderThanMs` go, except the current one and the
 * `retainLast` latest of its ancestry. The snapshot log keeps only what follows the last
 * entry removed (so "as of" a time never resolves to a snapshot that was not current then),
 * and refs to removed snapshots go. Only the metadata changes: the files of removed
 * snapshots are left to orphan-file deletion.
 */
export function expireSnapshots(
  metadata: TableMetadata,
  retention: { olderThanMs: number; retainLast: number },
): TableMetadata {
  const byId = new Map(metadata.snapshots.map((s) => [String(s['snapshot-id']), s]));
  const keep = new Set<string>();
  let cursor =
    metadata['current-snapshot-id'] === null ? undefined : byId.get(String(metadata['current-snapshot-id']));
  for (let kept = 0; cursor !== undefined && kept < Math.max(1, retention.retainLast); kept++) {
    keep.add(String(cursor['snapshot-id']));
    const parent = cursor['parent-snapshot-id'];
    cursor = parent === undefined ? undefined : byId.get(String(parent));
  }
  for (const s of metadata.snapshots)
    if (s['timestamp-ms'] >= retention.olderThanMs) keep.add(String(s['snapshot-id']));
  const next: TableMetadata = structuredClone(metadata);
  next.snapshots = next.snapshots.filter((s) => keep.has(String(s['snapshot-id'])));
  const log = next['snapshot-log'];
  const lastRemoved = log.findLastIndex((e) => !keep.has(String(e['snapshot-id'])));
  next['snapshot-log'] = log.slice(lastRemoved + 1);
  for (const [name, ref] of Object.entries(next.refs)) {
    if (!keep.has(String(ref['snapshot-id']))) delete next.refs[name];
  }
  return next;
}
