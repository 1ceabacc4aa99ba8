import { AbortedError, type ApiError, type ApiErrorDetails, ConnectionError, TimeoutError } from '../errors';
import type { HttpRequest, QueryValue } from './types';

// Per-attempt plumbing of the transport: timeout timer and signals, mapping fetch and body
// failures to error classes, URLs and request descriptions. Bodies are read in http-body.

/** Marks an abort caused by our own timer, to tell it from the caller's signal. */
export const TIMEOUT_REASON = Symbol('timeout');

export interface Attempt {
  controller: AbortController;
  signal: AbortSignal;
  timer: ReturnType<typeof setTimeout> | undefined;
  callerSignal: AbortSignal | undefined;
}

export function startAttempt(timeoutMs: number, callerSignal: AbortSignal | undefined): Attempt {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMEOUT_REASON), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
  return { controller, signal, timer, callerSignal };
}

export function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length === 0) return undefined;
  return present.length === 1 ? present[0] : AbortSignal.any(present);
}

/**
 * Turns a fetch or body-read failure into aborted / timeout / connection. `what` names a
 * failed read (`The response body failed`); undefined is the request itself. A connection
 * error names the origin it tried (`fetch failed (ECONNREFUSED) connecting to
 * http://127.0.0.1:4010`): a stale or mistyped address is then plain to see.
 */
export function mapAbortOrConnection(
  error: unknown,
  attempt: Attempt,
  details: ApiErrorDetails,
  what: string | undefined,
): ApiError {
  if (error instanceof AbortedError || error instanceof TimeoutError || error instanceof ConnectionError)
    return error;
  if (attempt.callerSignal?.aborted)
    return new AbortedError('The request was aborted', { ...details, cause: attempt.callerSignal.reason });
  if (attempt.controller.signal.aborted) {
    const reason = attempt.controller.signal.reason;
    if (reason === TIMEOUT_REASON) return new TimeoutError('The request timed out', details);
    if (reason instanceof AbortedError) return reason;
    return new AbortedError('The request was cancelled', { ...details, cause: reason });
  }
  const origin = details.origin ?? '';
  const message =
    what === undefined
      ? `${errorText(error)}${origin && ` connecting to ${origin}`}`
      : `${what}: ${errorText(error)}${origin && ` reading from ${origin}`}`;
  return new ConnectionError(message, { ...details, cause: error });
}

export function errorText(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
}

export function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> | undefined): URL {
  const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(baseUrl + path);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v);
    else url.searchParams.append(key, String(value));
  }
  return url;
}

/** Method, origin and path of a request for its errors: never its query (search texts). */
export function describeRequest(req: HttpRequest, baseUrl: string): ApiErrorDetails {
  const url = /^https?:\/\//.test(req.path) ? new URL(req.path) : new URL(baseUrl + req.path);
  return { method: req.method, path: url.pathname, origin: url.origin };
}

export function requestIdOf(headers: Headers): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}

/**
 * The Location of a 3xx, resolved against the request URL, as origin and path only: the
 * query or fragment of a redirect target may carry anything, and errors are logged.
 */
export function redirectTarget(headers: Headers, requestUrl: URL): string | undefined {
  const location = headers.get('location');
  if (location === null) return undefined;
  try {
    const target = new URL(location, requestUrl);
    return `${target.origin}${target.pathname}`;
  } catch {
    return '(unreadable Location)';
  }
}
