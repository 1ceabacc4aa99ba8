import type { HeldPartition, QualityCounts } from '../export';
import { emptyQuality, tenantSegment } from '../export';
import type { DirectorySyncReport, DirectorySyncSummary } from './directory-sync-task';
import type { DirectorySyncOutcome, SyncError } from './directory-sync-types';
import { TASK_ERROR_NAMES } from './error-table';
import { WORKFLOW_ERROR_CODES } from './errors';
import type { ExecutionInput } from './input';
import type {
  CommitOutput,
  JobCommit,
  JobCursor,
  PartialDay,
  SummaryMismatch,
  TableSnapshotRef,
} from './job-cursor';

export type { PartialDay } from './job-cursor';

import type { Plan } from './plan';

/**
 * The run record, in one place: its format (one JSON line per execution under
 * `<prefix>/runs/dt=<UTC start date>/`, a tenant's under `<prefix>/runs/tenant=<t>/dt=.../`),
 * how Finalize builds it from the Map's results, its key, how a reader lists (one tenant's
 * or every tenant's) and parses them. The Glue `runs` table's
 * columns come from these types (lib/infra/lake-tables.ts).
 */

/** What a Map iteration returns: the job, how it ended, and its cursor's counts. */
interface JobResult {
  jobId: string;
  reportId: string;
  reportName: string;
  status: 'SUCCEEDED' | 'FAILED';
  error?: string;
  cause?: string;
  progress?: Partial<JobCursor>;
}

/** A failure caught outside the jobs (invalid input, Plan, the Map itself). */
interface CaughtFailure {
  Error: string;
  Cause?: string;
}

export interface FinalizeInput {
  /** The execution input: Finalize's only (RecordFailure's payload never carries it). */
  input?: unknown;
  executionName: string;
  startedAt: string;
  plan?: Pick<Plan, 'runId' | 'mode' | 'dates' | 'jobCount' | 'hasContinuation' | 'timeZone'> &
    Partial<Pick<Plan, 'tenant'>>;
  results?: JobResult[];
  /** What the Commit task did (absent: an execution of a version before it, or a failure before it). */
  commit?: CommitOutput;
  /** The contacts branch's summary (absent or null: the execution synced no directory). */
  contacts?: DirectorySyncSummary | null;
  failure?: CaughtFailure;
}

/** A directory's outcome as the run record keeps it: the sync's, without the staged key. */
export type RunRecordDirectory = Omit<DirectorySyncOutcome, 'staged'>;

/**
 * The contact directories of a run: `synced` (some changed, all landed), `unchanged` (none
 * changed), `partial` (some failed or were held, others landed or were unchanged), `failed`
 * (none could be synced: the listing failed, or every directory failed), `skipped` (the
 * execution synced none). `error`: the listing's, else the first failed directory's.
 */
export interface RunRecordContacts {
  status: 'synced' | 'unchanged' | 'partial' | 'failed' | 'skipped';
  directories: RunRecordDirectory[];
  error?: SyncError;
}

/** What a run and each of its jobs count. */
interface RunCounts {
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  requests: number;
  polls: number;
  splits: number;
  retries: number;
}

/** The run record: one JSON line per execution under `runs/`. */
export interface RunRecord extends RunCounts {
  runId: string;
  /** The execution's tenant (multi-tenant deployments; absent in a single-tenant one's records). */
  tenant?: string;
  parentRunId: string | null;
  executionName: string;
  status: 'SUCCEEDED' | 'FAILED';
  mode: string | null;
  input: unknown;
  dateFrom: string | null;
  dateTo: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  jobs: RunRecordJob[];
  jobCount: number;
  failedJobs: number;
  /** Partitions the shrink guard held, over every job (each job lists its first ones). */
  heldPartitions: number;
  /** Results published whose summary disagreed with their rows (each job lists its first ones). */
  summaryMismatches: number;
  /** Data-quality counts over every partition published. */
  quality: QualityCounts;
  /** Days published partial, over every job: one per day, with its earliest cut-off. */
  partialDays: PartialDay[];
  newestDate: string | null;
  continued: boolean;
  error: string | null;
  cause: string | null;
  /** The contact directories' sync (issue 29). */
  contacts: RunRecordContacts;
}

