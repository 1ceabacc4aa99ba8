import { ExportConfigError } from '../../errors';
import { type TableIo, tableIo } from '../manifest/manifest-io';
import { keyOf } from '../metadata/location';
import { currentSnapshot } from '../metadata/metadata';
import { checkTenancy } from '../metadata/tenancy';
import type { DataFile, Snapshot, TableMetadata } from '../metadata/types';
import {
  type AsOf,
  changedSince,
  inScope,
  type LiveFile,
  liveFile,
  resolveSnapshot,
  snapshotFiles,
} from '../snapshot/history';
import { ROLLBACK_TO_KEY, restoreFiles } from '../snapshot/restore';
import { type CommitResult, commitSnapshot } from './commit';
import type { CommitOptions } from './commit-loop';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

/**
 * A rollback of ONE tenant's partitions of a table (a multi-tenant lake's tables hold every
 * tenant): a new overwrite snapshot in which that tenant's live files are the ones it had at
 * the target, while every other tenant's live files stay as they are now (their commits after
 * the target are kept). In a single-tenant table the scope is the whole table (`tenant`
 * undefined). Planned first (what changes, which snapshots' changes it discards, whether the
 * target's files still exist), then committed through the commit loop: each attempt re-applies
 * the rollback onto the table as it then is, so a concurrent commit of another tenant is never
 * lost, and refuses when a commit of this scope landed since the plan (what the plan showed
 * and the CSV rewritten for it would no longer be what is committed).
 */

/**
 * A partition (report, day) of the scope whose files the rollback changes; of a directory
 * table: its directory (`directoryId`; `reportId` and `dt` are `''`, as in its LiveFiles).
 */
export interface PartitionRestore {
  reportId: string;
  /** `YYYY-MM-DD`. */
  dt: string;
  /** The directory (a directory table's partition only). */
  directoryId?: string;
  /** Its live files now, and at the target (none: the rollback empties it). */
  now: LiveFile[];
  target: LiveFile[];
}

/** What a rollback of a tenant's partitions of one table does, as planned on the table's current state. */
export interface TenantRollbackPlan {
  table: IcebergTable;
  /** The tenant whose partitions are restored; undefined: the whole (single-tenant) table. */
  tenant: string | undefined;
  /** The table's current snapshot when planned (null: it has none). */
  currentSnapshotId: number | string | null;
  /**
   * The snapshot restored; undefined when the table had no snapshot at that point (the
   * scope's partitions are emptied).
   */
  target: Snapshot | undefined;
  /** Snapshots after the target that changed the scope's partitions, oldest first: what is discarded. */
  discarded: Snapshot[];
  /** The partitions whose files differ between now and the target, by report and day. */
  partitions: PartitionRestore[];
  /** The scope's files at the target, as the manifests hold them (re-added when not live). */
  restore: DataFile[];
  /** Field names by field id in the table's current schema (to read older files by id). */
  fieldNames: ReadonlyMap<number, string>;
}

/** Why a rollback was refused: nothing of it was committed. */
export const ROLLBACK_REFUSALS = {
  /** A snapshot changing the scope landed after the one the operator (or the plan) saw. */
  landed: 'landed',
  /** A data file of the target no longer exists (a removed tenant's, or deleted by hand). */
  missingFiles: 'missing-files',
  /** The table's history no longer reaches the point (its snapshots there expired). */
  expired: 'expired',
} as const;
export type RollbackRefusal = (typeof ROLLBACK_REFUSALS)[keyof typeof ROLLBACK_REFUSALS];

/** A rollback refused before anything was committed; `reason` says why, the message names what. */
export class RollbackRefusedError extends ExportConfigError {
  readonly reason: RollbackRefusal;
  /** The snapshots that landed (reason `landed`). */
  readonly snapshots: readonly Snapshot[];
  constructor(reason: RollbackRefusal, message: string, snapshots: readonly Snapshot[] = []) {
    super(message);
    this.name = 'RollbackRefusedError';
    this.reason = reason;
    this.snapshots = snapshots;
  }
}

/** Summary key of a rollback snapshot: the tenant whose partitions it restored. */
export const ROLLBACK_TENANT_KEY = 'report-export.rollback-tenant';

/**
 * Plans the rollback of `tenant`'s partitions of the table to `asOf` (undefined: to before
 * any snapshot, every partition of the scope emptied: a tenant's removal). A point in time
 * before the table's first snapshot restores nothing (emptied) when the table's history
 * starts there, and is refused (RollbackRefusedError `expired`) when earlier snapshots
 * expired. Refuses (`missing-files`) a target whose data files are gone from the store,
 * naming them: committing it would leave a table no reader can read.
 */
