import { ExportConfigError } from '../../errors';
import { daysToDate } from '../manifest/manifest-codec';
import { forEachManifest, readManifestList, type TableIo } from '../manifest/manifest-io';
import { keyOf } from '../metadata/location';
import { currentSnapshot } from '../metadata/metadata';
import {
  type DataFile,
  ENTRY_STATUS,
  isDirectoryPartition,
  type PartitionValue,
  type Snapshot,
  type TableMetadata,
} from '../metadata/types';

// A table's history as its metadata and manifests hold it (pyiceberg's table/snapshots.py):
// a snapshot by id or time, its live files, the snapshots that changed a tenant's partitions.

/** A data file of a snapshot. */
export interface LiveFile {
  /** Its key in the table's store. */
  key: string;
  /** Its absolute URI, as the manifest names it. */
  uri: string;
  /** Its tenant (a multi-tenant lake's table); absent in a single-tenant lake's. */
  tenant?: string;
  /** Its report (a report table's file); `''` in a directory table's, which has `directoryId`. */
  reportId: string;
  /** Its partition day, `YYYY-MM-DD` (a report table's file); `''` in a directory table's. */
  dt: string;
  /** Its directory: set for a directory table's file (`contacts`, `contact_phones`) only. */
  directoryId?: string;
  rows: number;
  bytes: number;
}

/** A point of the table's history: a snapshot by id, or the snapshot current at a time. */
export type AsOf = { snapshotId: number | string } | { timestampMs: number };

/**
 * The snapshot `asOf` names: by id, or the one current at `timestampMs` (the last entry of
 * the snapshot log at or before it). Refuses (ExportConfigError) a point the table has no
 * snapshot for: an unknown or expired id, a time before the first snapshot.
 */
export function resolveSnapshot(metadata: TableMetadata, asOf: AsOf): Snapshot {
  const byId = (id: number | string) =>
    metadata.snapshots.find((s) => String(s['snapshot-id']) === String(id));
  if ('snapshotId' in asOf) {
    const found = byId(asOf.snapshotId);
    if (found === undefined) {
      throw new ExportConfigError(
        `Table ${metadata.location} has no snapshot ${asOf.snapshotId} (it has ${metadata.snapshots.length}; an expired snapshot is gone)`,
      );
    }
    return found;
  }
  const entry = metadata['snapshot-log'].findLast((e) => e['timestamp-ms'] <= asOf.timestampMs);
  const found = entry === undefined ? undefined : byId(entry['snapshot-id']);
  if (found === undefined) {
    throw new ExportConfigError(
      `Table ${metadata.location} has no snapshot at ${new Date(asOf.timestampMs).toISOString()}: its history ${
        metadata['snapshot-log'].length === 0
          ? 'is empty'
          : `starts at ${new Date(metadata['snapshot-log'][0]?.['timestamp-ms'] ?? 0).toISOString()}`
      }`,
    );
  }
  return found;
}

/** The live data files of a snapshot, as the manifests hold them. */
export async function snapshotFiles(io: TableIo, snapshot: Snapshot): Promise<DataFile[]> {
  const files: DataFile[] = [];
  await forEachManifest(io, await readManifestList(io, snapshot), (entries) => {
    for (const e of entries) if (e.status !== ENTRY_STATUS.deleted) files.push(e.data_file);
  });
  return files;
}

/** A manifest's data file as a reader names it (its key, partition, counts). */
export function liveFile(io: TableIo, f: DataFile): LiveFile {
  return {
    key: keyOf(io.location, f.file_path),
    uri: f.file_path,
    ...(f.partition.tenant === undefined ? {} : { tenant: f.partition.tenant }),
    ...(isDirectoryPartition(f.partition)
      ? { reportId: '', dt: '', directoryId: f.partition.directory_id }
      : { reportId: f.partition.report_id, dt: daysToDate(f.partition.dt) }),
    rows: Number(f.record_count),
    bytes: Number(f.file_size_in_bytes),
  };
}

/**
 * The partitions of a rollback's scope: one tenant's, or (undefined) every one; of a report
 * table or a directory table alike (both name their tenant first).
 */
export const inScope = (tenant: string | undefined) => (p: PartitionValue) => p.tenant === tenant;

/**
 * The snapshots of the current ancestry after sequence number `after` that added or deleted
 * a file of the scope, oldest first. Only the manifests each snapshot wrote are read (its
 * ADDED and DELETED entries are there, with its id).
 */
export async function changedSince(
  io: TableIo,
  metadata: TableMetadata,
  after: number,
  tenant: string | undefined,
): Promise<Snapshot[]> {
  const scope = inScope(tenant);
  const changed: Snapshot[] = [];
  for (const s of ancestry(metadata).filter((s) => s['sequence-number'] > after)) {
    const id = BigInt(s['snapshot-id']);
    const own = (await readManifestList(io, s)).filter((m) => m.added_snapshot_id === id);
    let touched = false;
    await forEachManifest(io, own, (entries) => {
      touched ||= entries.some(
        (e) => e.status !== ENTRY_STATUS.existing && e.snapshot_id === id && scope(e.data_file.partition),
      );
    });
    if (touched) changed.push(s);
  }
  return changed;
}

/** The current snapshot and its ancestors, oldest first. */
function ancestry(metadata: TableMetadata): Snapshot[] {
  const byId = new Map(metadata.snapshots.map((s) => [String(s['snapshot-id']), s]));
  const out: Snapshot[] = [];
  for (let s = currentSnapshot(metadata); s !== undefined; ) {
    out.push(s);
    const parent = s['parent-snapshot-id'];
    s = parent == null ? undefined : byId.get(String(parent));
  }
  return out.reverse();
}
