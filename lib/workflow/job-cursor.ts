import type { Dataset, HeldPartition, QualityCounts } from '../export';
import { emptyQuality } from '../export';
import type { Job } from './plan';

/**
 * A local day read while it was still going on (the window included the day the report was
 * requested in the report's zone): its partition holds the day's calls up to `cutOff` only,
 * not the whole day. A later run over the day publishes it whole.
 */
export interface PartialDay {
  /** The local date of the partition (YYYY-MM-DD). */
  dt: string;
  /** When the service was asked for the day (ISO 8601, UTC): calls after it are not in the partition. */
  cutOff: string;
}

/** Held partitions listed per job (the rest counted): the cursor travels in state (256 KB). */
export const MAX_HELD_LISTED = 31;
/**
 * Partial days listed per job (the first ones): only days not over when requested are
 * partial, so one in practice, more only for a window reaching into the future.
 */
export const MAX_PARTIAL_DAYS_LISTED = 31;
/** Summary mismatches listed per job (the rest counted). */
export const MAX_MISMATCHES_LISTED = 5;

/**
 * Longest key of a staged run the cursor carries (its lake prefix, the tenant's staging area,
 * the run id, the object's name): each export of a job adds one to the state, so the state
 * budget (settings.ts) counts on it. A longer one (a very long lake prefix) is refused.
 */
export const MAX_STAGED_KEY_CHARS = 300;

/**
 * A run ExportResults staged for the Commit task (the core's StagedRunRef without what the
 * job already says: its report and tenant). One per export of the job: at most
 * MAX_REQUESTS_PER_JOB, and their days together at most the job's window.
 */
export interface StagedRun {
  key: string;
  runId: string;
  /** Every day it replaces, sorted. */
  dts: string[];
}

/** A result whose summary disagreed with its rows, published and flagged (summaryMismatch=flag). */
export interface SummaryMismatch {
  requestId: string;
  differences: string[];
  service: Record<string, number> | null;
  rows: Record<string, number>;
}

/**
 * A window still to request. Pieces of one busy local day carry `day`: they are requested
 * one by one and exported together, so the day's partition is published once, whole.
 */
export interface PendingWindow {
  from: string;
  to: string;
  day?: string;
}

/** A completed report run of a busy day's piece, waiting for the day's other pieces. */
interface ReadyPiece {
  requestId: string;
  from: string;
  to: string;
  /** When it was requested (ISO 8601): a piece reaching past it holds calls up to then. */
  requestedAt?: string;
}

/**
 * The state of one job as it moves through the Map iteration: ids, windows and counts
 * only (never a row or a token). Each task returns the next cursor.
 */
export interface JobCursor {
  queue: PendingWindow[];
  ready: ReadyPiece[];
  /** The report run in flight (queue[0]). */
  requestId: string;
  /** When it was requested (ISO 8601; empty before): the cut-off of a day not over yet. */
  requestedAt: string;
  /** `Running`, `Complete` or `Failed` (the Choice state reads it). */
  status: string;
  waitSeconds: number;
  polls: number;
  requests: number;
  splits: number;
  /** Task attempts that failed and were retried by the state machine ($$.State.RetryCount). */
  retries: number;
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  /** Partitions the shrink guard held (published ones kept), the first MAX_HELD_LISTED. */
  held: HeldPartition[];
  heldCount: number;
  /** Results whose summary disagreed with their rows, the first MAX_MISMATCHES_LISTED. */
  mismatches: SummaryMismatch[];
  mismatchCount: number;
  /** Data-quality counts summed over the partitions published. */
  quality: QualityCounts;
  /** Days published before they ended (the window included the day of the request). */
  partialDays: PartialDay[];
  /**
   * The newest snapshot the job committed to a table (Iceberg tables; null for the Hive
   * layout or before its first commit), and how many it committed. Optional for cursors of
   * a version before tables (an execution in flight across an upgrade).
   */
  snapshot?: TableSnapshotRef | null;
  commits?: number;
  /**
   * The runs staged for the Commit task (tables; none for the Hive layout, which publishes
   * at once), and the dataset they went to. Optional for cursors of a version before it.
   */
  staged?: StagedRun[];
  dataset?: Dataset;
  /** Local dates published (first and last), for freshness. */
  firstDate: string;
  lastDate: string;
  startedAt: string;
  /** When the last window was published (empty until then). */
  finishedAt: string;
  /** True once every window of the job is published. */
  done: boolean;
}