export async function planTenantRollback(
  t: IcebergTable,
  tenant: string | undefined,
  asOf: AsOf | undefined,
  options: {
    /**
     * The snapshot the operator saw as current: refused (`landed`, naming them) when a
     * snapshot changing the scope landed after it (another tenant's commits do not count).
     */
    ifCurrent?: number | string | null;
  } = {},
): Promise<TenantRollbackPlan> {
  const io = tableIo(t.location);
  const loaded = await loadTable(t, io);
  if (loaded === undefined) {
    throw new ExportConfigError(`Table ${tableName(t)} does not exist (at ${t.location.uri})`);
  }
  const { metadata } = loaded;
  checkTenancy(metadata, tenant, tableName(t));
  if (options.ifCurrent !== undefined) await refuseLanded(t, io, metadata, options.ifCurrent, tenant);
  const target = asOf === undefined ? undefined : targetOf(t, metadata, asOf);
  const scope = inScope(tenant);
  const now = currentSnapshot(metadata);
  const [nowFiles, targetFiles] = await Promise.all([
    now === undefined ? [] : snapshotFiles(io, now),
    target === undefined ? [] : snapshotFiles(io, target),
  ]);
  const restore = targetFiles.filter((f) => scope(f.partition));
  const live = nowFiles.filter((f) => scope(f.partition));
  await requireFiles(t, io, restore, new Set(live.map((f) => f.file_path)));
  const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
  return {
    table: t,
    tenant,
    currentSnapshotId: metadata['current-snapshot-id'],
    target,
    discarded: await changedSince(io, metadata, target?.['sequence-number'] ?? 0, tenant),
    partitions: partitionChanges(
      live.map((f) => liveFile(io, f)),
      restore.map((f) => liveFile(io, f)),
    ),
    restore,
    fieldNames: new Map((schema?.fields ?? []).map((f) => [f.id, f.name])),
  };
}

/** The snapshot `asOf` names, or undefined for a time before a history that starts with the table's first snapshot. */
function targetOf(t: IcebergTable, metadata: TableMetadata, asOf: AsOf): Snapshot | undefined {
  if ('timestampMs' in asOf) {
    const first = metadata['snapshot-log'][0];
    if (first === undefined || asOf.timestampMs < first['timestamp-ms']) {
      const oldest = metadata.snapshots.find(
        (s) => String(s['snapshot-id']) === String(first?.['snapshot-id']),
      );
      // The oldest snapshot has no parent: the table had nothing before it. Else it expired.
      if (first === undefined || oldest?.['parent-snapshot-id'] == null) return undefined;
      throw new RollbackRefusedError(
        ROLLBACK_REFUSALS.expired,
        `Table ${tableName(t)} has no snapshot at ${new Date(asOf.timestampMs).toISOString()} any more: its history starts at ${new Date(first['timestamp-ms']).toISOString()} (older snapshots expired)`,
      );
    }
  }
  return resolveSnapshot(metadata, asOf);
}

/** Refuses a target whose files (those it re-adds) are gone from the store. */
async function requireFiles(
  t: IcebergTable,
  io: TableIo,
  restore: readonly DataFile[],
  live: ReadonlySet<string>,
): Promise<void> {
  const missing: string[] = [];
  for (const f of restore) {
    if (live.has(f.file_path)) continue;
    io.requests++;
    if ((await t.location.store.head(keyOf(t.location, f.file_path))) === undefined)
      missing.push(f.file_path);
  }
  if (missing.length === 0) return;
  throw new RollbackRefusedError(
    ROLLBACK_REFUSALS.missingFiles,
    `Table ${tableName(t)}: ${missing.length} data file${missing.length === 1 ? '' : 's'} of the target no longer exist${missing.length === 1 ? 's' : ''} (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}): a rollback to it would leave a table no reader can read; nothing rolled back`,
  );
}

/** The partitions whose file sets differ, by report then day (a directory table's by directory). */
function partitionChanges(now: readonly LiveFile[], target: readonly LiveFile[]): PartitionRestore[] {
  const byPartition = new Map<string, PartitionRestore>();
  const entry = (f: LiveFile) => {
    const key = `${f.reportId}\u0000${f.dt}\u0000${f.directoryId ?? ''}`;
    let p = byPartition.get(key);
    if (p === undefined) {
      p = {
        reportId: f.reportId,
        dt: f.dt,
        ...(f.directoryId === undefined ? {} : { directoryId: f.directoryId }),
        now: [],
        target: [],
      };
      byPartition.set(key, p);
    }
    return p;
  };
  for (const f of now) entry(f).now.push(f);
  for (const f of target) entry(f).target.push(f);
  const same = (p: PartitionRestore) =>
    p.now.length === p.target.length && p.now.every((f) => p.target.some((g) => g.uri === f.uri));
  return [...byPartition.values()]
    .filter((p) => !same(p))
    .sort((a, b) =>
      a.reportId !== b.reportId
        ? a.reportId.localeCompare(b.reportId)
        : a.dt !== b.dt
          ? a.dt.localeCompare(b.dt)
          : (a.directoryId ?? '').localeCompare(b.directoryId ?? ''),
    );
}

