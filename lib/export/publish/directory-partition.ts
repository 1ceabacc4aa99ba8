import { directoryLiveFiles, type IcebergTable, keyOf, type LoadedTable } from '../table';

/** A directory's partition of a contact table as its current snapshot holds it. */
export interface PartitionState {
  /** Its live files, by key (sorted). */
  files: { key: string; rows: number; bytes: number }[];
  keys: string[];
}

/** The live files of (tenant, directory) in the loaded table (none before the first commit). */
export async function partitionFiles(
  table: IcebergTable,
  loaded: LoadedTable,
  tenant: string | undefined,
  directoryId: string,
): Promise<PartitionState> {
  const live = await directoryLiveFiles(loaded, tenant, directoryId);
  const files = live
    .map((f) => ({
      key: keyOf(table.location, f.file_path),
      rows: Number(f.record_count),
      bytes: Number(f.file_size_in_bytes),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { files, keys: files.map((f) => f.key) };
}