export interface RunRecordJob extends RunCounts {
  jobId: string;
  reportId: string;
  reportName: string;
  status: 'SUCCEEDED' | 'FAILED';
  /** Days the shrink guard held: which day, its published rows and this run's. */
  held: HeldPartition[];
  heldCount: number;
  mismatches: SummaryMismatch[];
  mismatchCount: number;
  quality: QualityCounts;
  /** Days this job published partial (read before the day ended), each with its cut-off. */
  partialDays: PartialDay[];
  /** The newest table snapshot the job committed (null: none, or the Hive layout), and its commits. */
  snapshot: TableSnapshotRef | null;
  commits: number;
  /** What the Commit task did with the runs the job staged (null: it staged none). */
  commit: RunRecordJobCommit | null;
  firstDate: string | null;
  lastDate: string | null;
  durationMs: number | null;
  error: string | null;
  cause: string | null;
}

/**
 * A job's staged runs after the Commit task: `committed` (in the snapshots named), `invalid`
 * (the committer refused a run: the reason names it; the others landed), `failed` (the
 * Commit task failed: nothing of the execution landed; the reason is its error's).
 */
export interface RunRecordJobCommit {
  status: 'committed' | 'invalid' | 'failed';
  runs: number;
  invalidRuns: number;
  snapshots: TableSnapshotRef[];
  reason: string | null;
  /** Days a newer export had published: kept, not replaced by this run (JobCommit.superseded). */
  superseded: number;
}

/** The Lambda error's message from a Catch's `Cause` (a JSON text with a stack); never the stack. */
function causeMessage(cause: string | undefined): string | null {
  if (cause === undefined || cause === '') return null;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage.slice(0, 2000);
  } catch {
    // a plain text cause
  }
  return cause.slice(0, 2000);
}

/**
 * Builds the run record from the Map's results (pure). `tenant`: the execution's (Finalize
 * resolves it), recorded when there is one.
 */
export function buildRunRecord(
  input: FinalizeInput,
  finishedAt: Date,
  tenant?: string,
  directories?: DirectorySyncReport | 'unreadable',
): RunRecord {
  const results = input.results ?? [];
  const jobs = results.map((r) => withCommit(toRecordJob(r), r, input.commit));
  const failed = jobs.filter((j) => j.status === 'FAILED');
  const total = (pick: (j: RunRecordJob) => number) => jobs.reduce((n, j) => n + pick(j), 0);
  const newest = jobs.map((j) => j.lastDate ?? '').reduce((a, b) => (b > a ? b : a), '');
  const firstFailure = failed[0];
  const error = input.failure?.Error ?? firstFailure?.error ?? null;
  const cause =
    input.failure === undefined ? (firstFailure?.cause ?? null) : causeMessage(input.failure.Cause);
  const parent = (input.input as { parentRunId?: unknown } | null)?.parentRunId;
  return {
    runId: input.plan?.runId ?? input.executionName,
    ...(tenant === undefined ? {} : { tenant }),
    parentRunId: typeof parent === 'string' ? parent : null,
    executionName: input.executionName,
    status: error === null ? 'SUCCEEDED' : 'FAILED',
    mode: input.plan?.mode ?? null,
    input: (input.input ?? null) as ExecutionInput | null,
    dateFrom: input.plan?.dates?.from ?? null,
    dateTo: input.plan?.dates?.to ?? null,
    startedAt: input.startedAt,
    finishedAt: finishedAt.toISOString(),
    durationMs: Math.max(0, finishedAt.getTime() - Date.parse(input.startedAt)),
    jobs,
    jobCount: input.plan?.jobCount ?? jobs.length,
    failedJobs: failed.length,
    rows: total((j) => j.rows),
    partitions: total((j) => j.partitions),
    files: total((j) => j.files),
    bytes: total((j) => j.bytes),
    requests: total((j) => j.requests),
    polls: total((j) => j.polls),
    splits: total((j) => j.splits),
    retries: total((j) => j.retries),
    heldPartitions: total((j) => j.heldCount),
    summaryMismatches: total((j) => j.mismatchCount),
    quality: sumQuality(jobs.map((j) => j.quality)),
    partialDays: earliestCutOffs(jobs.flatMap((j) => j.partialDays)),
    newestDate: newest === '' ? null : newest,
    continued: input.plan?.hasContinuation ?? false,
    error,
    cause,
    contacts: contactsOfRun(input.contacts, directories, input.commit),
  };
}

/**
 * The directories' part of the record (pure): the sync's outcomes from its report, each staged
 * one as the Commit task left it (committed, refused by the committer, or failed with the
 * Commit task). A failure of the branch itself (its Catch) names its error.
 */
