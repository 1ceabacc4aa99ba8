import { AbortedError, API_ERROR_CODES, type ApiError, ConnectionError } from '../errors';

/**
 * How a request may be repeated.
 * - `idempotent`: GET, PUT, DELETE. Retried on connection errors, 408, 429 and >= 500.
 * - `unsent-only`: POST and PATCH (report runs, item creation, token grants) and DELETE by
 *   crmId (it deletes the oldest match, so a repeat deletes another item). Retried only
 *   when the service cannot have acted on the request: the connection was never made
 *   (refused, DNS), or the service refused it with 408, or 429/503 carrying Retry-After.
 *   A reset, a timeout or a plain 5xx after sending may mean the service did act, so
 *   repeating would start a second report run or redeem a refresh token twice.
 */
export const RETRY_MODES = { idempotent: 'idempotent', unsentOnly: 'unsent-only' } as const;
export type RetryMode = (typeof RETRY_MODES)[keyof typeof RETRY_MODES];

/** Error codes of Node/undici that prove no byte of the request reached the service. */
const UNSENT_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** What the retry decision looks at: an error, or a status with its Retry-After. */
type AttemptOutcome =
  | { kind: 'error'; error: ApiError }
  | { kind: 'status'; status: number; retryAfterMs: number | undefined };

/** The one place that decides whether an attempt is repeated. */
export function shouldRetry(outcome: AttemptOutcome, mode: RetryMode): boolean {
  if (outcome.kind === 'error') {
    if (outcome.error instanceof AbortedError) return false;
    if (mode === RETRY_MODES.idempotent)
      return (
        outcome.error.code === API_ERROR_CODES.connection || outcome.error.code === API_ERROR_CODES.timeout
      );
    return outcome.error instanceof ConnectionError && isUnsentConnectionError(outcome.error);
  }
  const { status, retryAfterMs } = outcome;
  if (mode === RETRY_MODES.idempotent) return status === 408 || status === 429 || status >= 500;
  return status === 408 || ((status === 429 || status === 503) && retryAfterMs !== undefined);
}

/** True when the connection failed before the request was written (walks the cause chain). */
export function isUnsentConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNSENT_CONNECTION_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Parses Retry-After: delta-seconds or an HTTP-date. Returns milliseconds (>= 0), or
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Backoff settings. */
interface BackoffOptions {
  /** First delay ceiling, ms. */
  baseDelayMs: number;
  /** Largest delay ceiling, ms. */
  maxDelayMs: number;
  /** Returns [0, 1); injectable so tests are deterministic. */
  random: () => number;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^attempt)). */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.floor(options.random() * ceiling);
}

/** Sleeps `ms`, rejecting with an {@link AbortedError} as soon as `signal` fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedFrom(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedFrom(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortedFrom(signal: AbortSignal | undefined): AbortedError {
  return new AbortedError('The operation was aborted', { cause: signal?.reason });
}
