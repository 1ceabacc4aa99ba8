import type { ObjectStore } from '../../stores';
import { forEachLimited } from '../concurrency';
import { EXPORT_ERROR_CODES, ExportError } from '../errors';
import {
  commitDirectoriesOverwrite,
  directoryDataPrefix,
  type IcebergTable,
  type LoadedTable,
  lakeTable,
  loadTable,
  tableName,
} from '../table';
import { checkTenantId } from '../tenant';
import type { ExportLogger, LakeTables } from '../types';
import { ContactFileMismatch, checkContactFile } from './contact-file-check';
import { partitionFiles } from './directory-partition';
import {
  DIRECTORY_SYNC_DATASETS,
  type DirectorySyncDataset,
  readStagedDirectorySync,
  STAGED_DIRECTORY_SYNC_TTL_MS,
  type StagedDataFile,
  type StagedDirectorySync,
  type StagedDirectorySyncRef,
  stagedDirectorySyncKey,
} from './staged-directory-sync';
import { StagedRunInvalid } from './staged-run';

/** Where the committer lands staged directory syncs: its own store and credentials, the lake, the execution's tenant. */
export interface StagedSyncCommitDeps {
  /** The committer's own store (its role's credentials). */
  store: ObjectStore;
  prefix: string;
  tables: LakeTables;
  /** The execution's tenant: every staged sync must be of it. */
  tenant?: string;
  /**
   * Called once, after validation and before any commit, with the partitions the valid
   * syncs replace (`contacts/<tenant>/<directory>`; `contacts/<directory>` in a single-tenant
   * lake); resolves with a release function. Default: no locking.
   */
  lock?: (partitions: string[]) => Promise<() => Promise<void>>;
  logger?: ExportLogger;
  signal?: AbortSignal;
}

export interface StagedSyncCommitOptions {
  /** Extra `report-export.*` snapshot summary values (e.g. the execution's name). */
  summary: Record<string, string>;
  now?: () => Date;
  /** A staged sync older than this is invalid. @default STAGED_DIRECTORY_SYNC_TTL_MS (24 h) */
  ttlMs?: number;
}

export interface StagedSyncOutcome {
  key: string;
  directoryId: string;
  status: 'committed' | 'invalid';
  /** invalid: why, naming the object and what was wrong. */
  reason?: string;
}

export interface StagedSyncCommitResult {
  /** One per table a snapshot was committed to (none when nothing valid changed it). */
  tables: { table: string; dataset: DirectorySyncDataset; snapshotId: string }[];
  syncs: StagedSyncOutcome[];
}

/**
 * The lease name of a directory's partitions (both tables'), as `lock` is asked for it: the
 * caller scopes it to the tenant (the workflow under `tenant=<t>/`, as its other leases).
 */
export function directoryLeaseName(directoryId: string): string {
  return `contacts/${directoryId}`;
}

interface ValidSync {
  ref: StagedDirectorySyncRef;
  sync: StagedDirectorySync;
  /** Per table: the files as the store holds them. */
  files: Partial<Record<DirectorySyncDataset, StagedDataFile[]>>;
}

interface Checked {
  outcome: StagedSyncOutcome;
  valid?: ValidSync;
}

/**
 * The committer's side of the tenants' directory syncs (DirectorySyncDeps.mode 'defer'):
 * every staged sync validated against the objects (its record strictly, its files under its
 * tenant's directory partition, each file's schema the table's, its rows' tenant and
 * directory_id read from its pages, its rows counted by its footer), then, under the
 * partitions' leases, each valid sync's partitions checked to be still what the sync read
 * (`base`: a sync versioned on an older state never replaces a newer one) and all of them
 * committed in ONE snapshot per table (`contacts`, then `contact_phones`). An invalid sync
 * is set aside with its reason; the staged records are removed once landed. Idempotent: a
 * retry finds a partition that already holds a sync's files landed.
 *
 * @example
 * const { tables, syncs } = await commitStagedDirectorySyncs({ store, prefix, tables, tenant, lock }, refs, { summary });
 */
