import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../command-line';
import {
  type AsOf,
  CONTACT_DATASETS,
  type ContactDataset,
  DATASETS,
  type Dataset,
  type IcebergSchema,
  type IcebergTable,
  type LakeTablesLocation,
  type LiveFile,
  lakeTable,
  liveFiles,
  loadTable,
  resolveSnapshot,
  type Snapshot,
  type TableMetadata,
} from '../../export';
import { fileCatalogOf, LocalDirectoryStore, type ObjectStore } from '../../stores';

/** Where a lake's tables are: the store and key prefix of the lake, and the catalog that names them. */
/** The file catalog's tables of a lake in `store` under `prefix` (what `npm start` and `run --out` write). */
export function fileLakeTables(store: ObjectStore, prefix: string): LakeTablesLocation {
  return { store, prefix, catalog: fileCatalogOf({ store, prefix }), namespace: '' };
}

/** A local lake directory's tables: the file catalog over the directory. */
export function localLakeTables(dir: string): LakeTablesLocation {
  return fileLakeTables(new LocalDirectoryStore(dir), '');
}

/** A table of the lake: a report dataset's, or a contact directory table (no `dt`, partitioned by directory). */
export type LakeTableName = Dataset | ContactDataset;

/** Whether the local lake has `dataset`'s table: its `tables/<dataset>/metadata/` folder. */
export async function hasLocalTable(dir: string, dataset: LakeTableName): Promise<boolean> {
  const stat = await fs.stat(path.join(dir, 'tables', dataset, 'metadata')).catch(() => undefined);
  return stat?.isDirectory() === true;
}

/** What a dataset's table reads at a point of its history. */
export interface TableRead {
  dataset: LakeTableName;
  /** The snapshot read; undefined: the table had none then (it reads as empty). */
  snapshot: Snapshot | undefined;
  /** The table's columns then: the current schema, or with `asOf` the snapshot's (the current one without a snapshot). */
  schema: IcebergSchema;
  /** The snapshot's data files. */
  files: LiveFile[];
}

/**
 * A point of the lake's history that is not there: a snapshot id no table has (an expired
 * one, or another lake's; the message counts each table's snapshots and says how to list
 * them), or any point of a lake without tables (the Hive layout keeps no history).
 */
export class LakeHistoryError extends Error {
  override readonly name = 'LakeHistoryError';
  readonly code = 'CLI_LAKE_HISTORY';
}

/**
 * A lake directory moved or copied elsewhere: its tables' metadata name every file by the
 * absolute URI of the place it was written (`file:///old/lake/tables/calls/...`), which a
 * reader here must not follow out of the directory. Exit 2, naming the old place and the
 * remedy, rather than a table that "names a file outside it".
 */
export class MovedLakeError extends ConfigError {
  override readonly name = 'MovedLakeError';
}

/** Refuses a table whose metadata was written at another location (see {@link MovedLakeError}). */
function checkNotMoved(table: IcebergTable, metadata: TableMetadata, dataset: LakeTableName): void {
  const here = table.location.uri;
  const written = metadata.location;
  if (written === here || !written.startsWith('file:') || !here.startsWith('file:')) return;
  const suffix = `/tables/${dataset}`;
  const root = (uri: string) => fileURLToPath(uri.endsWith(suffix) ? uri.slice(0, -suffix.length) : uri);
  const [from, to] = [root(written), root(here)];
  throw new MovedLakeError(
    `the lake at ${to} was moved or copied from ${from}: its tables' metadata name their files by absolute file:// URIs under ${from}, which this directory is not; read it at its old place (move it back, or ln -s ${to} ${from} and pass --dir ${from}), or export into ${to} afresh`,
  );
}

/** The snapshot current at `timestampMs` (the snapshot log's last entry at or before it); undefined before the first. */
function snapshotAt(metadata: TableMetadata, timestampMs: number): Snapshot | undefined {
  const entry = metadata['snapshot-log'].findLast((e) => e['timestamp-ms'] <= timestampMs);
  return entry === undefined ? undefined : resolveSnapshot(metadata, { snapshotId: entry['snapshot-id'] });
}

const hasSnapshot = (metadata: TableMetadata, id: number | string) =>
  metadata.snapshots.some((s) => String(s['snapshot-id']) === String(id));

/**
 * The snapshot of each loaded table `asOf` names. A snapshot id belongs to one table: that
 * table reads it, and every other table reads the snapshot that was current at its
 * timestamp (the lake as it was when that snapshot was committed). A time reads each
 * table's snapshot current then. A table with no snapshot at that point reads as empty.
 */
