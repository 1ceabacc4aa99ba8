import type { ReportRequestStatus } from '../spec';
import { PollBudgetExhaustedError, ReportFailedError } from './errors';
import { abortableSleep } from './http/retry';

/** What a status string means to the client. */
export const REPORT_STATE = { complete: 'complete', failed: 'failed', running: 'running' } as const;
export type ReportState = (typeof REPORT_STATE)[keyof typeof REPORT_STATE];

const FAILED = new Set([
  'failed',
  'failure',
  'error',
  'errored',
  'cancelled',
  'canceled',
  'aborted',
  'rejected',
]);

/**
 * `Complete` (any case) is done; failure-like values (`Failed`, `Error`, `Cancelled`, ...)
 * are terminal failures; anything else, including values never seen, is still running.
 */
export function classifyReportStatus(status: string | undefined): ReportState {
  const s = (status ?? '').trim().toLowerCase();
  if (s === 'complete' || s === 'completed') return REPORT_STATE.complete;
  if (FAILED.has(s)) return REPORT_STATE.failed;
  return REPORT_STATE.running;
}

/** Polling of `waitForCompletion`. */
export interface WaitOptions {
  /** First wait between polls. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Each wait is the previous times this. Default 1.5. */
  backoffFactor?: number;
  /** Largest wait. Default 30 000 ms. */
  maxPollIntervalMs?: number;
  /** Status requests at most. Default 200. */
  maxPolls?: number;
  /** Give up this many ms after the first poll (checked before each wait). */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** Sees every status, e.g. for progress logs. */
  onStatus?: (status: ReportRequestStatus) => void;
}

/** Clock and sleep of the poll loop; injectable so tests do not wait. */
export interface PollTiming {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const SYSTEM_POLL_TIMING: PollTiming = { now: () => Date.now(), sleep: abortableSleep };

/**
 * Polls until the run is complete. Resolves with the complete status; rejects with
 * {@link ReportFailedError} (carrying the statusMessage) or {@link PollBudgetExhaustedError}.
 */
export async function pollUntilComplete(
  getStatus: (signal: AbortSignal | undefined) => Promise<ReportRequestStatus>,
  options: WaitOptions,
  timing: PollTiming,
): Promise<ReportRequestStatus> {
  const { pollIntervalMs = 1000, backoffFactor = 1.5, maxPollIntervalMs = 30_000, maxPolls = 200 } = options;
  const startedAt = timing.now();
  let wait = pollIntervalMs;
  let last: string | undefined;
  for (let poll = 1; poll <= maxPolls; poll++) {
    const status = await getStatus(options.signal);
    options.onStatus?.(status);
    last = status.status;
    const state = classifyReportStatus(status.status);
    if (state === REPORT_STATE.complete) return status;
    if (state === REPORT_STATE.failed) {
      throw new ReportFailedError({
        reportStatus: status.status,
        statusMessage: status.statusMessage ?? '',
        reportId: status.reportId,
        requestId: status.requestId,
      });
    }
    if (poll === maxPolls) break;
    if (options.deadlineMs !== undefined && timing.now() + wait - startedAt > options.deadlineMs) {
      throw new PollBudgetExhaustedError(poll, last);
    }
    await timing.sleep(wait, options.signal);
    wait = Math.min(maxPollIntervalMs, Math.round(wait * backoffFactor));
  }
  throw new PollBudgetExhaustedError(maxPolls, last);
}
