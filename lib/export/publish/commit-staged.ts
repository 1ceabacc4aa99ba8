import { createHash } from 'node:crypto';
import { type ObjectStore, readObjectIfPresent } from '../../stores';
import { forEachLimited } from '../concurrency';
import { EXPORT_ERROR_CODES, ExportError } from '../errors';
import type { StagedRunRef, TableCommitSummary } from '../export-summary';
import { manifestKey, tenantSegment } from '../layout';
import { DATASETS, type Dataset, tableSchema } from '../schema';
import {
  type CommitResult,
  checkDataFile,
  commitOverwrite,
  commitOverwriteGrouped,
  DataFileMismatch,
  dataFileExpectation,
  type IcebergTable,
  isDataFileKey,
  type LakeTablesLocation,
  lakeTable,
  loadTable,
  type NewDataFile,
  type ReportDays,
  type ReportsOverwrite,
  type SetAsideRequest,
  type Snapshot,
  tableName,
} from '../table';
import { checkTenantId } from '../tenant';
import type { ExportLogger, PartitionOutput } from '../types';
import { deleteStaging, type Emptied, type PublishContext, promote } from './publish';
import {
  readStagedRun,
  STAGED_RUN_TTL_MS,
  type StagedRun,
  StagedRunInvalid,
  stagedCsvKey,
  stagedLayout,
  stagedRunKey,
} from './staged-run';
import { deleteDataFiles, tableDataPrefix } from './table-publish';

/**
 * The committer: lands the runs an execution staged (ExportOptions.commit 'defer') as ONE
 * snapshot per table and their CSV with it. It runs with its own credentials (never a
 * tenant's session) and trusts nothing a staged run claims that the objects can tell
 * (sizes by HEAD, rows from the Parquet footers).
 */

/** Where the committer writes: its own store, the lake's prefix and tables, and the execution's tenant. */
export interface CommitTarget {
  /** The committer's own store (its role's credentials). */
  store: ObjectStore;
  prefix: string;
  /** The lake's catalog and namespace (ExportOptions.tables). */
  tables: Pick<LakeTablesLocation, 'catalog' | 'namespace'>;
  /** The execution's tenant: every staged run must be of it. */
  tenant?: string;
}

export interface CommitStagedOptions {
  signal?: AbortSignal;
  logger?: ExportLogger;
  now?: () => Date;
  /** Extra `report-export.*` snapshot summary values (e.g. the execution's name). */
  summary?: Record<string, string>;
  /**
   * Called once, after validation and before any promotion, with every (reportId, dt) the
   * valid runs replace; resolves with a release function (the workflow takes its partition
   * leases here). Default: no locking.
   */
  lock?: (partitions: ReadonlyArray<{ reportId: string; dt: string }>) => Promise<() => Promise<void>>;
  /** A staged run older than this is invalid. @default STAGED_RUN_TTL_MS (24 h) */
  stagedRunTtlMs?: number;
}

export interface StagedRunOutcome {
  key: string;
  reportId: string;
  runId: string;
  status: 'committed' | 'invalid';
  /** invalid: why, naming the object and what was wrong; code EXPORT_STAGED_RUN_INVALID. */
  reason?: string;
  /** Rows from the files' footers, never from the staged object's claims (0 when invalid). */
  rows: number;
  partitions: number;
  /**
   * Its days a later export had published by the time it was committed (that day's CSV
   * manifest has a later `exportedAt`): left as they are, not replaced by this older run's.
   */
  superseded?: string[];
}

export interface StagedCommitResult {
  runs: StagedRunOutcome[];
  /** One per table committed (none when nothing valid was to be committed: no empty snapshot). */
  tables: Array<TableCommitSummary & { dataset: Dataset }>;
  /** Other committers' commit requests found invalid and set aside by this commit (named, with why). */
  setAside?: SetAsideRequest[];
}

/** Summary key naming the staged commit that made a snapshot (found again by a retry). */
export const STAGED_COMMIT_KEY = 'report-export.staged-commit';
/** Where a staged commit's result is kept once landed: a retry after a lost reply returns it. */
export const COMMITS_FOLDER = '_commits';

