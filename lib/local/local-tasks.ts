import { STATE_NAMES } from '../infra';
import type { MetricsSink, WorkflowRuntime } from '../workflow';
import {
  createCheckStatusHandler,
  createCommitHandler,
  createExportResultsHandler,
  createFinalizeHandler,
  createPlanHandler,
  createPrepareTablesHandler,
  createRequestReportHandler,
  createSyncDirectoriesHandler,
  type TaskContext,
} from '../workflow';
import type { FunctionProcesses } from './function-processes';

/** What runs the workflow's Lambda Tasks locally. */
export interface LocalTasks {
  /** Runs the function of Task `state` with `event`; rejects with the error name Step Functions would see. */
  invoke(state: string, event: unknown, signal?: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The deployed functions: each Task's bundle in its own execution environments
 * (FunctionProcesses), by the function the template names for the Task.
 */
export function processTasks(functions: Record<string, FunctionProcesses>): LocalTasks {
  return {
    invoke(state, event, signal) {
      const fn = functions[state];
      if (fn === undefined) return Promise.reject(new Error(`No function for Task ${state}`));
      return fn.invoke(event, signal);
    },
    async close() {
      await Promise.all([...new Set(Object.values(functions))].map((f) => f.close()));
    },
  };
}

interface InProcessTaskOptions {
  /** The deadline the ExportResults handler gets (its Lambda timeout). Default 15 minutes. */
  exportDeadlineMs?: number;
  /** The deadline of the short tasks (their Lambda timeout). Default 120 s. */
  shortDeadlineMs?: number;
  /** The deadline the Commit handler gets (its Lambda timeout). Default 300 s. */
  commitDeadlineMs?: number;
  /** The deadline the SyncDirectories handler gets (its Lambda timeout). Default 600 s. */
  syncDeadlineMs?: number;
}

/**
 * The handler factories behind the bundles, called in this process on `runtime`: for tests
 * that need to reach inside a handler (an injected fetch, a clock). Not what deploys: the
 * end-to-end runs use {@link processTasks}.
 */
export function inProcessTasks(
  runtime: WorkflowRuntime,
  metrics: () => MetricsSink,
  options: InProcessTaskOptions = {},
): LocalTasks {
  const plan = createPlanHandler(runtime);
  const request = createRequestReportHandler(runtime);
  const check = createCheckStatusHandler(runtime);
  const exportResults = createExportResultsHandler(runtime);
  const syncDirectories = createSyncDirectoriesHandler(runtime);
  const prepareTables = createPrepareTablesHandler(runtime);
  const commit = createCommitHandler(runtime);
  const finalize = createFinalizeHandler(runtime, metrics);
  const context = (timeoutMs: number, signal: AbortSignal | undefined): TaskContext => {
    const started = Date.now();
    return {
      getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started),
      ...(signal === undefined ? {} : { signal }),
    };
  };
  const short = options.shortDeadlineMs ?? 120_000;
  const byState: Record<string, (e: never, signal?: AbortSignal) => Promise<unknown>> = {
    [STATE_NAMES.plan]: (e) => plan(e),
    [STATE_NAMES.prepareTables]: (e, s) => prepareTables(e, context(options.commitDeadlineMs ?? 300_000, s)),
    [STATE_NAMES.requestReport]: (e, s) => request(e, context(short, s)),
    [STATE_NAMES.checkStatus]: (e, s) => check(e, context(short, s)),
    [STATE_NAMES.exportResults]: (e, s) =>
      exportResults(e, context(options.exportDeadlineMs ?? 15 * 60_000, s)),
    [STATE_NAMES.syncDirectories]: (e, s) =>
      syncDirectories(e, context(options.syncDeadlineMs ?? 600_000, s)),
    [STATE_NAMES.commit]: (e, s) => commit(e, context(options.commitDeadlineMs ?? 300_000, s)),
    [STATE_NAMES.finalize]: (e) => finalize(e),
    [STATE_NAMES.recordFailure]: (e) => finalize(e),
  };
  return {
    invoke(state, event, signal) {
      const fn = byState[state];
      if (fn === undefined) return Promise.reject(new Error(`No handler for Task ${state}`));
      return fn(event as never, signal);
    },
    close: () => Promise.resolve(),
  };
}
