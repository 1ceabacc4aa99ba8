import type { ObjectStore } from '../../stores';
import { EXPORT_ERROR_CODES, PublishError } from '../errors';
import { stagingArea } from '../layout';
import { DIRECTORY_DATASETS, type DirectoryDataset, readBounded } from '../table';
import {
  MAX_STAGED_RUN_BYTES,
  STAGED_RUN_CLOCK_SKEW_MS,
  STAGED_RUN_TTL_MS,
  StagedRunInvalid,
} from './staged-run';

// A staged directory sync: what a tenant's session (DirectorySyncDeps.mode 'defer') wrote
// for one directory (its partition's data files of both contact tables) and leaves for the
// committer (commit-staged-syncs.ts) to check and land. One JSON object per directory under
// the tenant's staging area, which only the tenant's session and the committer write.

/** The folder of the staged directory syncs in a staging area (never a run id: it starts with `_`). */
export const DIRECTORY_SYNCS_FOLDER = '_directory-syncs';
export const STAGED_DIRECTORY_SYNC_VERSION = 1;
/** A staged sync older than this is not committed (as a staged run: its execution failed). */
export const STAGED_DIRECTORY_SYNC_TTL_MS = STAGED_RUN_TTL_MS;
/** The datasets a staged sync writes, in the order they are committed. */
export const DIRECTORY_SYNC_DATASETS: readonly DirectorySyncDataset[] = Object.values(DIRECTORY_DATASETS);
export type DirectorySyncDataset = DirectoryDataset;

/** A data file as the session wrote it (rows and bytes as claimed: the committer reads them from the file). */
export interface StagedDataFile {
  key: string;
  rows: number;
  bytes: number;
}

/** One table's part of the sync: the partition's whole new content, and what it replaces. */
export interface StagedPartitionFiles {
  /** Every file of the partition after the sync ([] empties it). */
  files: StagedDataFile[];
  /**
   * The partition's live files the sync read (sorted keys): the committer lands it only while
   * the partition still holds exactly these, so a sync versioned on an older state never
   * replaces a newer one.
   */
  base: string[];
}

/** The staged directory sync object's body (`_directory-syncs/<runId>/<directoryId>.json`). */
export interface StagedDirectorySync {
  version: typeof STAGED_DIRECTORY_SYNC_VERSION;
  kind: 'directory-sync';
  tenant?: string;
  runId: string;
  directoryId: string;
  directoryName: string;
  /** When it was written (ISO 8601, the writer's clock). */
  createdAt: string;
  /** When the directory was read: the versions' valid_from / valid_to (ISO 8601). */
  syncedAt: string;
  counts: { items: number; newVersions: number; closedVersions: number; deletions: number; phones: number };
  /** A table the sync leaves as it is is absent (its content unchanged). */
  tables: Partial<Record<DirectorySyncDataset, StagedPartitionFiles>>;
}

/** What the committer is handed for one staged directory sync (the sync's outcome's `staged` is its key). */
export interface StagedDirectorySyncRef {
  key: string;
  directoryId: string;
  runId: string;
  tenant?: string;
}

/** An id that is one plain key segment: a run id, a directory id (the service's GUIDs). */
export const SEGMENT_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** `<prefix>/_staging/[tenant=<t>/]_directory-syncs/<runId>/<directoryId>.json`. */
export function stagedDirectorySyncKey(
  prefix: string,
  tenant: string | undefined,
  runId: string,
  directoryId: string,
): string {
  return `${stagingArea(prefix, tenant)}/${DIRECTORY_SYNCS_FOLDER}/${runId}/${directoryId}.json`;
}

/** Writes the staged sync object and returns its reference. */
export async function writeStagedDirectorySync(
  store: ObjectStore,
  prefix: string,
  sync: StagedDirectorySync,
): Promise<StagedDirectorySyncRef> {
  const key = stagedDirectorySyncKey(prefix, sync.tenant, sync.runId, sync.directoryId);
  try {
    await store.put(key, `${JSON.stringify(sync)}\n`, { contentType: 'application/json' });
  } catch (cause) {
    throw new PublishError(
      EXPORT_ERROR_CODES.stagingFailed,
      `Writing the staged directory sync ${key} failed`,
      {
        cause,
      },
    );
  }
  return {
    key,
    directoryId: sync.directoryId,
    runId: sync.runId,
    ...(sync.tenant === undefined ? {} : { tenant: sync.tenant }),
  };
}

const MAX_FILES = 1_000;
const MAX_NAME = 1_000;
const KNOWN = new Set([
  'version',
  'kind',
  'tenant',
  'runId',
  'directoryId',
  'directoryName',
  'createdAt',
  'syncedAt',
  'counts',
  'tables',
]);

/**
 * Reads a staged sync's object (its size checked by HEAD first) and checks its shape
 * strictly against its reference and the committer's tenant: its key the one its tenant, run
 * and directory make, every member known and typed, counts whole numbers, files keys with
 * rows and bytes, within the TTL. Its files are checked against the objects afterwards.
 * Throws StagedRunInvalid (code EXPORT_STAGED_RUN_INVALID); a store failure passes.
 */
