import { AbortedError, ApiError, type ApiErrorDetails, TimeoutError, ValidationError } from '../errors';

/**
 * The overall deadline of reading one result: the caller's AbortSignal and a total time,
 * whichever comes first. Distinct from the transport's idle timeout, which a body that
 * trickles a byte now and then never trips.
 */
export interface ResultDeadline {
  /** Aborts when the caller's signal does or the total time is spent; undefined when neither was given. */
  readonly signal: AbortSignal | undefined;
  /** Stops the timer (the result was read, failed or was cancelled). */
  dispose(): void;
}

export function startResultDeadline(
  signal: AbortSignal | undefined,
  totalTimeoutMs: number | undefined,
  details: ApiErrorDetails,
): ResultDeadline {
  if (totalTimeoutMs === undefined) return { signal, dispose: () => undefined };
  if (!Number.isFinite(totalTimeoutMs) || totalTimeoutMs <= 0) {
    throw new ValidationError('totalTimeoutMs', 'must be a positive number of milliseconds');
  }
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new TimeoutError(`The result was not read within totalTimeoutMs (${totalTimeoutMs} ms)`, details),
      ),
    totalTimeoutMs,
  );
  const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  return { signal: combined, dispose: () => clearTimeout(timer) };
}

/** The error an aborted deadline signal stands for: its own TimeoutError, or an AbortedError. */
export function deadlineError(signal: AbortSignal, details: ApiErrorDetails): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return new AbortedError('Reading the result was aborted', { ...details, cause: reason });
}

/** `promise`, or a rejection with {@link deadlineError} as soon as `signal` aborts. */
export function raceDeadline<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  details: ApiErrorDetails,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(deadlineError(signal, details));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError(signal, details));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
