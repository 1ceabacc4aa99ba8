import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { CLI_DEFAULTS } from '../shared/defaults';

/**
 * Following a Step Functions execution from the CLI: new history events are read newest
 * first and only down to the last one seen (one page per poll, whatever the history's
 * length), printed oldest first; the execution's status comes from DescribeExecution. A
 * workflow that continues in a new execution (ContinueAsNew: a `states:startExecution`
 * Task) names it in that Task's output, so the caller can follow the chain.
 */

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

export interface FollowedExecution {
  executionArn: string;
  status: ExecutionStatus;
  error: string | null;
  cause: string | null;
  output: unknown;
  /** The execution a ContinueAsNew started, when there is one. */
  next: string | null;
}

interface FollowOptions {
  /** Each state as it is entered (and failures), in order. */
  onEvent?: (line: string, event: HistoryEvent) => void;
  /** Pause between polls. Default 2 s. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Bound on polls (a stuck follow ends instead of hanging). Default: 12 h of polls. */
  maxPolls?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The line a person reads for an event, or undefined for the events not worth a line. */
function describeEvent(event: HistoryEvent): string | undefined {
  if (event.stateEnteredEventDetails?.name) return event.stateEnteredEventDetails.name;
  const failed =
    event.taskFailedEventDetails ??
    event.lambdaFunctionFailedEventDetails ??
    event.executionFailedEventDetails ??
    event.mapRunFailedEventDetails;
  if (failed)
    return `${event.type}: ${failed.error ?? 'error'}${failed.cause ? ` (${failed.cause.slice(0, 300)})` : ''}`;
  if (
    event.type === 'ExecutionSucceeded' ||
    event.type === 'ExecutionAborted' ||
    event.type === 'ExecutionTimedOut'
  )
    return event.type;
  return undefined;
}

/**
 * The execution a StartExecution Task started (ContinueAsNew: the SDK integration
 * `aws-sdk:sfn`, or the optimised `states`), from its success event.
 */
function continuedExecution(event: HistoryEvent): string | undefined {
  const d = event.taskSucceededEventDetails;
  const sfnTask = d?.resourceType === 'aws-sdk:sfn' || d?.resourceType === 'states';
  if (!sfnTask || !d?.resource?.startsWith('startExecution') || !d.output) return undefined;
  try {
    const arn = (JSON.parse(d.output) as { ExecutionArn?: unknown }).ExecutionArn;
    return typeof arn === 'string' ? arn : undefined;
  } catch {
    return undefined;
  }
}

/** Events newer than `afterId`, oldest first. */
async function newEvents(sfn: SFNClient, executionArn: string, afterId: number): Promise<HistoryEvent[]> {
  const fresh: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 200, nextToken }),
    );
    const events = page.events ?? [];
    for (const e of events) {
      if ((e.id ?? 0) <= afterId) return fresh.reverse();
      fresh.push(e);
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return fresh.reverse();
}

/** Polls one execution to its end, reporting each state; returns how it ended. */
export async function followExecution(
  sfn: SFNClient,
  executionArn: string,
  options: FollowOptions = {},
): Promise<FollowedExecution> {
  const sleep = options.sleep ?? defaultSleep;
  const pollMs = options.pollMs ?? CLI_DEFAULTS.pollMs;
  const maxPolls = options.maxPolls ?? Math.ceil((12 * 3600_000) / Math.max(pollMs, 1));
  let lastId = 0;
  let next: string | null = null;
  const drain = async () => {
    for (const e of await newEvents(sfn, executionArn, lastId)) {
      lastId = Math.max(lastId, e.id ?? 0);
      next = continuedExecution(e) ?? next;
      const line = describeEvent(e);
      if (line !== undefined) options.onEvent?.(line, e);
    }
  };
  for (let poll = 0; poll < maxPolls; poll++) {
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    const status = (described.status ?? 'RUNNING') as ExecutionStatus;
    // Read the history after the status, so a finished execution's last events are all seen.
    await drain();
    if (status !== 'RUNNING') {
      let output: unknown = null;
      try {
        output = described.output ? (JSON.parse(described.output) as unknown) : null;
      } catch {
        output = described.output;
      }
      return {
        executionArn,
        status,
        error: described.error ?? null,
        cause: described.cause ?? null,
        output,
        next,
      };
    }
    await sleep(pollMs);
  }
  throw new Error(`Stopped following ${executionArn} after ${maxPolls} polls; it is still running`);
}