/** What a committed rollback did: the commit's result, and the snapshots whose changes it discarded. */
export interface TenantRollbackResult extends CommitResult {
  discarded: Snapshot[];
}

/**
 * Commits `plan`: ONE overwrite snapshot in which the scope's live files are the target's
 * (files of the scope added since deleted, files deleted since added again) and every other
 * file stays. Each attempt re-reads the table and re-applies it (CAS with re-apply: another
 * tenant's commit that lands meanwhile stays), and refuses (RollbackRefusedError `landed`,
 * naming the snapshots) when a snapshot changing the scope landed after the plan was made.
 * `summary` names who rolled back; the snapshot's also names the target and the tenant.
 */
export async function commitTenantRollback(
  plan: TenantRollbackPlan,
  summary: Record<string, string>,
  options: CommitOptions = {},
): Promise<TenantRollbackResult> {
  const { table: t, tenant } = plan;
  const scope = inScope(tenant);
  const planned = plan.currentSnapshotId;
  const result = await commitSnapshot(
    t,
    async (current: LoadedTable, io: TableIo) => {
      checkTenancy(current.metadata, tenant, tableName(t));
      await refuseLanded(t, io, current.metadata, planned, tenant);
      return {
        ...(await restoreFiles(io, current.metadata, scope, plan.restore)),
        summary: {
          ...summary,
          [ROLLBACK_TO_KEY]: plan.target === undefined ? 'none' : String(plan.target['snapshot-id']),
          ...(tenant === undefined ? {} : { [ROLLBACK_TENANT_KEY]: tenant }),
        },
      };
    },
    `the rollback of ${tenant === undefined ? '' : `tenant ${tenant}'s partitions of `}table ${tableName(t)} to ${plan.target === undefined ? 'no snapshot' : `snapshot ${plan.target['snapshot-id']}`}`,
    options,
  );
  return { ...result, discarded: plan.discarded };
}

/**
 * Refuses when a snapshot changing the scope landed after `since` (the snapshot the operator
 * or the plan saw as current): the rollback would discard it unseen.
 */
export async function refuseLanded(
  t: IcebergTable,
  io: TableIo,
  metadata: TableMetadata,
  since: number | string | null,
  tenant: string | undefined,
): Promise<void> {
  const base =
    since === null ? undefined : metadata.snapshots.find((s) => String(s['snapshot-id']) === String(since));
  if (since !== null && base === undefined) {
    throw new ExportConfigError(
      `Table ${tableName(t)} has no snapshot ${since} (an expired snapshot is gone)`,
    );
  }
  const landed = await changedSince(io, metadata, base?.['sequence-number'] ?? 0, tenant);
  if (landed.length === 0) return;
  throw new RollbackRefusedError(
    ROLLBACK_REFUSALS.landed,
    `Table ${tableName(t)}: ${landed.length === 1 ? 'a snapshot' : `${landed.length} snapshots`} changing ${tenant === undefined ? 'the table' : `tenant ${tenant}'s partitions`} landed after snapshot ${since ?? '(none)'}: ${landed
      .map(
        (s) =>
          `${s['snapshot-id']} (${new Date(s['timestamp-ms']).toISOString()}${s.summary['report-export.run-id'] === undefined ? '' : `, run ${s.summary['report-export.run-id']}`})`,
      )
      .join(
        ', ',
      )}; the rollback would discard ${landed.length === 1 ? 'it' : 'them'} unseen: nothing rolled back`,
    landed,
  );
}

/** A partition day (a directory table's: a directory) as the rollback names it (for messages). */
export function partitionName(
  tenant: string | undefined,
  p: Pick<PartitionRestore, 'reportId' | 'dt' | 'directoryId'>,
): string {
  const of = tenant === undefined ? '' : `tenant=${tenant}/`;
  return p.directoryId === undefined
    ? `${of}report_id=${p.reportId}/dt=${p.dt}`
    : `${of}directory_id=${p.directoryId}`;
}