export function contactsOfRun(
  summary: DirectorySyncSummary | null | undefined,
  report: DirectorySyncReport | 'unreadable' | undefined,
  commit: CommitOutput | undefined,
): RunRecordContacts {
  if (summary === undefined || summary === null || summary.status === 'SKIPPED') {
    return { status: 'skipped', directories: [] };
  }
  if (report === undefined || report === 'unreadable') {
    // A caught task failure (the branch's Catch): its error's name, the message from its Cause.
    const unknown = `the directory sync report ${summary.report ?? ''} could not be read: its outcomes are unknown`;
    const error: SyncError =
      summary.cause === undefined
        ? (summary.error ?? { name: 'StoreFailedError', message: unknown })
        : {
            name: summary.error?.name ?? 'States.ALL',
            message: causeMessage(summary.cause) ?? summary.error?.message ?? unknown,
          };
    return { status: 'failed', directories: [], error };
  }
  const landed = commit?.contacts;
  const refused = new Map((landed?.invalid ?? []).map((i) => [i.directoryId, i.reason]));
  const directories: RunRecordDirectory[] = report.outcomes.map(({ staged: _, ...o }) => {
    if (o.status !== 'staged') return o;
    const reason = refused.get(o.directoryId);
    if (reason !== undefined) {
      return { ...o, status: 'failed', error: { name: 'StagedDirectorySyncInvalidError', message: reason } };
    }
    if (landed === undefined || landed.status === 'FAILED' || commit?.status === 'FAILED') {
      const why = landed?.error ?? {
        name: commit?.error ?? 'StagedDirectorySyncNotCommitted',
        message:
          causeMessage(commit?.cause) ?? 'the Commit task gave no outcome for the staged directory syncs',
      };
      return { ...o, status: 'failed', error: why };
    }
    return { ...o, status: 'committed' };
  });
  const count = (s: RunRecordDirectory['status']) => directories.filter((d) => d.status === s).length;
  const failed = count('failed');
  const held = count('held');
  const ok = directories.length - failed - held;
  const error = report.error ?? directories.find((d) => d.status === 'failed')?.error;
  const status: RunRecordContacts['status'] =
    report.error !== undefined
      ? 'failed'
      : failed + held > 0
        ? ok === 0 && held === 0
          ? 'failed'
          : 'partial'
        : count('committed') > 0
          ? 'synced'
          : 'unchanged';
  return { status, directories, ...(error === undefined ? {} : { error }) };
}

function toRecordJob(r: JobResult): RunRecordJob {
  const p = r.progress ?? {};
  const started = p.startedAt === undefined ? Number.NaN : Date.parse(p.startedAt);
  return {
    jobId: r.jobId,
    reportId: r.reportId,
    reportName: r.reportName,
    status: r.status,
    rows: p.rows ?? 0,
    partitions: p.partitions ?? 0,
    files: p.files ?? 0,
    bytes: p.bytes ?? 0,
    requests: p.requests ?? 0,
    polls: p.polls ?? 0,
    splits: p.splits ?? 0,
    retries: p.retries ?? 0,
    held: p.held ?? [],
    heldCount: p.heldCount ?? 0,
    mismatches: p.mismatches ?? [],
    mismatchCount: p.mismatchCount ?? 0,
    quality: { ...emptyQuality(), ...p.quality },
    partialDays: p.partialDays ?? [],
    snapshot: p.snapshot ?? null,
    commits: p.commits ?? 0,
    commit: null,
    firstDate: p.firstDate || null,
    lastDate: p.lastDate || null,
    durationMs:
      Number.isNaN(started) || !p.finishedAt ? null : Math.max(0, Date.parse(p.finishedAt) - started),
    error: r.status === 'FAILED' ? (r.error ?? 'States.ALL') : null,
    cause: r.status === 'FAILED' ? causeMessage(r.cause) : null,
  };
}

/**
 * The job as the Commit task left it: its commit's snapshot, and a job whose staged runs did
 * not all land failed (StagedRunInvalidError, or the Commit task's error), naming why.
 */