/** A snapshot of a lake table: the table's name and the snapshot's id. */
export interface TableSnapshotRef {
  table: string;
  snapshotId: number;
}

/** The input every task of a Map iteration gets. */
export interface JobTaskInput {
  runId: string;
  job: Job;
  cursor?: JobCursor | Record<string, never>;
  /** The task's retry count from the context object; 0 on a first attempt. */
  attempt?: number;
}

/** A job's first cursor: its one window queued. */
export function firstCursor(job: Job, now: Date): JobCursor {
  return {
    queue: [{ from: job.window.from, to: job.window.to }],
    ready: [],
    requestId: '',
    requestedAt: '',
    status: 'None',
    waitSeconds: 0,
    polls: 0,
    requests: 0,
    splits: 0,
    retries: 0,
    rows: 0,
    partitions: 0,
    files: 0,
    bytes: 0,
    held: [],
    heldCount: 0,
    mismatches: [],
    mismatchCount: 0,
    quality: emptyQuality(),
    partialDays: [],
    snapshot: null,
    commits: 0,
    staged: [],
    firstDate: '',
    lastDate: '',
    startedAt: now.toISOString(),
    finishedAt: '',
    done: false,
  };
}

/** The cursor carried by a task input, or a fresh one for the job's first task. */
export function cursorOf(input: JobTaskInput, now: Date): JobCursor {
  const c = input.cursor;
  return c !== undefined && Array.isArray((c as Partial<JobCursor>).queue)
    ? { ...firstCursor(input.job, now), ...(c as JobCursor) }
    : firstCursor(input.job, now);
}

/**
 * What the Commit task did for one job that staged runs: `committed` (every run landed in its
 * table's snapshot) or `invalid` (the committer refused at least one run: `reason` names the
 * first; the job's other runs landed). A job that staged nothing (every partition held, a
 * failure before its first window) has no entry.
 */
export interface JobCommit {
  jobId: string;
  status: 'committed' | 'invalid';
  /** Its runs committed, and refused. */
  runs: number;
  invalidRuns: number;
  /** The snapshots of the tables its runs landed in (one per table, the execution's). */
  snapshots: TableSnapshotRef[];
  /** The first refused run's reason, at most MAX_COMMIT_REASON_CHARS. */
  reason?: string;
  /**
   * How many days of its runs a newer export had published by the time they were committed:
   * kept as published, not replaced by these older rows (the committer's log names them; the
   * state has room for a count only).
   */
  superseded?: number;
}

/**
 * The Commit task's output (`$.commit`): small, whatever the run. `NOTHING`: no job staged a
 * run (a held-only run, the Hive layout): no snapshot. `FAILED` is the state machine's (its
 * Catch), with the error's name and cause; the staged runs are kept for a later run's retry.
 */
export interface CommitOutput {
  status: 'COMMITTED' | 'NOTHING' | 'FAILED';
  /** One snapshot per table committed (none for NOTHING or FAILED). */
  tables?: TableSnapshotRef[];
  jobs?: JobCommit[];
  /** The staged directory syncs (absent: none were staged, or the Commit task failed). */
  contacts?: ContactsCommit;
  error?: string;
  cause?: string;
}

/** Most refused directory syncs the Commit task's output lists (the rest counted): it travels in the state. */
export const MAX_INVALID_SYNCS_LISTED = 5;

/**
 * What the Commit task did with the execution's staged directory syncs: landed in one
 * snapshot per contact table, or refused (each named, with the reason), or failed (its error;
 * the calls' commit is not undone by it).
 */
export interface ContactsCommit {
  status: 'COMMITTED' | 'NOTHING' | 'FAILED';
  tables: TableSnapshotRef[];
  /** Staged syncs that landed (every staged one not listed invalid). */
  committed: number;
  invalid: { directoryId: string; reason: string }[];
  invalidCount: number;
  error?: { name: string; message: string };
}
