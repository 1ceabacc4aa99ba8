import { ExportConfigError } from '../../errors';
import { tableIo } from '../manifest/manifest-io';
import { currentSnapshot } from '../metadata/metadata';
import { checkPartitioning, checkTenancy } from '../metadata/tenancy';
import { type DataFile, isDirectoryPartition } from '../metadata/types';
import { snapshotFiles } from '../snapshot/history';
import type { Overwrite } from '../snapshot/overwrite';
import {
  checkDirectoryId,
  type DirectoriesOverwrite,
  directoriesPlan,
} from '../snapshot/replace-directories';
import { commitSnapshot, type OverwriteResult } from './commit';
import type { CommitOptions } from './commit-loop';
import { type IcebergTable, type LoadedTable, tableName } from './table';

/**
 * Replaces the tenant's directories `change.directories` of a directory table (`contacts`,
 * `contact_phones`) with their files in ONE `overwrite` snapshot: each listed (tenant,
 * directory_id) partition holds exactly its files afterwards (`files: []` empties it), and
 * every other partition (another tenant's, another directory's) keeps its live files. The
 * same producer and compare-and-swap loop as commitOverwrite (commitSnapshot): a conflict
 * re-plans onto the table as it then is, an unknown outcome is looked for by the commit id,
 * so a change never lands twice. Refuses (ExportConfigError naming the file) a file not
 * directly under its partition's `directoryDataPrefix`, a directory or file listed twice, an
 * empty list; (TableInvalidError) a report table, or the other tenancy (checkTenancy).
 *
 * @example
 * await commitDirectoriesOverwrite(lakeTable(lake, 'contacts'), {
 *   tenant: 'acme',
 *   directories: [{ directoryId: 'd1', files: [{ key: `${directoryDataPrefix(key, 'acme', 'd1')}/run-1.parquet`, rows: 40, bytes: 9_000 }] }],
 *   summary: { 'report-export.run-id': runId },
 * });
 */
export async function commitDirectoriesOverwrite(
  t: IcebergTable,
  change: DirectoriesOverwrite,
  options: CommitOptions = {},
): Promise<OverwriteResult> {
  const planned = directoriesPlan(t.location, change);
  const overwrite: Overwrite = {
    mayDelete: planned.mayHold,
    deletes: ({ data_file: { partition } }) => planned.replaces(partition),
    adds: planned.adds,
    summary: change.summary,
  };
  return await commitSnapshot(
    t,
    async (current) => {
      checkPartitioning(current.metadata, 'directory', tableName(t));
      checkTenancy(current.metadata, change.tenant, tableName(t));
      return overwrite;
    },
    directoriesWhat(t, change),
    options,
  );
}

/** Names a change in errors: `the overwrite of directories d1, d2 of tenant acme in table contacts`. */
function directoriesWhat(t: IcebergTable, change: DirectoriesOverwrite): string {
  const ids = change.directories.map((d) => d.directoryId);
  const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
  const of = change.tenant === undefined ? '' : ` of tenant ${change.tenant}`;
  return `the overwrite of director${ids.length === 1 ? 'y' : 'ies'} ${shown}${of} in table ${tableName(t)}`;
}

/**
 * The live data files of the (tenant, directory) partition in the loaded table's current
 * snapshot (none before its first snapshot), as its manifests hold them: what a sync reads
 * back and replaces. Reads the manifests through the table `loaded` was read from (loadTable,
 * ensureTable and the commits record it), or `table` when given. Refuses a report table.
 */
export async function directoryLiveFiles(
  loaded: LoadedTable,
  tenant: string | undefined,
  directoryId: string,
  table: IcebergTable | undefined = loaded.table,
): Promise<DataFile[]> {
  if (table === undefined) {
    throw new ExportConfigError(
      `The loaded table at ${loaded.metadata.location} does not say where it was read from: load it with loadTable or ensureTable, or pass the table`,
    );
  }
  checkDirectoryId(directoryId);
  checkPartitioning(loaded.metadata, 'directory', tableName(table));
  checkTenancy(loaded.metadata, tenant, tableName(table));
  const snapshot = currentSnapshot(loaded.metadata);
  if (snapshot === undefined) return [];
  const files = await snapshotFiles(tableIo(table.location), snapshot);
  return files.filter(
    ({ partition: p }) => isDirectoryPartition(p) && p.tenant === tenant && p.directory_id === directoryId,
  );
}