/**
 * Validates every staged run (`runs`: the references of an execution's jobs) against the
 * objects, then promotes every valid run's CSV and commits ONE overwrite snapshot per table
 * for all of them (calls, summaries; a grouped commit with other executions' in a
 * multi-tenant lake); a failed commit rolls the CSV back and keeps the staging for a retry.
 * An invalid run is set aside (reported `invalid` with the reason, its staging removed once
 * the others landed); nothing valid: no snapshot. Idempotent: a retry after a lost reply
 * finds the commit landed (by an id derived from the references) and lands nothing twice.
 *
 * @example
 * const result = await commitStagedRuns({ store, prefix, tables, tenant }, refs, { lock });
 */
export function commitStagedRuns(
  target: CommitTarget,
  runs: readonly StagedRunRef[],
  options: CommitStagedOptions = {},
): Promise<StagedCommitResult> {
  return commitStaged(target, runs, options, { keepOnFailure: true });
}

/** A staged run that passed validation, ready to promote and commit. */
interface ValidRun {
  ref: StagedRunRef;
  run: StagedRun;
  /** Its data files as the store holds them (rows from the footers). */
  files: NewDataFile[];
  rows: number;
}

/**
 * commitStagedRuns; `keepOnFailure` false (an export committing its own run in-process, commit
 * 'now'): a failure removes the staging and the data files no commit was sent for, as an
 * export's failure always did.
 */
export async function commitStaged(
  target: CommitTarget,
  refs: readonly StagedRunRef[],
  options: CommitStagedOptions,
  mode: { keepOnFailure: boolean },
): Promise<StagedCommitResult> {
  if (target.tenant !== undefined) checkTenantId(target.tenant);
  const now = options.now ?? (() => new Date());
  const unique = [...new Map(refs.map((r) => [r.key, r])).values()];
  const commitId = stagedCommitId(target.tenant, unique);
  const recordKey = commitRecordKey(target, commitId);
  // Only a committer's commit can be retried with the same references (an export's own is not).
  const recorded = mode.keepOnFailure ? await readRecord(target.store, recordKey) : undefined;
  if (recorded !== undefined) return recorded;

  const checked = await validateAll(
    target,
    unique,
    now().getTime(),
    options.stagedRunTtlMs ?? STAGED_RUN_TTL_MS,
  );
  refuseSharedFiles(checked);
  const valid = checked.flatMap((c) => (c.valid === undefined ? [] : [c.valid]));
  for (const c of checked) {
    if (c.outcome.status === 'invalid') {
      options.logger?.warn('A staged run is invalid: not committed', {
        key: c.outcome.key,
        reason: c.outcome.reason,
      });
    }
  }
  const partitions = valid.flatMap(({ run }) => run.dts.map((dt) => ({ reportId: run.reportId, dt })));
  const release =
    valid.length === 0 || options.lock === undefined ? undefined : await options.lock(partitions);
  let committing = false;
  let keepStaging = false;
  let succeeded = false;
  try {
    // Under the partitions' leases, so no other commit lands on these days meanwhile.
    const landing = await withoutSuperseded(target, checked, options.logger);
    const tables = new Map<Dataset, { table: IcebergTable; change: ReportsOverwrite }>();
    for (const dataset of [DATASETS.calls, DATASETS.summaries]) {
      const change = tableChange(target, landing, dataset, commitId, options.summary);
      if (change !== undefined) {
        tables.set(dataset, {
          table: lakeTable({ store: target.store, prefix: target.prefix, ...target.tables }, dataset),
          change,
        });
      }
    }
    const committed: StagedCommitResult['tables'] = [];
    const setAside: SetAsideRequest[] = [];
    const commitTables = async () => {
      committing = true;
      for (const [dataset, { table, change }] of tables) {
        const result = await commitTable(table, change, commitId, options, setAside);
        committed.push({ dataset, ...result });
      }
    };
    if (landing.length > 0) await promoteAll(target, landing, commitTables);
    // The superseded days' data files are no snapshot's: gone, as orphan deletion would take them.
    const landed = new Set(landing.flatMap((v) => v.files.map((f) => f.key)));
    await deleteDataFiles(
      target.store,
      valid.flatMap((v) => v.files.map((f) => f.key)).filter((k) => !landed.has(k)),
    );
    const result: StagedCommitResult = {
      runs: checked.map((c) => c.outcome),
      tables: committed,
      ...(setAside.length === 0 ? {} : { setAside }),
    };
    // Without its record a retry must find the staged runs to find the snapshots landed: the
    // staging goes only once the record is written.
    succeeded = !mode.keepOnFailure || (await writeRecord(target.store, recordKey, result));
    return result;
  } catch (error) {
    keepStaging = error instanceof ExportError && error.code === EXPORT_ERROR_CODES.rollbackFailed;
    if (!mode.keepOnFailure && !committing) {
      await deleteDataFiles(
        target.store,
        valid.flatMap((v) => v.files.map((f) => f.key)),
      );
    }
    throw error;
  } finally {
    try {
      if (succeeded || (!mode.keepOnFailure && !keepStaging)) await removeStagings(target, checked);
    } finally {
      await release?.();
    }
  }
}

