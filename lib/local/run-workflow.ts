import './promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { STATE_NAMES, TASK_STATES } from '../infra/state-names';
import type { FinalizeOutput, MetricsSink } from '../workflow/finalize';
import {
  createCheckStatusHandler,
  createExportResultsHandler,
  createFinalizeHandler,
  createPlanHandler,
  createRequestReportHandler,
} from '../workflow/handlers';
import type { WorkflowRuntime } from '../workflow/runtime';
import type { StateMachineDefinition } from './definition';
import { awsHistoryEvents, type EngineEvent } from './history';

export interface LocalWorkflowOptions {
  runtime: WorkflowRuntime;
  metrics: () => MetricsSink;
  /** Default: the definition the CDK app synthesizes. */
  definition?: StateMachineDefinition;
  /** Every Wait state lasts this long locally. Default 20 ms; `null` keeps the state's own seconds (a real service). */
  waitMs?: number | null;
  /** Every Retry interval lasts this long locally. Default 20 ms. */
  retryMs?: number;
  /** The deadline the ExportResults handler gets (the Lambda's timeout). Default 15 minutes. */
  exportDeadlineMs?: number;
  /** Each state as it passes (for progress on stderr). */
  onEvent?: (event: EngineEvent, execution: string) => void;
  /** Executions a continued backfill may chain. Default 200. */
  maxExecutions?: number;
  /**
   * Interrupts the run: the engine stops scheduling states, the running tasks abort (an
   * export publishes nothing, releases its leases and removes its staging), and the run
   * rejects with the signal's reason once they have settled.
   */
  signal?: AbortSignal;
  /** Name prefix of the executions. Default `local`. */
  name?: string;
}

/** What the short Lambda tasks get locally, as their functions' timeout in AWS. */
const SHORT_TASK_MS = 120_000;

/** One execution of the chain (a backfill continues in new executions). */
export interface LocalExecution {
  name: string;
  input: unknown;
  status: 'SUCCEEDED' | 'FAILED';
  error: string | null;
  cause: string | null;
  output: unknown;
  historyEvents: number;
  events: EngineEvent[];
}

export interface LocalWorkflowResult {
  status: 'SUCCEEDED' | 'FAILED';
  error: string | null;
  executions: LocalExecution[];
  /** Messages the NotifyFailure states would have published to the alarm topic. */
  notifications: unknown[];
  /** Finalize outputs of every execution. */
  summaries: FinalizeOutput[];
}

/**
 * Runs the synthesized state machine on this machine with aws-local-stepfunctions, every
 * Lambda Task mapped to the same handler the Lambda runs (built on the given runtime),
 * the SNS Tasks to a local outbox, and ContinueAsNew to the next execution of the chain.
 */
