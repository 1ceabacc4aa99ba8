import { ENTRY_STATUS, type ManifestEntry, type ManifestFile } from '../metadata/types';
import { forEachManifest, type TableIo } from './manifest-io';

/**
 * Manifest merging on commit, as Iceberg's own writers do it (the table properties and
 * defaults are Iceberg's): without it every commit adds a manifest to the list and a table
 * committed nightly for years lists thousands, each commit reading, decoding and rewriting
 * them all.
 */

/** Table properties of manifest merging (Iceberg's names). */
export const MANIFEST_MERGE_ENABLED = 'commit.manifest-merge.enabled';
export const MANIFEST_MIN_COUNT_TO_MERGE = 'commit.manifest.min-count-to-merge';
export const MANIFEST_TARGET_SIZE_BYTES = 'commit.manifest.target-size-bytes';

/** When and how far a commit merges its snapshot's manifests. */
export interface ManifestMergePolicy {
  enabled: boolean;
  /** Merging starts when the snapshot lists at least this many manifests. */
  minCountToMerge: number;
  /** Manifests of at least this size are never merged; a merged manifest stays under it. */
  targetSizeBytes: number;
}

/** Iceberg's defaults: enabled, from 100 manifests, 8 MiB. */
export const MANIFEST_MERGE_DEFAULTS: ManifestMergePolicy = {
  enabled: true,
  minCountToMerge: 100,
  targetSizeBytes: 8 * 1024 * 1024,
};

/**
 * The merging the table's properties ask for; a property unset or not a number (positive for
 * the size) takes Iceberg's default, so a stray value set in the catalog never stops a commit.
 */
export function manifestMergePolicy(properties: Readonly<Record<string, string>>): ManifestMergePolicy {
  const integer = (name: string, fallback: number, least: number) => {
    const raw = properties[name];
    const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    return Number.isSafeInteger(value) && value >= least ? value : fallback;
  };
  return {
    enabled: properties[MANIFEST_MERGE_ENABLED]?.trim().toLowerCase() !== 'false',
    minCountToMerge: integer(MANIFEST_MIN_COUNT_TO_MERGE, MANIFEST_MERGE_DEFAULTS.minCountToMerge, 0),
    targetSizeBytes: integer(MANIFEST_TARGET_SIZE_BYTES, MANIFEST_MERGE_DEFAULTS.targetSizeBytes, 1),
  };
}

/**
 * The groups of manifests to merge, each into one: when the list holds at least
 * `minCountToMerge` manifests, those under the target size, packed first-fit (largest first)
 * into groups whose manifest lengths add up to at most the target (the lengths overestimate
 * the merged file: each counts its own header, and old DELETED entries are dropped). A
 * manifest alone in its group is left as it is. Members keep their order in the list.
 */
export function mergeGroups(
  manifests: readonly ManifestFile[],
  policy: ManifestMergePolicy,
): ManifestFile[][] {
  if (!policy.enabled || manifests.length < policy.minCountToMerge) return [];
  const target = BigInt(policy.targetSizeBytes);
  const small = manifests
    .map((manifest, index) => ({ manifest, index }))
    .filter(({ manifest }) => manifest.manifest_length < target)
    .sort((a, b) => Number(b.manifest.manifest_length - a.manifest.manifest_length) || a.index - b.index);
  const groups: { size: bigint; members: typeof small }[] = [];
  for (const m of small) {
    const group = groups.find((g) => g.size + m.manifest.manifest_length <= target);
    if (group === undefined) groups.push({ size: m.manifest.manifest_length, members: [m] });
    else {
      group.size += m.manifest.manifest_length;
      group.members.push(m);
    }
  }
  return groups
    .filter((g) => g.members.length > 1)
    .map((g) => g.members.sort((a, b) => a.index - b.index).map((m) => m.manifest));
}

/**
 * An entry as a merged manifest of snapshot `snapshotId` carries it: ADDED and DELETED by
 * this snapshot as they are (an ADDED entry inheriting this snapshot's sequence number), any
 * other live entry EXISTING with its own snapshot id and sequence numbers, and a DELETED entry
 * of an earlier snapshot dropped (the spec allows it: that snapshot's own list still has it).
 */
function carried(entry: ManifestEntry, snapshotId: bigint): ManifestEntry | undefined {
  const ours = entry.snapshot_id === snapshotId;
  if (entry.status === ENTRY_STATUS.deleted) return ours ? entry : undefined;
  if (entry.status === ENTRY_STATUS.added && ours) {
    return { ...entry, sequence_number: null, file_sequence_number: null };
  }
  return { ...entry, status: ENTRY_STATUS.existing };
}

/**
 * Merges the manifests of a new snapshot's list as `policy` says (see mergeGroups): each
 * group's entries (read one group at a time: no more is held than the manifests being
 * merged) written by `write` into one manifest of snapshot `snapshotId`. Resolves with the
 * list to write (merged manifests first, the others in their order) and the manifests merged
 * away; an unchanged list when there is nothing to merge.
 */
export async function mergeManifests(
  io: TableIo,
  manifests: readonly ManifestFile[],
  policy: ManifestMergePolicy,
  snapshotId: bigint,
  write: (entries: ManifestEntry[]) => Promise<ManifestFile>,
): Promise<{ manifests: ManifestFile[]; replaced: ManifestFile[] }> {
  const groups = mergeGroups(manifests, policy);
  const replaced = new Set(groups.flat());
  const merged: ManifestFile[] = [];
  for (const group of groups) {
    const entries: ManifestEntry[] = [];
    await forEachManifest(io, group, (read) => {
      for (const entry of read) {
        const kept = carried(entry, snapshotId);
        if (kept !== undefined) entries.push(kept);
      }
    });
    if (entries.length > 0) merged.push(await write(entries));
  }
  return {
    manifests: [...merged, ...manifests.filter((m) => !replaced.has(m))],
    replaced: [...replaced],
  };
}
