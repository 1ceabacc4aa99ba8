import { dayWindow } from '../export/window';
import type { ObjectStore } from '../stores/object-store';
import { toWorkflowError } from './classify';
import type { ExecutionInput } from './input';
import type { JobCursor } from './job-cursor';
import type { Plan } from './plan';

/** What a Map iteration returns: the job, how it ended, and its cursor's counts. */
export interface JobResult {
  jobId: string;
  reportId: string;
  reportName: string;
  status: 'SUCCEEDED' | 'FAILED';
  error?: string;
  cause?: string;
  progress?: Partial<JobCursor>;
}

/** A failure caught outside the jobs (invalid input, Plan, the Map itself). */
export interface CaughtFailure {
  Error: string;
  Cause?: string;
}

export interface FinalizeInput {
  input: unknown;
  executionName: string;
  startedAt: string;
  plan?: Pick<Plan, 'runId' | 'mode' | 'dates' | 'jobCount' | 'hasContinuation' | 'timeZone'>;
  results?: JobResult[];
  failure?: CaughtFailure;
}

/** The run record: one JSON line per execution under `runs/`. */
export interface RunRecord {
  runId: string;
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
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  requests: number;
  polls: number;
  splits: number;
  retries: number;
  newestDate: string | null;
  continued: boolean;
  error: string | null;
  cause: string | null;
}

export interface RunRecordJob {
  jobId: string;
  reportId: string;
  reportName: string;
  status: 'SUCCEEDED' | 'FAILED';
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  requests: number;
  polls: number;
  splits: number;
  retries: number;
  firstDate: string | null;
  lastDate: string | null;
  durationMs: number | null;
  error: string | null;
  cause: string | null;
}

/** Metrics port (Powertools Metrics in Lambda, a file locally). */
export interface MetricsSink {
  add(name: string, unit: 'Count' | 'Seconds' | 'Bytes', value: number): void;
  flush(): void | Promise<void>;
}

export interface FinalizeDeps {
  store: ObjectStore;
  prefix: string;
  metrics: MetricsSink;
  now?: () => Date;
}

/** What Finalize returns to the state machine: counts and, on failure, the error name. */
export interface FinalizeOutput {
  runId: string;
  status: 'SUCCEEDED' | 'FAILED';
  jobs: number;
  failedJobs: number;
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  runRecordKey: string;
  error: string | null;
  cause: string;
  hasContinuation: boolean;
}

/** The Lambda error's message from a Catch's `Cause` (a JSON text with a stack); never the stack. */
export function causeMessage(cause: string | undefined): string | null {
  if (cause === undefined || cause === '') return null;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage.slice(0, 2000);
  } catch {
    // a plain text cause
  }
  return cause.slice(0, 2000);
}

/** Builds the run record from the Map's results (pure). */
export function buildRunRecord(input: FinalizeInput, finishedAt: Date): RunRecord {
  const results = input.results ?? [];
  const jobs = results.map(toRecordJob);
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
    parentRunId: typeof parent === 'string' ? parent : null,
    executionName: input.executionName,
    status: error === null ? 'SUCCEEDED' : 'FAILED',
    mode: input.plan?.mode ?? null,
    input: input.input as ExecutionInput,
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
    newestDate: newest === '' ? null : newest,
    continued: input.plan?.hasContinuation ?? false,
    error,
    cause,
  };
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
    firstDate: p.firstDate || null,
    lastDate: p.lastDate || null,
    durationMs:
      Number.isNaN(started) || !p.finishedAt ? null : Math.max(0, Date.parse(p.finishedAt) - started),
    error: r.status === 'FAILED' ? (r.error ?? 'States.ALL') : null,
    cause: r.status === 'FAILED' ? causeMessage(r.cause) : null,
  };
}

/**
 * Key of a run record: `<prefix>/runs/dt=<UTC start date>/<runId>.json`. A failure caught
 * outside the jobs (Plan, the Map, Finalize, the continuation) is recorded beside it as
 * `<runId>.failure.json`, so it never replaces a record Finalize already wrote.
 */
export function runRecordKey(
  prefix: string,
  record: Pick<RunRecord, 'runId' | 'startedAt'>,
  kind: 'run' | 'failure' = 'run',
): string {
  const dt = record.startedAt.slice(0, 10);
  const name = kind === 'run' ? record.runId : `${record.runId}.failure`;
  return `${prefix === '' ? '' : `${prefix}/`}runs/dt=${dt}/${name}.json`;
}

/**
 * Finalize: writes the run record (one JSON line) and publishes the run's metrics. Never
 * throws for a failed job: it reports it, and the state machine fails the execution.
 */
export async function finalizeRun(input: FinalizeInput, deps: FinalizeDeps): Promise<FinalizeOutput> {
  const now = deps.now?.() ?? new Date();
  const record = buildRunRecord(input, now);
  const key = runRecordKey(deps.prefix, record, input.failure === undefined ? 'run' : 'failure');
  try {
    await deps.store.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/x-ndjson' });
  } catch (error) {
    throw toWorkflowError(error, 'Writing the run record');
  }
  deps.metrics.add('RowsExported', 'Count', record.rows);
  deps.metrics.add('PartitionsPublished', 'Count', record.partitions);
  deps.metrics.add('RunDuration', 'Seconds', record.durationMs / 1000);
  deps.metrics.add('FailedJobs', 'Count', record.failedJobs + (input.failure === undefined ? 0 : 1));
  if (record.newestDate !== null) {
    // Age of the newest exported day: time since that local day ended in the report's zone.
    const zone = input.plan?.timeZone ?? 'UTC';
    const endOfDay = Date.parse(dayWindow(record.newestDate, zone).to);
    deps.metrics.add('NewestDayAge', 'Seconds', Math.max(0, (now.getTime() - endOfDay) / 1000));
  }
  await deps.metrics.flush();
  return {
    runId: record.runId,
    status: record.status,
    jobs: record.jobs.length,
    failedJobs: record.failedJobs,
    rows: record.rows,
    partitions: record.partitions,
    files: record.files,
    bytes: record.bytes,
    runRecordKey: key,
    error: record.error,
    // A Fail state's CausePath must resolve to a string.
    cause: record.cause ?? '',
    // A failed job does not stop a long backfill: the rest continues, then this one fails.
    hasContinuation: record.continued,
  };
}