function withCommit(job: RunRecordJob, result: JobResult, commit: CommitOutput | undefined): RunRecordJob {
  if (commit === undefined || (result.progress?.staged ?? []).length === 0) return job;
  const done: JobCommit | undefined = commit.jobs?.find((j) => j.jobId === result.jobId);
  const recorded: RunRecordJobCommit =
    commit.status === 'FAILED' || done === undefined
      ? {
          status: 'failed',
          runs: 0,
          invalidRuns: 0,
          snapshots: [],
          reason: causeMessage(commit.cause) ?? commit.error ?? 'the Commit task gave no outcome for the job',
          superseded: 0,
        }
      : {
          status: done.status,
          runs: done.runs,
          invalidRuns: done.invalidRuns,
          snapshots: done.snapshots,
          reason: done.reason ?? null,
          superseded: done.superseded ?? 0,
        };
  const landed = {
    ...job,
    commit: recorded,
    ...(recorded.snapshots.length === 0
      ? {}
      : { snapshot: recorded.snapshots[0] ?? null, commits: recorded.snapshots.length }),
  };
  if (recorded.status === 'committed' || job.status === 'FAILED') return landed;
  return {
    ...landed,
    status: 'FAILED',
    error:
      recorded.status === 'invalid'
        ? TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.stagedRunInvalid]
        : (commit.error ?? 'States.ALL'),
    cause: recorded.reason,
  };
}

/**
 * Key of a run record: `<prefix>/runs/dt=<UTC start date>/<runId>.json`, a tenant's
 * `<prefix>/runs/tenant=<t>/dt=<UTC start date>/<runId>.json`. A failure caught outside the
 * jobs (Plan, the Map, Finalize, the continuation) is recorded beside it as
 * `<runId>.failure.json`, so it never replaces a record Finalize already wrote.
 */
export function runRecordKey(
  prefix: string,
  record: Pick<RunRecord, 'runId' | 'startedAt' | 'tenant'>,
  kind: 'run' | 'failure' = 'run',
): string {
  const dt = record.startedAt.slice(0, 10);
  const name = kind === 'run' ? record.runId : `${record.runId}.failure`;
  return `${runRecordsPrefix(prefix, record.tenant)}dt=${dt}/${name}.json`;
}

/**
 * Where run records are listed: every record of the lake (`<prefix>/runs/`, every tenant's
 * included) or, with `tenant`, that tenant's (`<prefix>/runs/tenant=<t>/`).
 */
export function runRecordsPrefix(prefix: string, tenant?: string): string {
  return `${prefix === '' ? '' : `${prefix}/`}runs/${tenant === undefined ? '' : `${tenantSegment(tenant)}/`}`;
}

/** What a run record's key says: its tenant (null: none), UTC date, run id and kind. */
export interface RunRecordKeyParts {
  tenant: string | null;
  dt: string;
  runId: string;
  kind: 'run' | 'failure';
}

const RUN_RECORD_KEY =
  /(?:^|\/)runs\/(?:tenant=([a-z0-9-]{1,32})\/)?dt=(\d{4}-\d{2}-\d{2})\/([^/]+?)(\.failure)?\.json$/;

/**
 * A listed key read as a run record's (undefined: not one). A reader lists
 * {@link runRecordsPrefix} and keeps the keys this reads, by tenant or all of them.
 */
export function parseRunRecordKey(key: string): RunRecordKeyParts | undefined {
  const m = RUN_RECORD_KEY.exec(key);
  if (m === null) return undefined;
  return {
    tenant: m[1] ?? null,
    dt: m[2] as string,
    runId: m[3] as string,
    kind: m[4] === undefined ? 'run' : 'failure',
  };
}

/** A record read back, or why the text is not one (a reader needs runId and startedAt). */
export function parseRunRecord(text: string): RunRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const { runId, startedAt } = value as Record<string, unknown>;
  if (typeof runId !== 'string' || typeof startedAt !== 'string') return 'no runId or startedAt';
  return value as RunRecord;
}

/** One entry per day, the earliest cut-off of the day's entries, in date order. */
function earliestCutOffs(days: readonly PartialDay[]): PartialDay[] {
  const byDay = new Map<string, string>();
  for (const d of days) {
    const seen = byDay.get(d.dt);
    if (seen === undefined || d.cutOff < seen) byDay.set(d.dt, d.cutOff);
  }
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([dt, cutOff]) => ({ dt, cutOff }));
}

/** Quality counts added up, count by count. */
export function sumQuality(counts: readonly QualityCounts[]): QualityCounts {
  const sum = emptyQuality();
  for (const c of counts) for (const k of Object.keys(sum) as (keyof QualityCounts)[]) sum[k] += c[k];
  return sum;
}