function snapshotsAsOf(
  loaded: readonly { dataset: LakeTableName; metadata: TableMetadata }[],
  asOf: AsOf | undefined,
  listHint: string,
): (Snapshot | undefined)[] {
  if (asOf === undefined) {
    return loaded.map(({ metadata }) => {
      const id = metadata['current-snapshot-id'];
      return id === null ? undefined : resolveSnapshot(metadata, { snapshotId: id });
    });
  }
  if ('timestampMs' in asOf) return loaded.map(({ metadata }) => snapshotAt(metadata, asOf.timestampMs));
  const owner = loaded.find(({ metadata }) => hasSnapshot(metadata, asOf.snapshotId));
  if (owner === undefined) {
    const counts = loaded.map(({ dataset, metadata }) => `${dataset} has ${metadata.snapshots.length}`);
    throw new LakeHistoryError(
      `no table has snapshot ${asOf.snapshotId} (${counts.length === 0 ? 'the lake has no table' : counts.join(', ')}; an expired snapshot is gone); list them: ${listHint}`,
    );
  }
  const at = resolveSnapshot(owner.metadata, asOf)['timestamp-ms'];
  return loaded.map(({ dataset, metadata }) =>
    dataset === owner.dataset ? resolveSnapshot(metadata, asOf) : snapshotAt(metadata, at),
  );
}

/**
 * What each of `datasets`' tables reads: the current snapshot, or the one `asOf` names
 * (see snapshotsAsOf), with its data files (`liveFiles`) and schema. A dataset without a
 * table is left out. `listHint` is the command that lists the snapshots, for the error of
 * an unknown id.
 */
export async function readTables(
  lake: LakeTablesLocation,
  datasets: readonly LakeTableName[],
  options: { asOf?: AsOf | undefined; listHint: string },
): Promise<TableRead[]> {
  const loaded: { dataset: LakeTableName; table: IcebergTable; metadata: TableMetadata }[] = [];
  for (const dataset of datasets) {
    const table = lakeTable(lake, dataset);
    const state = await loadTable(table);
    if (state !== undefined) checkNotMoved(table, state.metadata, dataset);
    if (state !== undefined) loaded.push({ dataset, table, metadata: state.metadata });
  }
  const snapshots = snapshotsAsOf(loaded, options.asOf, options.listHint);
  return await Promise.all(
    loaded.map(async ({ dataset, table, metadata }, i) => {
      const snapshot = snapshots[i];
      // The current state reads with the current schema (a rename is a schema-only commit,
      // after the current snapshot); a point of the history with the schema it had then.
      const schemaId =
        options.asOf === undefined
          ? metadata['current-schema-id']
          : (snapshot?.['schema-id'] ?? metadata['current-schema-id']);
      const schema =
        metadata.schemas.find((s) => s['schema-id'] === schemaId) ??
        (metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']) as IcebergSchema);
      if (snapshot === undefined) return { dataset, snapshot, schema, files: [] };
      const { files } = await liveFiles(table, { snapshotId: snapshot['snapshot-id'] });
      return { dataset, snapshot, schema, files };
    }),
  );
}

/** Every dataset, in the order the lake's views are made. */
export const LAKE_DATASETS: readonly Dataset[] = Object.values(DATASETS);

/** The contact directories' tables (issue 29), after the report datasets'. */
export const CONTACT_TABLES: readonly ContactDataset[] = Object.values(CONTACT_DATASETS);

/** A partition of a table's current snapshot: its rows and data files. */
export interface LivePartition {
  rows: number;
  files: number;
}

/** A partition's key in {@link livePartitions}' map: `<report id>/<dt>`, under `<tenant>/` in a multi-tenant lake. */
export function livePartitionKey(tenant: string | undefined, reportId: string, dt: string): string {
  return `${tenant === undefined ? '' : `${tenant}/`}${reportId}/${dt}`;
}

/**
 * The partitions of `dataset`'s table at its current snapshot, by {@link livePartitionKey};
 * undefined when the lake has no such table (the Hive layout).
 */
export async function livePartitions(
  lake: LakeTablesLocation,
  dataset: Dataset,
): Promise<Map<string, LivePartition> | undefined> {
  const [read] = await readTables(lake, [dataset], { listHint: '' });
  if (read === undefined) return undefined;
  const partitions = new Map<string, LivePartition>();
  for (const f of read.files) {
    const key = livePartitionKey(f.tenant, f.reportId, f.dt);
    const p = partitions.get(key) ?? { rows: 0, files: 0 };
    partitions.set(key, { rows: p.rows + f.rows, files: p.files + 1 });
  }
  return partitions;
}