export async function readStagedDirectorySync(
  store: ObjectStore,
  prefix: string,
  tenant: string | undefined,
  ref: StagedDirectorySyncRef,
  nowMs: number,
  ttlMs: number = STAGED_DIRECTORY_SYNC_TTL_MS,
): Promise<StagedDirectorySync> {
  const key = ref.key;
  const bad = (why: string) => new StagedRunInvalid(key, why);
  if (typeof ref.runId !== 'string' || !SEGMENT_ID.test(ref.runId))
    throw bad(`its reference names no valid run id (${JSON.stringify(ref.runId)})`);
  if (typeof ref.directoryId !== 'string' || !SEGMENT_ID.test(ref.directoryId))
    throw bad(`its reference names no valid directory id (${JSON.stringify(ref.directoryId)})`);
  if (ref.tenant !== tenant)
    throw bad(
      `its reference is tenant ${ref.tenant ?? '(none)'}'s, not the execution's (${tenant ?? 'none'})`,
    );
  const expected = stagedDirectorySyncKey(prefix, tenant, ref.runId, ref.directoryId);
  if (key !== expected)
    throw bad(`its key is not ${expected}, the staged sync of its tenant, run and directory`);
  const info = await store.head(key);
  if (info === undefined) throw bad('it does not exist');
  if (info.size > MAX_STAGED_RUN_BYTES)
    throw bad(`it is ${info.size} bytes, larger than ${MAX_STAGED_RUN_BYTES}: not read`);
  let raw: Record<string, unknown> | null;
  try {
    const bytes = await readBounded(store, key, MAX_STAGED_RUN_BYTES);
    if (bytes === undefined) throw bad(`it grew past ${MAX_STAGED_RUN_BYTES} bytes while read`);
    raw = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> | null;
  } catch (error) {
    if (error instanceof SyntaxError) throw bad('it is not JSON');
    throw error;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('it is not an object');
  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw bad(`it has members no staged sync has (${unknown.slice(0, 5).join(', ')})`);
  if (raw.version !== STAGED_DIRECTORY_SYNC_VERSION)
    throw bad(`its version is ${String(raw.version)}, not ${STAGED_DIRECTORY_SYNC_VERSION}`);
  if (raw.kind !== 'directory-sync') throw bad('it is no directory sync');
  if (raw.tenant !== tenant || raw.runId !== ref.runId || raw.directoryId !== ref.directoryId) {
    throw bad(
      `it names tenant ${String(raw.tenant)}, run ${String(raw.runId)}, directory ${String(raw.directoryId)}, not its reference's`,
    );
  }
  if (typeof raw.directoryName !== 'string' || raw.directoryName.length > MAX_NAME)
    throw bad('bad directoryName');
  const created = typeof raw.createdAt === 'string' ? Date.parse(raw.createdAt) : Number.NaN;
  const synced = typeof raw.syncedAt === 'string' ? Date.parse(raw.syncedAt) : Number.NaN;
  if (Number.isNaN(created) || Number.isNaN(synced)) throw bad('bad createdAt or syncedAt');
  if (created > nowMs + STAGED_RUN_CLOCK_SKEW_MS) throw bad(`it is dated in the future (${raw.createdAt})`);
  if (created < nowMs - ttlMs)
    throw bad(`it was staged at ${raw.createdAt}, longer ago than the ${ttlMs} ms TTL`);
  const counts = raw.counts as Record<string, unknown> | null;
  const countNames = ['items', 'newVersions', 'closedVersions', 'deletions', 'phones'];
  if (
    typeof counts !== 'object' ||
    counts === null ||
    Object.keys(counts).length !== countNames.length ||
    !countNames.every((n) => Number.isSafeInteger(counts[n]) && (counts[n] as number) >= 0)
  )
    throw bad(`its counts must be ${countNames.join(', ')}, whole numbers`);
  const tables = raw.tables as Record<string, unknown> | null;
  if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) throw bad('bad tables');
  const names = Object.keys(tables);
  if (names.length === 0 || !names.every((n) => (DIRECTORY_SYNC_DATASETS as readonly string[]).includes(n)))
    throw bad(`its tables must be some of ${DIRECTORY_SYNC_DATASETS.join(', ')}`);
  for (const name of names) checkPartitionFiles(tables[name], name, bad);
  return raw as unknown as StagedDirectorySync;
}

function checkPartitionFiles(value: unknown, table: string, bad: (why: string) => StagedRunInvalid): void {
  const p = value as Partial<StagedPartitionFiles> | null;
  if (typeof p !== 'object' || p === null || Object.keys(p).some((k) => k !== 'files' && k !== 'base'))
    throw bad(`its ${table} is not files and base`);
  if (!Array.isArray(p.files) || p.files.length > MAX_FILES) throw bad(`its ${table} files must be a list`);
  for (const f of p.files) {
    const ok =
      typeof f === 'object' &&
      f !== null &&
      Object.keys(f).length === 3 &&
      typeof f.key === 'string' &&
      f.key.length <= MAX_NAME &&
      Number.isSafeInteger(f.rows) &&
      f.rows >= 0 &&
      Number.isSafeInteger(f.bytes) &&
      f.bytes > 0;
    if (!ok)
      throw bad(`a ${table} data file is not a key, rows and bytes: ${JSON.stringify(f).slice(0, 300)}`);
  }
  if (
    !Array.isArray(p.base) ||
    p.base.length > MAX_FILES ||
    !p.base.every((k, i, all) => typeof k === 'string' && (i === 0 || (all[i - 1] as string) < k))
  )
    throw bad(`its ${table} base must be sorted, distinct keys`);
}