/** sha256 of the tenant and the references' keys, sorted: the same on every retry of one execution's commit. */
function stagedCommitId(tenant: string | undefined, refs: readonly StagedRunRef[]): string {
  const keys = refs.map((r) => r.key).sort();
  return createHash('sha256')
    .update(`${tenant ?? ''}\n${keys.join('\n')}`)
    .digest('hex')
    .slice(0, 32);
}

/** `<prefix>/_commits/[tenant=<t>/]<commit id>.json`: outside every tenant's writable prefix. */
function commitRecordKey(target: CommitTarget, commitId: string): string {
  return [target.prefix, COMMITS_FOLDER, tenantSegment(target.tenant), `${commitId}.json`]
    .filter((p) => p !== '')
    .join('/');
}

async function readRecord(store: ObjectStore, key: string): Promise<StagedCommitResult | undefined> {
  const bytes = await readObjectIfPresent(store, key);
  if (bytes === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as StagedCommitResult;
    return Array.isArray(parsed.runs) && Array.isArray(parsed.tables) ? parsed : undefined;
  } catch {
    return undefined; // unreadable: commit again (the tables' commit id keeps it from landing twice)
  }
}

/**
 * Best effort: false when it could not be written; a retry then re-validates the staged runs
 * (kept) and finds the snapshots landed by their commit id.
 */
async function writeRecord(store: ObjectStore, key: string, result: StagedCommitResult): Promise<boolean> {
  try {
    await store.put(key, `${JSON.stringify(result)}\n`, { contentType: 'application/json' });
    return true;
  } catch {
    return false;
  }
}

/** Most bytes of a published partition's manifest the committer reads (they are a few KB). */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * The valid runs without their superseded days: a day whose published CSV manifest holds newer
 * data than the run's was replaced by a newer export (an execution that read the service later
 * and committed first), and an older run must not put older rows back. Newer is by the instant
 * the data was read as of (`dataAsOf`) when both have it: a refresh that read today at 23:55
 * and committed after one that read it whole at 00:40 must not put back the provisional copy.
 * Otherwise (a manifest or run from before `dataAsOf`) by `exportedAt`. Each such day is named
 * in its run's outcome; a run left with no day lands nothing.
 */
async function withoutSuperseded(
  target: CommitTarget,
  checked: Checked[],
  logger: ExportLogger | undefined,
): Promise<ValidRun[]> {
  const out: ValidRun[] = [];
  for (const c of checked) {
    const v = c.valid;
    if (v === undefined) continue;
    const layout = stagedLayout(target.prefix, v.run);
    const newer: string[] = [];
    await forEachLimited(v.run.dts, 4, async (dt) => {
      const published = await publishedTimes(target.store, manifestKey(layout, 'csv', dt));
      if (published !== undefined && newerThan(published, v.run)) newer.push(dt);
    });
    if (newer.length === 0) {
      out.push(v);
      continue;
    }
    newer.sort();
    logger?.warn('A staged run is older than what is published: those days kept', {
      key: c.outcome.key,
      superseded: newer,
    });
    const kept = v.run.dts.filter((dt) => !newer.includes(dt));
    const files = v.files.filter((f) => kept.includes(f.dt));
    const rows = files.reduce((n, f) => n + f.rows, 0);
    c.outcome = { ...c.outcome, rows, partitions: kept.length, superseded: newer };
    if (kept.length === 0) continue;
    const run: StagedRun = {
      ...v.run,
      dts: kept,
      partitions: v.run.partitions.filter((p) => kept.includes(p.dt)),
      files: v.run.files.filter((f) => kept.includes(f.dt)),
    };
    out.push({ ...v, run, files, rows });
  }
  return out;
}