export async function commitStagedDirectorySyncs(
  deps: StagedSyncCommitDeps,
  refs: readonly StagedDirectorySyncRef[],
  options: StagedSyncCommitOptions,
): Promise<StagedSyncCommitResult> {
  if (deps.tenant !== undefined) checkTenantId(deps.tenant);
  const now = (options.now ?? (() => new Date()))().getTime();
  const ttl = options.ttlMs ?? STAGED_DIRECTORY_SYNC_TTL_MS;
  const lake = { store: deps.store, prefix: deps.prefix, ...deps.tables };
  const tables: Record<DirectorySyncDataset, IcebergTable> = {
    contacts: lakeTable(lake, 'contacts'),
    contact_phones: lakeTable(lake, 'contact_phones'),
  };
  const unique = [...new Map(refs.map((r) => [r.key, r])).values()];
  const loaded = await loadBoth(tables);
  const checked: Checked[] = [];
  await forEachLimited(
    unique.map((ref, i) => ({ ref, i })),
    4,
    async ({ ref, i }) => {
      checked[i] = await validate(deps, tables, loaded, ref, now, ttl);
    },
  );
  refuseSuperseded(checked);
  for (const c of checked) {
    if (c.outcome.status === 'invalid') {
      deps.logger?.warn('A staged directory sync is invalid: not committed', {
        key: c.outcome.key,
        reason: c.outcome.reason,
      });
    }
  }
  const valid = checked.flatMap((c) => (c.valid === undefined ? [] : [c.valid]));
  const release =
    valid.length === 0 || deps.lock === undefined
      ? undefined
      : await deps.lock(valid.map((v) => directoryLeaseName(v.sync.directoryId)));
  const committed: StagedSyncCommitResult['tables'] = [];
  try {
    // Under the leases: what the partitions hold now, against what each sync read.
    const current = await loadBoth(tables);
    const pending: Record<
      DirectorySyncDataset,
      { directoryId: string; files: StagedDataFile[]; runId: string }[]
    > = {
      contacts: [],
      contact_phones: [],
    };
    for (const c of checked) {
      const v = c.valid;
      if (v === undefined) continue;
      const todo: typeof pending = { contacts: [], contact_phones: [] };
      let stale: string | undefined;
      for (const dataset of DIRECTORY_SYNC_DATASETS) {
        const part = v.sync.tables[dataset];
        const files = v.files[dataset];
        if (part === undefined || files === undefined) continue;
        const live = (
          await partitionFiles(tables[dataset], current[dataset], deps.tenant, v.sync.directoryId)
        ).keys;
        const own = files.map((f) => f.key).sort();
        if (sameList(live, own)) continue; // landed already (a retry)
        if (!sameList(live, part.base)) {
          stale = `its ${dataset} partition changed since the sync read it (${live.length} live files, not the ${part.base.length} it read): a newer sync landed first`;
          break;
        }
        todo[dataset].push({ directoryId: v.sync.directoryId, files, runId: v.sync.runId });
      }
      if (stale !== undefined) {
        c.outcome = {
          ...c.outcome,
          status: 'invalid',
          reason: new StagedRunInvalid(c.outcome.key, stale).message,
        };
        delete c.valid;
        continue;
      }
      for (const dataset of DIRECTORY_SYNC_DATASETS) pending[dataset].push(...todo[dataset]);
    }
    for (const dataset of DIRECTORY_SYNC_DATASETS) {
      const directories = pending[dataset];
      if (directories.length === 0) continue;
      deps.signal?.throwIfAborted();
      const table = tables[dataset];
      const rows = directories.reduce((n, d) => n + d.files.reduce((k, f) => k + f.rows, 0), 0);
      const result = await commitDirectoriesOverwrite(
        table,
        {
          tenant: deps.tenant,
          directories: directories.map(({ directoryId, files }) => ({ directoryId, files })),
          summary: {
            ...ours(options.summary),
            'report-export.run-id': capped([...new Set(directories.map((d) => d.runId))]),
            'report-export.directories': capped(directories.map((d) => d.directoryId)),
            'report-export.rows': String(rows),
          },
        },
        {
          ...(deps.signal === undefined ? {} : { signal: deps.signal }),
          expire: table.catalog.kind === 'file',
        },
      );
      committed.push({ table: tableName(table), dataset, snapshotId: String(result.snapshotId) });
    }
    await removeRecords(deps, checked);
    return { tables: committed, syncs: checked.map((c) => c.outcome) };
  } finally {
    await release?.();
  }
}

async function loadBoth(
  tables: Record<DirectorySyncDataset, IcebergTable>,
): Promise<Record<DirectorySyncDataset, LoadedTable>> {
  const out: Partial<Record<DirectorySyncDataset, LoadedTable>> = {};
  for (const dataset of DIRECTORY_SYNC_DATASETS) {
    const loaded = await loadTable(tables[dataset]);
    if (loaded === undefined) {
      throw new ExportError(
        EXPORT_ERROR_CODES.tableInvalid,
        `Table ${tableName(tables[dataset])} does not exist: the committer prepares it before the syncs`,
      );
    }
    out[dataset] = loaded;
  }
  return out as Record<DirectorySyncDataset, LoadedTable>;
}

