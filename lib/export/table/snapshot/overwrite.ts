import { randomBytes, randomUUID } from 'node:crypto';
import { TableInvalidError } from '../../errors';
import { encodeManifest, encodeManifestList, partitionKey } from '../manifest/manifest-codec';
import {
  deleteWritten,
  discardWritten,
  readManifest,
  readManifestList,
  type TableIo,
  writeTableFile,
} from '../manifest/manifest-io';
import { listEntry, sum } from '../manifest/manifest-list-entry';
import { manifestMergePolicy, mergeManifests } from '../manifest/manifest-merge';
import { currentSchema, currentSnapshot, nextMetadata, withSnapshot } from '../metadata/metadata';
import { snapshotIdToLong } from '../metadata/metadata-json';
import type { LoadedTable } from '../metadata/table-ref';
import { ourSpec } from '../metadata/tenancy';
import {
  type DataFile,
  ENTRY_STATUS,
  type ManifestEntry,
  type ManifestFile,
  type Snapshot,
  type TableMetadata,
} from '../metadata/types';

/** What an `overwrite` snapshot changes: which live files it deletes, which it adds. */
export interface Overwrite {
  /**
   * False when no live file of `manifest` can be deleted (judged by its partition
   * summaries): the manifest is carried over without being read.
   */
  mayDelete(manifest: ManifestFile): boolean;
  /** Whether a live entry is deleted. */
  deletes(entry: ManifestEntry): boolean;
  /** The files added (ADDED entries of one new manifest). */
  adds: DataFile[];
  /** Summary values of ours (`report-export.*`), the commit id included. */
  summary: Record<string, string>;
}

/** What a built snapshot changed. */
export interface OverwriteCounts {
  addedFiles: number;
  deletedFiles: number;
  addedRows: number;
  deletedRows: number;
}

/** A positive snapshot id no snapshot of the table has: 53 random bits (exact in JSON). */
function newSnapshotId(metadata: TableMetadata): number {
  for (;;) {
    const id = Number(randomBytes(8).readBigUInt64BE() & ((1n << 53n) - 1n));
    if (id > 0 && !metadata.snapshots.some((s) => s['snapshot-id'] === id)) return id;
  }
}

const isLive = (e: ManifestEntry): boolean => e.status !== ENTRY_STATUS.deleted;

/**
 * Builds one `overwrite` snapshot of `current` and writes its manifests and manifest list
 * (recorded in `io.written`): every manifest with a live file the change deletes is
 * rewritten (those entries DELETED, the others EXISTING with their own snapshot id and
 * sequence numbers), manifests without live files are dropped, the others carried over
 * unchanged, and one new manifest holds the ADDED files. When the list then holds enough
 * manifests (the table's `commit.manifest.*` properties), the small ones are merged
 * (manifest-merge.ts). Resolves with the new metadata; commits nothing.
 *
 * The one producer of our snapshots (pyiceberg's `_OverwriteFiles`): a run's partitions
 * replaced (replace-partitions.ts), a grouped commit's batch, a rollback's file set restored
 * (restore.ts) all come here, run again on each attempt of the commit (commitSnapshot).
 */
