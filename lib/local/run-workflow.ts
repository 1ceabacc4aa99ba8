import './promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { STATE_NAMES, TASK_STATES } from '../infra';
import type { FinalizeOutput } from '../workflow';
import { SFN_EXECUTION_EXISTS_ERROR_NAME } from '../workflow';
import { enforceStateDataLimits, withLambdaLimits, withStateLimits } from './data-limits';
import type { StateMachineDefinition } from './definition';
import { awsHistoryEvents, type EngineEvent } from './history';
import type { LocalTasks } from './local-tasks';

export interface LocalWorkflowOptions {
  /** What runs the Lambda Tasks: the deployed bundles in processes, or the handlers in-process. */
  tasks: LocalTasks;
  /** Default: the definition the CDK app synthesizes. */
  definition?: StateMachineDefinition;
  /** Every Wait state lasts this long locally. Default 20 ms; `null` keeps the state's own seconds (a real service). */
  waitMs?: number | null;
  /** Every Retry interval lasts this long locally. Default 20 ms. */
  retryMs?: number;
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
  /**
   * The first StartExecution of a continuation answers ExecutionAlreadyExists: `RUNNING`
   * after starting it (a retried start whose first reply was lost), `ABORTED` without (an
   * execution of that name was stopped earlier), as DescribeExecution then reports it.
   */
  existingContinuation?: 'RUNNING' | 'ABORTED';
}

/** One execution of the chain (a backfill continues in new executions). */
interface LocalExecution {
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
  enforceStateDataLimits();
  const machine = new StateMachine(definition as never, { validationOptions: { checkPaths: true } });
  const tasks = options.tasks;
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
  // Tasks in flight, so an interrupted run returns only after they cleaned up.
  const inFlight = new Set<Promise<unknown>>();
  const tracked = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  };
  const invoke = (state: string) =>
    withLambdaLimits(state, (e: never) => tracked(tasks.invoke(state, e, options.signal)));
  // Finalize and RecordFailure run the same function; the run result keeps every summary.
  const finalizeAndKeep = (state: string) => async (e: never) => {
    const out = (await invoke(state)(e)) as FinalizeOutput;
    summaries.push(out);
    return out;
  };
  // Continuations by name, as Step Functions keeps executions by name.
  const started = new Map<string, { arn: string; startDate: string; status: string }>();
  let existing = options.existingContinuation;
  const stamp = new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15);

  while (queue.length > 0) {
    options.signal?.throwIfAborted();
    if (executions.length >= (options.maxExecutions ?? 200)) {
      throw new Error(`The backfill continued into more than ${options.maxExecutions ?? 200} executions`);
    }
    const executionInput = queue.shift();
    const name = `${prefix}-${stamp}-${executions.length + 1}`;
    const handlers: Record<string, (input: never) => Promise<unknown>> = {
      [STATE_NAMES.plan]: invoke(STATE_NAMES.plan),
      [STATE_NAMES.prepareTables]: invoke(STATE_NAMES.prepareTables),
      [STATE_NAMES.requestReport]: withRetryCount(
        STATE_NAMES.requestReport,
        invoke(STATE_NAMES.requestReport),
      ),
      [STATE_NAMES.checkStatus]: withRetryCount(STATE_NAMES.checkStatus, invoke(STATE_NAMES.checkStatus)),
      [STATE_NAMES.exportResults]: withRetryCount(
        STATE_NAMES.exportResults,
        invoke(STATE_NAMES.exportResults),
      ),
      [STATE_NAMES.syncDirectories]: withRetryCount(
        STATE_NAMES.syncDirectories,
        invoke(STATE_NAMES.syncDirectories),
      ),
      [STATE_NAMES.commit]: invoke(STATE_NAMES.commit),
      [STATE_NAMES.finalize]: finalizeAndKeep(STATE_NAMES.finalize),
      [STATE_NAMES.recordFailure]: finalizeAndKeep(STATE_NAMES.recordFailure),
      [STATE_NAMES.notifyFailure]: withStateLimits(STATE_NAMES.notifyFailure, async (e) => notify(e)),
      [STATE_NAMES.notifyCaughtFailure]: withStateLimits(STATE_NAMES.notifyCaughtFailure, async (e) =>
        notify(e),
      ),
      [STATE_NAMES.continueAsNew]: withStateLimits(
        STATE_NAMES.continueAsNew,
        async (e: { StateMachineArn: string; Name: string; Input: string }) => {
          const before = started.get(e.Name);
          if (before === undefined) {
            const status = existing ?? 'RUNNING';
            if (status === 'RUNNING') queue.push(JSON.parse(e.Input));
            started.set(e.Name, {
              arn: `${e.StateMachineArn.replace(':stateMachine:', ':execution:')}:${e.Name}`,
              startDate: new Date().toISOString(),
              status,
            });
          }
          if (before !== undefined || existing !== undefined) {
            existing = undefined;
            throw named(SFN_EXECUTION_EXISTS_ERROR_NAME, `Execution Already Exists: '${e.Name}'`);
          }
          const child = started.get(e.Name) as { arn: string; startDate: string };
          return { ExecutionArn: child.arn, StartDate: child.startDate };
        },
      ),
      [STATE_NAMES.continuationExists]: withStateLimits(
        STATE_NAMES.continuationExists,
        async (e: { ExecutionArn: string }) => {
          const child = [...started.values()].find((c) => c.arn === e.ExecutionArn);
          if (child === undefined) {
            throw named(
              'Sfn.ExecutionDoesNotExistException',
              `Execution does not exist: '${e.ExecutionArn}'`,
            );
          }
          return { ExecutionArn: child.arn, StartDate: child.startDate, Status: child.status };
        },
      ),
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
          Id: `arn:aws:states:us-east-1:123456789012:execution:ReportExport-Export:${name}`,
          Input: executionInput,
          Name: name,
          StartTime: new Date().toISOString(),
          RoleArn: 'arn:aws:iam::123456789012:role/local',
        },
        // The engine keeps no per-state context; the job tasks' handlers count retries (above).
        State: { Name: '', EnteredTime: '', RetryCount: 0 },
        StateMachine: {
          Id: 'arn:aws:states:us-east-1:123456789012:stateMachine:ReportExport-Export',
          Name: 'ReportExport-Export',
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

function named(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}
