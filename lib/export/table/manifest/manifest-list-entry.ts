import {
  ENTRY_STATUS,
  type IcebergSchema,
  type ManifestEntry,
  type ManifestFile,
  type PartitionSpec,
} from '../metadata/types';
import { partitionSummaries } from './partition-values';

export const sum = (values: Iterable<bigint>): bigint => {
  let total = 0n;
  for (const v of values) total += v;
  return total;
};

/**
 * A manifest list's record of a manifest this snapshot wrote: its counts and partition
 * summaries from its entries; its min sequence number the least data sequence number of its
 * live entries (an ADDED entry's is the snapshot's own).
 */
export function listEntry(
  file: { uri: string; length: number },
  entries: readonly ManifestEntry[],
  snapshot: { spec: PartitionSpec; schema: IcebergSchema; id: bigint; seq: bigint },
): ManifestFile {
  const { spec, schema, id, seq } = snapshot;
  const of = (status: number) => entries.filter((e) => e.status === status);
  const rows = (some: ManifestEntry[]) => sum(some.map((e) => e.data_file.record_count));
  const added = of(ENTRY_STATUS.added);
  const existing = of(ENTRY_STATUS.existing);
  const gone = of(ENTRY_STATUS.deleted);
  return {
    manifest_path: file.uri,
    manifest_length: BigInt(file.length),
    partition_spec_id: spec['spec-id'],
    content: 0,
    sequence_number: seq,
    min_sequence_number: [...added, ...existing].reduce((min, e) => {
      const s = e.sequence_number ?? seq;
      return s < min ? s : min;
    }, seq),
    added_snapshot_id: id,
    added_files_count: added.length,
    existing_files_count: existing.length,
    deleted_files_count: gone.length,
    added_rows_count: rows(added),
    existing_rows_count: rows(existing),
    deleted_rows_count: rows(gone),
    partitions: partitionSummaries(spec, entries, schema),
    key_metadata: null,
  };
}