export async function produceOverwrite(
  io: TableIo,
  current: LoadedTable,
  change: Overwrite,
  nowMs: number,
): Promise<{ metadata: TableMetadata; snapshot: Snapshot; counts: OverwriteCounts }> {
  const base = current.metadata;
  const spec = ourSpec(base);
  const schema = currentSchema(base, base.location);
  const parent = currentSnapshot(base);
  const snapshotId = newSnapshotId(base);
  const id = snapshotIdToLong(snapshotId);
  const sequenceNumber = base['last-sequence-number'] + 1;
  const seq = BigInt(sequenceNumber);
  const commitUuid = randomUUID();
  let written = 0;
  const write = async (entries: ManifestEntry[]): Promise<ManifestFile> => {
    const file = await writeTableFile(
      io,
      `${commitUuid}-m${written++}.avro`,
      encodeManifest({ schema, spec, entries }),
    );
    return listEntry(file, entries, { spec, schema, id, seq });
  };

  const kept: ManifestFile[] = [];
  const rewritten: ManifestFile[] = [];
  const deleted: DataFile[] = [];
  let parentManifests = 0;
  try {
    for (const manifest of parent === undefined ? [] : await readManifestList(io, parent)) {
      parentManifests++;
      if (manifest.partition_spec_id !== spec['spec-id']) {
        throw new TableInvalidError(
          `Table ${base.location}: the manifest ${manifest.manifest_path} has partition spec ${manifest.partition_spec_id}, not ${spec['spec-id']}`,
        );
      }
      if (manifest.added_files_count + manifest.existing_files_count === 0) continue;
      if (!change.mayDelete(manifest)) {
        kept.push(manifest);
        continue;
      }
      const live = (await readManifest(io, manifest)).filter(isLive);
      const gone = new Set(live.filter((e) => change.deletes(e)));
      if (gone.size === 0) {
        kept.push(manifest);
        continue;
      }
      const entries = live.map(
        (e): ManifestEntry =>
          gone.has(e)
            ? { ...e, status: ENTRY_STATUS.deleted, snapshot_id: id }
            : { ...e, status: ENTRY_STATUS.existing },
      );
      for (const e of gone) deleted.push(e.data_file);
      rewritten.push(await write(entries));
    }
    const added: ManifestFile[] = [];
    if (change.adds.length > 0) {
      const entries = change.adds.map(
        (data_file): ManifestEntry => ({
          status: ENTRY_STATUS.added,
          snapshot_id: id,
          sequence_number: null,
          file_sequence_number: null,
          data_file,
        }),
      );
      added.push(await write(entries));
    }
    const merge = await mergeManifests(
      io,
      [...added, ...rewritten, ...kept],
      manifestMergePolicy(base.properties),
      id,
      write,
    );
    const manifests = merge.manifests;
    // This attempt's manifests merged away were never listed: nothing else would delete them.
    const ours = new Set([...added, ...rewritten]);
    await discardWritten(
      io,
      merge.replaced.filter((m) => ours.has(m)).map((m) => m.manifest_path),
    );
    const created = manifests.filter((m) => m.added_snapshot_id === id).length;
    const manifestCounts = {
      'manifests-created': String(created),
      'manifests-kept': String(manifests.length - created),
      'manifests-replaced': String(parentManifests - (manifests.length - created)),
    };
    const list = await writeTableFile(
      io,
      `snap-${snapshotId}-1-${commitUuid}.avro`,
      encodeManifestList({
        snapshotId: id,
        parentSnapshotId: parent === undefined ? null : snapshotIdToLong(parent['snapshot-id']),
        sequenceNumber: seq,
        manifests,
      }),
    );
    const lastLogged = base['snapshot-log'].at(-1)?.['timestamp-ms'] ?? 0;
    const timestampMs = Math.max(nowMs, lastLogged + 1);
    const counts: OverwriteCounts = {
      addedFiles: change.adds.length,
      deletedFiles: deleted.length,
      addedRows: Number(sum(change.adds.map((f) => f.record_count))),
      deletedRows: Number(sum(deleted.map((f) => f.record_count))),
    };
    const snapshot: Snapshot = {
      'snapshot-id': snapshotId,
      ...(parent === undefined ? {} : { 'parent-snapshot-id': parent['snapshot-id'] }),
      'sequence-number': sequenceNumber,
      'timestamp-ms': timestampMs,
      'manifest-list': list.uri,
      // The caller's values first: they never override the operation or the totals.
      summary: {
        ...change.summary,
        operation: 'overwrite',
        ...snapshotSummary(parent, manifests, change.adds, deleted, counts),
        ...manifestCounts,
      },
      'schema-id': schema['schema-id'],
    };
    const metadata = nextMetadata(base, current.base.metadataLocation, timestampMs, (next) =>
      withSnapshot(next, snapshot),
    );
    return { metadata, snapshot, counts };
  } catch (error) {
    await deleteWritten(io);
    throw error;
  }
}

/** The spec's summary metrics: what changed, and the totals of the snapshot (from its manifest list). */
function snapshotSummary(
  parent: Snapshot | undefined,
  manifests: ManifestFile[],
  adds: DataFile[],
  deleted: DataFile[],
  counts: OverwriteCounts,
): Record<string, string> {
  const addedSize = sum(adds.map((f) => f.file_size_in_bytes));
  const removedSize = sum(deleted.map((f) => f.file_size_in_bytes));
  const partitions = new Set([...adds, ...deleted].map((f) => partitionKey(f.partition)));
  const previousSize = parent === undefined ? '0' : parent.summary['total-files-size'];
  return {
    'added-data-files': String(counts.addedFiles),
    'deleted-data-files': String(counts.deletedFiles),
    'added-records': String(counts.addedRows),
    'deleted-records': String(counts.deletedRows),
    'added-files-size': String(addedSize),
    'removed-files-size': String(removedSize),
    'changed-partition-count': String(partitions.size),
    'total-records': String(sum(manifests.map((m) => m.added_rows_count + m.existing_rows_count))),
    // Sizes of files carried over are not in the manifest list: only a parent's total gives them.
    ...(previousSize === undefined || !/^\d+$/.test(previousSize)
      ? {}
      : { 'total-files-size': String(BigInt(previousSize) + addedSize - removedSize) }),
    'total-data-files': String(
      manifests.reduce((n, m) => n + m.added_files_count + m.existing_files_count, 0),
    ),
    'total-delete-files': '0',
    'total-position-deletes': '0',
    'total-equality-deletes': '0',
  };
}