/** When a published day's data was read and exported (ms; NaN where it does not say). */
interface PublishedTimes {
  exportedAt: number;
  dataAsOf: number;
}

/** Whether what is published is newer than the staged run: by dataAsOf when both say it. */
function newerThan(published: PublishedTimes, run: Pick<StagedRun, 'exportedAt' | 'dataAsOf'>): boolean {
  const asOf = run.dataAsOf === undefined ? Number.NaN : Date.parse(run.dataAsOf);
  if (!Number.isNaN(published.dataAsOf) && !Number.isNaN(asOf)) return published.dataAsOf > asOf;
  return !Number.isNaN(published.exportedAt) && published.exportedAt > Date.parse(run.exportedAt);
}

/** A published manifest's times, or undefined when there is none or it cannot tell. */
async function publishedTimes(store: ObjectStore, key: string): Promise<PublishedTimes | undefined> {
  const info = await store.head(key);
  if (info === undefined || info.size > MAX_MANIFEST_BYTES) return undefined;
  const bytes = await readObjectIfPresent(store, key);
  if (bytes === undefined) return undefined;
  try {
    const m = JSON.parse(Buffer.from(bytes).toString('utf8')) as { exportedAt?: unknown; dataAsOf?: unknown };
    const ms = (at: unknown) => (typeof at === 'string' ? Date.parse(at) : Number.NaN);
    const times = { exportedAt: ms(m.exportedAt), dataAsOf: ms(m.dataAsOf) };
    return Number.isNaN(times.exportedAt) && Number.isNaN(times.dataAsOf) ? undefined : times;
  } catch {
    return undefined;
  }
}

/** A data file two runs name would be added twice: the later run is invalid. */
function refuseSharedFiles(checked: Checked[]): void {
  const named = new Map<string, string>();
  for (const c of checked) {
    const shared = c.valid?.files.find((f) => named.has(f.key));
    if (shared !== undefined) {
      const reason = new StagedRunInvalid(
        c.outcome.key,
        `its data file ${shared.key} is the staged run ${named.get(shared.key)}'s too`,
      ).message;
      c.outcome = { ...c.outcome, status: 'invalid', reason, rows: 0, partitions: 0 };
      delete c.valid;
      continue;
    }
    for (const f of c.valid?.files ?? []) named.set(f.key, c.outcome.key);
  }
}

interface Checked {
  outcome: StagedRunOutcome;
  valid?: ValidRun;
}

async function validateAll(
  target: CommitTarget,
  refs: readonly StagedRunRef[],
  nowMs: number,
  ttlMs: number,
): Promise<Checked[]> {
  const out: Checked[] = [];
  await forEachLimited(
    refs.map((ref, i) => ({ ref, i })),
    4,
    async ({ ref, i }) => {
      const base = { key: ref.key, reportId: ref.reportId, runId: ref.runId };
      try {
        const valid = await validateRun(target, ref, nowMs, ttlMs);
        out[i] = {
          outcome: { ...base, status: 'committed', rows: valid.rows, partitions: valid.run.dts.length },
          valid,
        };
      } catch (error) {
        if (!(error instanceof StagedRunInvalid)) {
          if (error instanceof ExportError) throw error;
          throw new ExportError(
            EXPORT_ERROR_CODES.stagedReadFailed,
            `Reading the staged run ${ref.key} or its files failed: ${(error as Error).message}`,
            { cause: error },
          );
        }
        out[i] = { outcome: { ...base, status: 'invalid', reason: error.message, rows: 0, partitions: 0 } };
      }
    },
  );
  return out;
}

/**
 * A staged run checked against the objects: its body (readStagedRun), every data file under
 * its tenant's report's days of its dataset's table, stored with the size claimed and the rows
 * its footer declares, each day's rows those of its files and of its CSV parts, every CSV part
 * staged with its size.
 */
