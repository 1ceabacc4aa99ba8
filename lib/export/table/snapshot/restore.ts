import type { TableIo } from '../manifest/manifest-io';
import { currentSnapshot } from '../metadata/metadata';
import type { DataFile, PartitionValue, TableMetadata } from '../metadata/types';
import { snapshotFiles } from './history';
import type { Overwrite } from './overwrite';

/** Summary key of a rollback snapshot: the snapshot it restored (`none`: before the table's first). */
export const ROLLBACK_TO_KEY = 'report-export.rollback-to';

/**
 * The overwrite producer's input that makes the live files of a scope (`inScope` of a
 * partition: every partition for a whole table's rollback, one tenant's for a tenant's) the
 * files `restore` names, as the table `current` stands: the scope's live files not among them
 * are deleted, those of them not live are added again, every file out of the scope stays.
 * Read afresh each attempt, so a file another writer committed meanwhile is judged too.
 */
export async function restoreFiles(
  io: TableIo,
  current: TableMetadata,
  inScope: (partition: PartitionValue) => boolean,
  restore: readonly DataFile[],
): Promise<Omit<Overwrite, 'summary'>> {
  const want = new Set(restore.map((f) => f.file_path));
  const now = currentSnapshot(current);
  const live = new Set(
    (now === undefined ? [] : await snapshotFiles(io, now))
      .filter((f) => inScope(f.partition))
      .map((f) => f.file_path),
  );
  return {
    mayDelete: () => true,
    deletes: ({ data_file: f }) => inScope(f.partition) && !want.has(f.file_path),
    adds: restore.filter((f) => !live.has(f.file_path)),
  };
}
