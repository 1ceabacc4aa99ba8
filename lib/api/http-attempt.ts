import {
  AbortedError,
  type ApiError,
  type ApiErrorDetails,
  ConnectionError,
  ProtocolError,
  type ServiceErrorBody,
  TimeoutError,
} from './errors';
import type { HttpRequest, QueryValue } from './http';

// Per-attempt plumbing of the transport: timeout timer and signals, mapping fetch and body
// failures to error classes, body reading and streaming, URLs and lenient body parsing.

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

/** Turns a fetch or body-read failure into aborted / timeout / connection. */
export function mapAbortOrConnection(
  error: unknown,
  attempt: Attempt,
  details: ApiErrorDetails,
  what: string,
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
  return new ConnectionError(`${what}: ${errorText(error)}`, { ...details, cause: error });
}

export function errorText(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
}

export async function readText(
  response: Response,
  attempt: Attempt,
  details: ApiErrorDetails,
): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw mapAbortOrConnection(error, attempt, details, 'Reading the response failed');
  }
}

/**
 * The body as chunks, with `idleMs` as the longest wait for the next chunk. The timer runs
 * only while we wait for the server: time the consumer spends on a chunk (an upload applying
 * backpressure) is not idleness. Each read is raced against the attempt's signal, so a
 * timeout or abort ends the wait even when the fetch does not tie its body to the signal.
 */
export async function* streamBody(
  response: Response,
  attempt: Attempt,
  idleMs: number,
  details: ApiErrorDetails,
): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(attempt.signal.reason);
    if (attempt.signal.aborted) onAbort();
    else attempt.signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      attempt.timer = setTimeout(() => attempt.controller.abort(TIMEOUT_REASON), idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await Promise.race([reader.read(), aborted]);
      } catch (error) {
        throw mapAbortOrConnection(error, attempt, details, 'The response body failed');
      } finally {
        clearTimeout(attempt.timer);
        attempt.timer = undefined;
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    if (onAbort) attempt.signal.removeEventListener('abort', onAbort);
    // Stopping early (consumer broke out, or an error) releases the connection.
    reader.cancel().catch(() => undefined);
  }
}

export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
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

export function describeRequest(req: HttpRequest, baseUrl: string): ApiErrorDetails {
  const url = /^https?:\/\//.test(req.path) ? new URL(req.path) : new URL(baseUrl + req.path);
  return { method: req.method, path: url.pathname };
}

export function requestIdOf(headers: Headers): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}

/** Reads a service error body leniently; anything unreadable counts as no body. */
export function parseErrorBody(text: string): ServiceErrorBody | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    return {
      ...(typeof v.message === 'string' ? { message: v.message } : {}),
      ...(typeof v.timestamp === 'string' ? { timestamp: v.timestamp } : {}),
    };
  } catch {
    return undefined;
  }
}

/** JSON.parse that fails with a {@link ProtocolError}. Bodies of any media type are tried. */
export function parseJson(text: string, details: ApiErrorDetails): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProtocolError('The response is not valid JSON', { ...details, cause: error });
  }
}