async function validateRun(
  target: CommitTarget,
  ref: StagedRunRef,
  nowMs: number,
  ttlMs: number,
): Promise<ValidRun> {
  const run = await readStagedRun(target.store, target.prefix, target.tenant, ref, nowMs, ttlMs);
  const bad = (why: string) => new StagedRunInvalid(ref.key, why);
  try {
    tableSchema({ dataset: run.dataset, promoted: run.promoted });
  } catch (error) {
    throw bad((error as Error).message);
  }
  const table = lakeTable({ store: target.store, prefix: target.prefix, ...target.tables }, run.dataset);
  const under = `${tableDataPrefix(table.location.key, run.tenant)}/report_id=${run.reportId}/`;
  // The table's current field ids, which every file's columns must carry: readers resolve a
  // column by its id, so a file must not give the `tenant` id to another column.
  const loaded = await loadTable(table);
  const expected = dataFileExpectation(loaded);
  const files: NewDataFile[] = [];
  for (const claimed of run.files) {
    if (!run.dts.includes(claimed.dt) || !isDataFileKey(claimed.key, `${under}dt=${claimed.dt}/`)) {
      throw bad(`the data file ${claimed.key} is not a file name under ${under}dt=<one of its days>/`);
    }
    if (files.some((f) => f.key === claimed.key)) throw bad(`it lists the data file ${claimed.key} twice`);
    try {
      files.push(await checkDataFile(target.store, claimed, expected));
    } catch (error) {
      if (error instanceof DataFileMismatch) throw bad(error.message);
      throw error;
    }
  }
  const layout = stagedLayout(target.prefix, run);
  for (const p of run.partitions) {
    const parquetRows = files.filter((f) => f.dt === p.dt).reduce((n, f) => n + f.rows, 0);
    const csvRows = p.csv.reduce((n, f) => n + f.rows, 0);
    if (parquetRows !== p.rows || csvRows !== p.rows) {
      throw bad(
        `day ${p.dt}: ${p.rows} rows claimed, ${parquetRows} in its data files, ${csvRows} in its CSV`,
      );
    }
    for (const part of p.csv) {
      const key = stagedCsvKey(layout, run.runId, p.dt, part.part);
      const info = await target.store.head(key);
      if (info === undefined) throw bad(`its staged CSV ${key} does not exist`);
      if (info.size !== part.bytes)
        throw bad(`its staged CSV ${key} is ${info.size} bytes, not ${part.bytes}`);
    }
  }
  return { ref, run, files, rows: files.reduce((n, f) => n + f.rows, 0) };
}

/**
 * The change of every valid run to `dataset`'s table: per report its days (the runs of that
 * dataset, and the days a shape-changed report empties there), a (report, day) several runs
 * replace taking the last run's files (runs in the order given). Undefined when none touches it.
 */
function tableChange(
  target: CommitTarget,
  valid: readonly ValidRun[],
  dataset: Dataset,
  commitId: string,
  extra: Record<string, string> | undefined,
): ReportsOverwrite | undefined {
  const byReport = new Map<string, Map<string, NewDataFile[]>>();
  const runs: ValidRun[] = [];
  const days = (reportId: string) => {
    const m = byReport.get(reportId) ?? new Map<string, NewDataFile[]>();
    byReport.set(reportId, m);
    return m;
  };
  for (const v of valid) {
    if (v.run.dataset === dataset) {
      runs.push(v);
      const m = days(v.run.reportId);
      for (const dt of v.run.dts)
        m.set(
          dt,
          v.files.filter((f) => f.dt === dt),
        );
    } else if (v.run.other?.dataset === dataset && v.run.other.dts.length > 0) {
      runs.push(v);
      const m = days(v.run.reportId);
      for (const dt of v.run.other.dts) m.set(dt, []);
    }
  }
  if (byReport.size === 0) return undefined;
  const reports: ReportDays[] = [...byReport].map(([reportId, m]) => {
    const dts = [...m.keys()].sort();
    return { reportId, dts, files: dts.flatMap((dt) => m.get(dt) ?? []) };
  });
  const rows = reports.reduce((n, r) => n + r.files.reduce((k, f) => k + f.rows, 0), 0);
  return {
    ...(target.tenant === undefined ? {} : { tenant: target.tenant }),
    reports,
    summary: {
      ...ours(extra),
      'report-export.run-id': capped(runs.map((v) => v.run.runId)),
      'report-export.request-id': capped([...new Set(runs.map((v) => v.run.requestId))]),
      'report-export.rows': String(rows),
      [STAGED_COMMIT_KEY]: commitId,
    },
  };
}

/** A summary value's longest list (a commit request refuses values over 8,000 characters). */
const MAX_LISTED_CHARS = 4_000;

/** `a,b,c`, or as many as fit and `+<n> more`: the staged runs' own records name every run. */
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