/** A staged sync checked against the objects; invalid ones carry the reason, store failures throw. */
async function validate(
  deps: StagedSyncCommitDeps,
  tables: Record<DirectorySyncDataset, IcebergTable>,
  loaded: Record<DirectorySyncDataset, LoadedTable>,
  ref: StagedDirectorySyncRef,
  now: number,
  ttl: number,
): Promise<Checked> {
  const base = { key: ref.key, directoryId: ref.directoryId };
  try {
    const sync = await readStagedDirectorySync(deps.store, deps.prefix, deps.tenant, ref, now, ttl);
    const files: ValidSync['files'] = {};
    for (const dataset of DIRECTORY_SYNC_DATASETS) {
      const part = sync.tables[dataset];
      if (part === undefined) continue;
      const prefix = directoryDataPrefix(tables[dataset].location.key, deps.tenant, sync.directoryId);
      const seen = new Set<string>();
      const checkedFiles: StagedDataFile[] = [];
      for (const f of part.files) {
        if (seen.has(f.key)) throw new StagedRunInvalid(ref.key, `it lists the data file ${f.key} twice`);
        seen.add(f.key);
        checkedFiles.push(
          await checkContactFile(deps.store, f, loaded[dataset], {
            prefix,
            tenant: deps.tenant,
            directoryId: sync.directoryId,
          }),
        );
      }
      files[dataset] = checkedFiles;
    }
    return { outcome: { ...base, status: 'committed' }, valid: { ref, sync, files } };
  } catch (error) {
    if (error instanceof ContactFileMismatch) {
      return {
        outcome: { ...base, status: 'invalid', reason: new StagedRunInvalid(ref.key, error.message).message },
      };
    }
    if (error instanceof StagedRunInvalid)
      return { outcome: { ...base, status: 'invalid', reason: error.message } };
    if (error instanceof ExportError) throw error;
    throw new ExportError(
      EXPORT_ERROR_CODES.stagedReadFailed,
      `Reading the staged directory sync ${ref.key} or its files failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Two syncs of one directory: the one read last lands, the other is set aside. */
function refuseSuperseded(checked: Checked[]): void {
  const latest = new Map<string, Checked>();
  for (const c of checked) {
    const v = c.valid;
    if (v === undefined) continue;
    const other = latest.get(v.sync.directoryId);
    if (other?.valid === undefined) {
      latest.set(v.sync.directoryId, c);
      continue;
    }
    const [older, newer] =
      Date.parse(other.valid.sync.syncedAt) <= Date.parse(v.sync.syncedAt) ? [other, c] : [c, other];
    older.outcome = {
      ...older.outcome,
      status: 'invalid',
      reason: new StagedRunInvalid(
        older.outcome.key,
        `the staged sync ${newer.outcome.key} of the same directory read it later`,
      ).message,
    };
    delete older.valid;
    latest.set(v.sync.directoryId, newer);
  }
}

/** Removes the records whose key is the one their reference makes (best effort: a lifecycle rule expires the rest). */
async function removeRecords(deps: StagedSyncCommitDeps, checked: readonly Checked[]): Promise<void> {
  const keys = checked
    .map((c) => c.valid?.ref ?? { key: c.outcome.key, directoryId: c.outcome.directoryId, runId: '' })
    .filter(
      (r) =>
        r.runId !== '' && r.key === stagedDirectorySyncKey(deps.prefix, deps.tenant, r.runId, r.directoryId),
    )
    .map((r) => r.key);
  // Invalid records are removed too once the valid ones landed: they are named in the result.
  const invalid = checked
    .filter((c) => c.valid === undefined)
    .map((c) => c.outcome.key)
    .filter((k) => k.startsWith(`${stagingPrefix(deps)}`));
  try {
    const all = [...new Set([...keys, ...invalid])];
    if (all.length > 0) await deps.store.deleteMany(all);
  } catch {
    // left to the bucket's lifecycle rule
  }
}

function stagingPrefix(deps: StagedSyncCommitDeps): string {
  return stagedDirectorySyncKey(deps.prefix, deps.tenant, 'x', 'x').replace(/x\/x\.json$/, '');
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A summary value's longest list (a commit request refuses values over 8,000 characters). */
const MAX_LISTED_CHARS = 4_000;

function capped(values: readonly string[]): string {
  let out = '';
  for (const [i, v] of values.entries()) {
    const next = out === '' ? v : `${out},${v}`;
    if (next.length > MAX_LISTED_CHARS) return `${out},+${values.length - i} more`;
    out = next;
  }
  return out;
}

/** The caller's summary values, `report-export.*` only. */
function ours(extra: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(extra ?? {}).filter(([k]) => k.startsWith('report-export.')));
}
