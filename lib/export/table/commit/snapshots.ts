import { ExportConfigError } from '../../errors';
import { daysToDate } from '../manifest/manifest-codec';
import { forEachManifest, readManifestList, type TableIo, tableIo } from '../manifest/manifest-io';
import { keyOf } from '../metadata/location';
import { type DataFile, ENTRY_STATUS, type Snapshot, type TableMetadata } from '../metadata/types';
import { currentSnapshot } from '../snapshot/snapshot-builder';
import { type CommitResult, commitSnapshot } from './commit';
import type { CommitOptions } from './commit-loop';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

/** A data file of a snapshot. */
export interface LiveFile {
  /** Its key in the table's store. */
  key: string;
  /** Its absolute URI, as the manifest names it. */
  uri: string;
  /** Its tenant (a multi-tenant lake's table); absent in a single-tenant lake's. */
  tenant?: string;
  reportId: string;
  /** Its partition day, `YYYY-MM-DD`. */
  dt: string;
  rows: number;
  bytes: number;
}

/** A point of the table's history: a snapshot by id, or the snapshot current at a time. */
export type AsOf = { snapshotId: number | string } | { timestampMs: number };

/** The table's snapshots, oldest first, and which one is current (none before the first commit or for a missing table). */
export async function listSnapshots(
  t: IcebergTable,
): Promise<{ snapshots: Snapshot[]; currentSnapshotId: number | null }> {
  const loaded = await loadTable(t);
  if (loaded === undefined) return { snapshots: [], currentSnapshotId: null };
  const snapshots = [...loaded.metadata.snapshots].sort(
    (a, b) => a['sequence-number'] - b['sequence-number'],
  );
  return { snapshots, currentSnapshotId: loaded.metadata['current-snapshot-id'] };
}

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
    reportId: f.partition.report_id,
    dt: daysToDate(f.partition.dt),
    rows: Number(f.record_count),
    bytes: Number(f.file_size_in_bytes),
  };
}

/**
 * The data files of the current snapshot (or of `asOf`): what a reader of the table reads.
 * No files (and no snapshot) for a table that does not exist or has no snapshot yet.
 */
export async function liveFiles(
  t: IcebergTable,
  asOf?: AsOf,
): Promise<{ snapshot: Snapshot | undefined; files: LiveFile[] }> {
  const io = tableIo(t.location);
  const loaded = await loadTable(t, io);
  if (loaded === undefined && asOf !== undefined) {
    throw new ExportConfigError(`Table ${tableName(t)} does not exist (at ${t.location.uri})`);
  }
  if (loaded === undefined) return { snapshot: undefined, files: [] };
  const snapshot =
    asOf === undefined ? currentSnapshot(loaded.metadata) : resolveSnapshot(loaded.metadata, asOf);
  if (snapshot === undefined) return { snapshot: undefined, files: [] };
  return { snapshot, files: (await snapshotFiles(io, snapshot)).map((f) => liveFile(io, f)) };
}

/**
 * Rolls the table back to snapshot `snapshotId`: a NEW overwrite snapshot whose live files
 * are the target's (files since added are deleted, files since deleted are added again), so
 * the history up to now stays readable. `summary` names who rolled back.
 */
export async function rollbackTo(
  t: IcebergTable,
  snapshotId: number | string,
  summary: Record<string, string>,
  options: CommitOptions = {},
): Promise<CommitResult> {
  let target: Map<string, DataFile> | undefined;
  const plan = async (current: LoadedTable, io: TableIo) => {
    if (target === undefined) {
      const files = await snapshotFiles(io, resolveSnapshot(current.metadata, { snapshotId }));
      target = new Map(files.map((f) => [f.file_path, f]));
    }
    const want = target;
    const now = currentSnapshot(current.metadata);
    const live = new Set((now === undefined ? [] : await snapshotFiles(io, now)).map((f) => f.file_path));
    return {
      mayDelete: () => true,
      deletes: (entry: { data_file: DataFile }) => !want.has(entry.data_file.file_path),
      adds: [...want.values()].filter((f) => !live.has(f.file_path)),
      summary: { ...summary, 'report-export.rollback-to': String(snapshotId) },
    };
  };
  return await commitSnapshot(
    t,
    plan,
    `the rollback of table ${tableName(t)} to snapshot ${snapshotId}`,
    options,
  );
}