/** Commits one table's change, unless a snapshot of this staged commit is there already (a retry). */
async function commitTable(
  table: IcebergTable,
  change: ReportsOverwrite,
  commitId: string,
  options: CommitStagedOptions,
  setAside: SetAsideRequest[],
): Promise<TableCommitSummary> {
  const summary = (r: Pick<CommitResult, 'snapshotId' | 'sequenceNumber' | 'attempts' | 'conflicts'>) => ({
    catalog: table.catalog.kind,
    table: tableName(table),
    snapshotId: r.snapshotId,
    sequenceNumber: r.sequenceNumber,
    attempts: r.attempts,
    conflicts: r.conflicts,
  });
  const landed = await landedSnapshot(table, commitId);
  if (landed !== undefined) {
    return summary({
      snapshotId: landed['snapshot-id'],
      sequenceNumber: landed['sequence-number'],
      attempts: 0,
      conflicts: 0,
    });
  }
  const commitOptions = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    // No optimizer maintains a file catalog's table: its commits expire what the retention
    // expires (TABLE_RETENTION), as Glue's optimizer does for the deployed tables.
    expire: table.catalog.kind === 'file',
  };
  if (change.tenant === undefined) return summary(await commitOverwrite(table, change, commitOptions));
  const result = await commitOverwriteGrouped(table, change, {
    ...commitOptions,
    onSetAside: (request) =>
      options.logger?.warn('A commit request is invalid: set aside', { ...request, table: tableName(table) }),
  });
  setAside.push(...result.setAside);
  return summary(result);
}

/** The snapshot a staged commit made, if it landed (its id in the summary; a grouped snapshot joins ids with commas). */
async function landedSnapshot(table: IcebergTable, commitId: string): Promise<Snapshot | undefined> {
  const loaded = await loadTable(table);
  return loaded?.metadata.snapshots.find((s) => s.summary[STAGED_COMMIT_KEY]?.split(',').includes(commitId));
}

/**
 * Promotes every valid run's CSV, one inside the other's `finish`, so that a failure at any
 * point (the last being the tables' commit) rolls back every run promoted so far; a day two
 * runs replace ends up with the later run's.
 */
async function promoteAll(
  target: CommitTarget,
  valid: readonly ValidRun[],
  last: () => Promise<void>,
): Promise<void> {
  const step = async (i: number): Promise<void> => {
    const v = valid[i];
    if (v === undefined) return await last();
    const { run } = v;
    const context: PublishContext = {
      store: target.store,
      layout: stagedLayout(target.prefix, run),
      schema: tableSchema({ dataset: run.dataset, promoted: run.promoted }),
      runId: run.runId,
      requestId: run.requestId,
      window: run.window,
      exportedAt: run.exportedAt,
      dataAsOf: run.dataAsOf,
      reconciliation: run.reconciliation,
    };
    const partitions: PartitionOutput[] = run.partitions.map((p) => ({
      dt: p.dt,
      rows: p.rows,
      files: p.csv.map((f) => ({
        format: 'csv' as const,
        part: f.part,
        path: '',
        rows: f.rows,
        bytes: f.bytes,
        sha256: f.sha256,
      })),
      ...(p.quality === undefined ? {} : { quality: p.quality }),
      ...(p.callTotals === undefined ? {} : { callTotals: p.callTotals }),
    }));
    const also: Emptied | undefined =
      run.other === undefined || run.other.dts.length === 0
        ? undefined
        : { layout: stagedLayout(target.prefix, run, run.other.dataset), dts: run.other.dts };
    await promote(context, partitions, {
      formats: ['csv'],
      ...(also === undefined ? {} : { also }),
      finish: () => step(i + 1),
    });
  };
  await step(0);
}

/**
 * Removes the staging of every run whose reference names its own staged run of the target's
 * tenant (best effort: a bucket lifecycle rule expires what is left).
 */
async function removeStagings(target: CommitTarget, checked: readonly Checked[]): Promise<void> {
  const layout = { prefix: target.prefix, tenant: target.tenant };
  const runIds = checked
    .map((c) => c.outcome)
    .filter((o) => /^[A-Za-z0-9._-]{1,128}$/.test(o.runId) && !/^\.{1,2}$/.test(o.runId))
    .filter((o) => o.key === stagedRunKey(layout, o.runId))
    .map((o) => o.runId);
  await forEachLimited(runIds, 4, async (runId) => {
    await deleteStaging(target.store, layout, runId).catch(() => undefined);
  });
}
