import { toWorkflowError } from './classify';
import { exportResults } from './export-task';
import { type FinalizeOutput, finalizeRun, type MetricsSink } from './finalize';
import type { JobCursor, JobTaskInput } from './job-cursor';
import { type JobOptions, type Plan, planExecution } from './plan';
import { checkStatus, requestReport } from './report-tasks';
import type { FinalizeInput } from './run-record';
import type { WorkflowRuntime } from './runtime';
import { MAX_ERROR_CAUSE_CHARS } from './settings';

/** What the Lambda context gives a handler: time left before the deadline. */
export interface TaskContext {
  getRemainingTimeInMillis(): number;
  /** Aborts the task at once (a local run interrupted by its user); never set in Lambda. */
  signal?: AbortSignal;
}

/** Stop this long before the deadline so a task can clean up (the export publishes nothing). */
const DEADLINE_MARGIN_MS = 60_000;
/** Short tasks stop this long before their deadline. */
const SHORT_DEADLINE_MARGIN_MS = 10_000;

function deadlineSignal(context: TaskContext | undefined, marginMs: number): AbortSignal | undefined {
  if (context === undefined) return undefined;
  const deadline = AbortSignal.timeout(Math.max(1000, context.getRemainingTimeInMillis() - marginMs));
  return context.signal === undefined ? deadline : AbortSignal.any([deadline, context.signal]);
}

/** Runs a handler body, logging its failure by name (never the input's secrets: there are none in state). */
async function logged<T>(runtime: WorkflowRuntime, task: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const named = toWorkflowError(error, task);
    runtime.logger.error(`${task} failed`, { error: named.name, code: named.code, message: named.message });
    throw boundedForState(named);
  }
}

/**
 * The error as the state will carry it: a Catch puts Lambda's error JSON (message and stack
 * frames) in the job's result, so its message is cut to MAX_ERROR_CAUSE_CHARS (the logged
 * one is whole) and its frames dropped; the job count's state budget counts on it.
 */
function boundedForState<E extends Error>(error: E): E {
  if (error.message.length > MAX_ERROR_CAUSE_CHARS) {
    error.message = `${error.message.slice(0, MAX_ERROR_CAUSE_CHARS - 1)}…`;
  }
  error.stack = `${error.name}: ${error.message}`;
  return error;
}

/** Plan: validates the input and turns it into jobs. No call to the service. */
export function createPlanHandler(runtime: WorkflowRuntime) {
  return (event: { input: unknown; executionName: string; startedAt?: string }): Promise<Plan> =>
    logged(runtime, 'Plan', async () => {
      const started = event.startedAt === undefined ? Number.NaN : Date.parse(event.startedAt);
      const plan = planExecution(event.input, runtime.settings, {
        executionName: event.executionName,
        ...(Number.isNaN(started) ? {} : { now: new Date(started) }),
      });
      runtime.logger.info('planned', {
        runId: plan.runId,
        jobs: plan.jobCount,
        continues: plan.hasContinuation,
      });
      return plan;
    });
}

export function createRequestReportHandler(runtime: WorkflowRuntime) {
  return (event: JobTaskInput & { options: JobOptions }, context?: TaskContext): Promise<JobCursor> =>
    logged(runtime, 'RequestReport', async () => {
      const api = await runtime.client();
      const signal = deadlineSignal(context, SHORT_DEADLINE_MARGIN_MS);
      const cursor = await requestReport(event, {
        reporting: api.reporting,
        poll: runtime.settings.poll,
        ...(signal === undefined ? {} : { signal }),
      });
      runtime.logger.info('report requested', { jobId: event.job.jobId, requestId: cursor.requestId });
      return cursor;
    });
}

export function createCheckStatusHandler(runtime: WorkflowRuntime) {
  return (event: JobTaskInput, context?: TaskContext): Promise<JobCursor> =>
    logged(runtime, 'CheckStatus', async () => {
      const api = await runtime.client();
      const signal = deadlineSignal(context, SHORT_DEADLINE_MARGIN_MS);
      return checkStatus(event, {
        reporting: api.reporting,
        poll: runtime.settings.poll,
        ...(signal === undefined ? {} : { signal }),
      });
    });
}

export function createExportResultsHandler(runtime: WorkflowRuntime) {
  return (event: JobTaskInput, context?: TaskContext): Promise<JobCursor> =>
    logged(runtime, 'ExportResults', async () => {
      const api = await runtime.client();
      const signal = deadlineSignal(context, DEADLINE_MARGIN_MS);
      const s = runtime.settings;
      const cursor = await exportResults(event, {
        reporting: api.reporting,
        store: runtime.objects.store,
        prefix: runtime.objects.prefix,
        tables: runtime.tables,
        leases: runtime.leases,
        timeZone: s.timeZone,
        minSplitMinutes: s.minSplitMinutes,
        csvGzip: s.csvGzip,
        parquetCodec: s.parquetCodec,
        ...(s.spillBudgetBytes === undefined ? {} : { spillBudgetBytes: s.spillBudgetBytes }),
        promotedColumns: s.promotedColumns,
        summaryMismatch: s.summaryMismatch,
        minShareOfPublished: s.minShareOfPublished,
        logger: runtime.logger,
        owner: runtime.owner,
        ...(signal === undefined ? {} : { signal }),
        ...(context?.signal === undefined ? {} : { interrupted: context.signal }),
      });
      runtime.logger.info('exported', {
        jobId: event.job.jobId,
        rows: cursor.rows,
        partitions: cursor.partitions,
        done: cursor.done,
        ...(cursor.heldCount > 0 ? { held: cursor.held, heldCount: cursor.heldCount } : {}),
        ...(cursor.mismatchCount > 0 ? { summaryMismatches: cursor.mismatchCount } : {}),
        ...(cursor.partialDays.length > 0 ? { partialDays: cursor.partialDays } : {}),
        ...(cursor.snapshot ? { snapshot: cursor.snapshot } : {}),
      });
      return cursor;
    });
}

export function createFinalizeHandler(runtime: WorkflowRuntime, metrics: () => MetricsSink) {
  return (event: FinalizeInput): Promise<FinalizeOutput> =>
    logged(runtime, 'Finalize', async () => {
      const out = await finalizeRun(event, {
        store: runtime.objects.store,
        prefix: runtime.objects.prefix,
        metrics: metrics(),
      });
      runtime.logger.info('run finalized', { ...out });
      return out;
    });
}
