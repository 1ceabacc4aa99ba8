import { ExportConfigError } from '../../errors';
import { type TableIo, tableIo } from '../manifest/manifest-io';
import { currentSnapshot } from '../metadata/metadata';
import type { DataFile, Snapshot } from '../metadata/types';
import { type AsOf, type LiveFile, liveFile, resolveSnapshot, snapshotFiles } from '../snapshot/history';
import { ROLLBACK_TO_KEY, restoreFiles } from '../snapshot/restore';
import { type CommitResult, commitSnapshot } from './commit';
import type { CommitOptions } from './commit-loop';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

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
  let target: DataFile[] | undefined;
  const plan = async (current: LoadedTable, io: TableIo) => {
    if (target === undefined) {
      const files = await snapshotFiles(io, resolveSnapshot(current.metadata, { snapshotId }));
      target = [...new Map(files.map((f) => [f.file_path, f])).values()];
    }
    return {
      ...(await restoreFiles(io, current.metadata, () => true, target)),
      summary: { ...summary, [ROLLBACK_TO_KEY]: String(snapshotId) },
    };
  };
  return await commitSnapshot(
    t,
    plan,
    `the rollback of table ${tableName(t)} to snapshot ${snapshotId}`,
    options,
  );
}