export async function runLocalWorkflow(
  input: unknown,
  options: LocalWorkflowOptions,
): Promise<LocalWorkflowResult> {
  // aws-cdk-lib takes seconds to load: only when the definition is not given.
  const definition = options.definition ?? (await import('./definition')).synthesizedDefinition();
  const machine = new StateMachine(definition as never, { validationOptions: { checkPaths: true } });
  const rt = options.runtime;
  const plan = createPlanHandler(rt);
  const request = createRequestReportHandler(rt);
  const check = createCheckStatusHandler(rt);
  const exportResults = createExportResultsHandler(rt);
  const finalize = createFinalizeHandler(rt, options.metrics);
  const notifications: unknown[] = [];
  const queue: unknown[] = [input];
  const executions: LocalExecution[] = [];
  const summaries: FinalizeOutput[] = [];
  const prefix = options.name ?? 'local';
  // $$.State.RetryCount, which the engine does not keep: a call with the same input as a
  // failed one is its retry.
  const failedAttempts = new Map<string, number>();
  const withRetryCount =
    (state: string, fn: (e: never) => Promise<unknown>) =>
    async (e: { attempt?: number }): Promise<unknown> => {
      const key = `${state}\n${JSON.stringify({ ...e, attempt: undefined })}`;
      const attempt = failedAttempts.get(key) ?? 0;
      try {
        return await fn({ ...e, attempt } as never);
      } catch (error) {
        failedAttempts.set(key, attempt + 1);
        throw error;
      }
    };
  // Finalize and RecordFailure run the same handler; the run result keeps every summary.
  const finalizeAndKeep = async (e: never) => {
    const out = await finalize(e);
    summaries.push(out);
    return out;
  };
  // Tasks in flight, so an interrupted run returns only after they cleaned up.
  const inFlight = new Set<Promise<unknown>>();
  const tracked = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  };
  const taskContext = (timeoutMs: number) => {
    const started = Date.now();
    return {
      getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
  };
  const stamp = new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15);

  while (queue.length > 0) {
    if (executions.length >= (options.maxExecutions ?? 200)) {
      throw new Error(`The backfill continued into more than ${options.maxExecutions ?? 200} executions`);
    }
    const executionInput = queue.shift();
    const name = `${prefix}-${stamp}-${executions.length + 1}`;
    const exportDeadline = options.exportDeadlineMs ?? 15 * 60_000;
    const handlers: Record<string, (input: never) => Promise<unknown>> = {
      [STATE_NAMES.plan]: (e) => plan(e),
      [STATE_NAMES.requestReport]: withRetryCount(STATE_NAMES.requestReport, (e) =>
        tracked(request(e, taskContext(SHORT_TASK_MS))),
      ),
      [STATE_NAMES.checkStatus]: withRetryCount(STATE_NAMES.checkStatus, (e) =>
        tracked(check(e, taskContext(SHORT_TASK_MS))),
      ),
      [STATE_NAMES.exportResults]: withRetryCount(STATE_NAMES.exportResults, (e) =>
        tracked(exportResults(e, taskContext(exportDeadline))),
      ),
      [STATE_NAMES.finalize]: finalizeAndKeep,
      [STATE_NAMES.recordFailure]: finalizeAndKeep,
      [STATE_NAMES.notifyFailure]: async (e) => notify(e),
      [STATE_NAMES.notifyCaughtFailure]: async (e) => notify(e),
      [STATE_NAMES.continueAsNew]: async (e: { Input: string }) => {
        queue.push(JSON.parse(e.Input));
        return {
          ExecutionArn: `arn:aws:states:local:execution:${prefix}-next`,
          StartDate: new Date().toISOString(),
        };
      },
    };
    const notify = (e: { Message?: unknown }) => {
      notifications.push(e.Message ?? e);
      return Promise.resolve({ MessageId: `local-${notifications.length}` });
    };
    const retryOverrides = Object.fromEntries(TASK_STATES.map((t) => [t, options.retryMs ?? 20]));
    const execution = machine.run(executionInput as never, {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides:
          options.waitMs === null ? {} : { [STATE_NAMES.waitForReport]: options.waitMs ?? 20 },
        retryIntervalOverrides: retryOverrides,
      },
      context: {
        Execution: {
          Id: `arn:aws:states:us-east-1:123456789012:execution:ReportExport:${name}`,
          Input: executionInput,
          Name: name,
          StartTime: new Date().toISOString(),
          RoleArn: 'arn:aws:iam::123456789012:role/local',
        },
        // The engine keeps no per-state context; the job tasks' handlers count retries (above).
        State: { Name: '', EnteredTime: '', RetryCount: 0 },
        StateMachine: {
          Id: 'arn:aws:states:us-east-1:123456789012:stateMachine:ReportExport',
          Name: 'ReportExport',
        },
      } as never,
    });
    const onAbort = () => execution.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const events: EngineEvent[] = [];
    const logging = (async () => {
      for await (const event of execution.eventLogs as AsyncIterable<EngineEvent>) {
        events.push(event);
        options.onEvent?.(event, name);
      }
    })();
    let record: Omit<LocalExecution, 'events' | 'historyEvents'>;
    try {
      const output = await execution.result;
      record = { name, input: executionInput, status: 'SUCCEEDED', error: null, cause: null, output };
    } catch (error) {
      const failed = (error as { cause?: { name?: string; message?: string } }).cause ?? (error as Error);
      record = {
        name,
        input: executionInput,
        status: 'FAILED',
        error: failed.name ?? 'Error',
        cause: failed.message ?? null,
        output: null,
      };
    }
    options.signal?.removeEventListener('abort', onAbort);
    if (options.signal?.aborted) {
      await Promise.allSettled([...inFlight]);
      throw options.signal.reason ?? new Error('The local run was interrupted');
    }
    await logging;
    executions.push({
      ...record,
      events,
      historyEvents: events.reduce((n, e) => n + awsHistoryEvents(e), 0),
    });
  }
  const failed = executions.find((e) => e.status === 'FAILED');
  return {
    status: failed === undefined ? 'SUCCEEDED' : 'FAILED',
    error: failed?.error ?? null,
    executions,
    notifications,
    summaries,
  };
}
