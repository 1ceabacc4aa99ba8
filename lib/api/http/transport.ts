import { AbortedError, type ApiError, type ApiErrorDetails, RedirectError, ValidationError } from '../errors';
import {
  type Attempt,
  anySignal,
  buildUrl,
  describeRequest,
  mapAbortOrConnection,
  redirectTarget,
  requestIdOf,
  startAttempt,
} from './attempt';
import {
  checkContentEncoding,
  discard,
  parseErrorBody,
  parseJson,
  readBoundedText,
  streamBody,
} from './body';
import { nodeHttpFetch } from './node-fetch';
import { abortableSleep, backoffDelay, parseRetryAfter, RETRY_MODES, shouldRetry } from './retry';
import { createStatusError, type ServiceErrorBody } from './status-error';
import {
  type AccessTokenSource,
  type FetchLike,
  type HttpRequest,
  type StreamResponse,
  type TextResponse,
  TRANSPORT_DEFAULTS,
  type TransportOptions,
} from './types';

export type {
  AccessTokenSource,
  CallOptions,
  FetchLike,
  HttpRequest,
  QueryValue,
  StreamResponse,
  TextResponse,
  TransportOptions,
} from './types';
export { TRANSPORT_DEFAULTS } from './types';

/**
 * RFC 6750 `b64token` plus the visible ASCII some servers use. Checked before sending so a
 * malformed token fails here, typed and unretried, instead of in fetch's header check, whose
 * message would quote the whole `Authorization` value.
 */
const BEARER_TOKEN = /^[\x21-\x7e]+$/;

/**
 * HTTP transport: timeouts, AbortSignal, bounded retries with backoff and Retry-After, one
 * refresh-and-retry on 401, and one error class per failure kind. Keep-alive and gzip come
 * from the default fetch, {@link nodeHttpFetch} (Node's global agent keeps connections
 * alive; it sends `accept-encoding` and decompresses with large chunks). Redirects
 * are never followed (a 3xx is a {@link RedirectError}) and buffered bodies are bounded by
 * `maxBodyBytes` (a {@link ResponseTooLargeError} past it).
 */
export class HttpTransport {
  readonly baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #o: Required<Omit<TransportOptions, 'auth' | 'signal' | 'fetch' | 'baseUrl'>>;
  readonly #signal: AbortSignal | undefined;
  readonly #auth: AccessTokenSource | undefined;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? nodeHttpFetch;
    this.#signal = options.signal;
    this.#auth = options.auth;
    this.#o = {
      timeoutMs: options.timeoutMs ?? TRANSPORT_DEFAULTS.timeoutMs,
      maxRetries: options.maxRetries ?? TRANSPORT_DEFAULTS.maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs ?? TRANSPORT_DEFAULTS.retryBaseDelayMs,
      retryMaxDelayMs: options.retryMaxDelayMs ?? TRANSPORT_DEFAULTS.retryMaxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? TRANSPORT_DEFAULTS.maxRetryAfterMs,
      maxBodyBytes: options.maxBodyBytes ?? TRANSPORT_DEFAULTS.maxBodyBytes,
      userAgent: options.userAgent ?? TRANSPORT_DEFAULTS.userAgent,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? abortableSleep,
    };
  }

  /** Sends and parses a JSON response; non-2xx statuses throw their error class. */
  async requestJson(req: HttpRequest): Promise<{ status: number; headers: Headers; body: unknown }> {
    const res = await this.#execute(req, true, async (response, attempt, details) => {
      const text = await readBoundedText(response, attempt, details, this.#o.maxBodyBytes);
      return { status: response.status, headers: response.headers, text };
    });
    return {
      status: res.status,
      headers: res.headers,
      body: parseJson(res.text, { ...describeRequest(req, this.baseUrl), status: res.status }),
    };
  }

  /** Sends and returns the final response as text whatever its status (token endpoint). */
  requestText(req: HttpRequest): Promise<TextResponse> {
    return this.#execute(req, false, async (response, attempt, details) => ({
      status: response.status,
      headers: response.headers,
      text: await readBoundedText(response, attempt, details, this.#o.maxBodyBytes),
    }));
  }

  /** Sends and hands out the body as a stream once headers arrived (large results). */
  requestStream(req: HttpRequest): Promise<StreamResponse> {
    const idleMs = req.timeoutMs ?? this.#o.timeoutMs;
    return this.#execute(req, true, async (response, attempt, details) => {
      // Headers are in: from now on the timeout is idle time between chunks.
      clearTimeout(attempt.timer);
      attempt.timer = undefined;
      await checkContentEncoding(response, details);
      return {
        status: response.status,
        headers: response.headers,
        body: streamBody(response, attempt, idleMs, details),
        cancel: (reason?: unknown) =>
          attempt.controller.abort(reason ?? new AbortedError('Cancelled', details)),
        details,
      };
    });
  }

  async #execute<R>(
    req: HttpRequest,
    throwOnStatus: boolean,
    consume: (response: Response, attempt: Attempt, details: ApiErrorDetails) => Promise<R>,
  ): Promise<R> {
    const mode =
      req.retryMode ??
      (req.method === 'POST' || req.method === 'PATCH' ? RETRY_MODES.unsentOnly : RETRY_MODES.idempotent);
    const maxRetries = req.maxRetries ?? this.#o.maxRetries;
    const timeoutMs = req.timeoutMs ?? this.#o.timeoutMs;
    const useAuth = (req.authenticate ?? true) && this.#auth !== undefined;
    const url = buildUrl(this.baseUrl, req.path, req.query);
    const base = describeRequest(req, this.baseUrl);
    const callerSignal = anySignal([req.signal, this.#signal]);
    let authRetried = false;

    for (let attemptNo = 0; ; ) {
      const attempt = startAttempt(timeoutMs, callerSignal);
      try {
        const headers: Record<string, string> = {
          accept: 'application/json',
          'user-agent': this.#o.userAgent,
        };
        let token: string | undefined;
        if (useAuth && this.#auth) {
          token = await this.#token(this.#auth, attempt, base);
          headers.authorization = `Bearer ${token}`;
        }
        let body: string | undefined;
        if (req.json !== undefined) {
          body = JSON.stringify(req.json);
          headers['content-type'] = req.contentType ?? 'application/json';
        } else if (req.form) {
          body = req.form.toString();
          headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        let outcomeError: ApiError | undefined;
        let response: Response | undefined;
        try {
          response = await this.#fetch(url, {
            method: req.method,
            headers,
            body: body ?? null,
            signal: attempt.signal,
            // Following would re-send the request, secrets in its body included, elsewhere.
            redirect: 'manual',
          });
        } catch (error) {
          outcomeError = mapAbortOrConnection(error, attempt, base, undefined);
        }

        if (response) {
          const details: ApiErrorDetails = {
            ...base,
            status: response.status,
            requestId: requestIdOf(response.headers),
          };
          if (response.status === 401 && token !== undefined && !authRetried && this.#auth?.invalidate) {
            await discard(response);
            this.#auth.invalidate(token);
            authRetried = true;
            continue; // does not count as a retry: the 401 retry is separate and happens once
          }
          if ((response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect') {
            await discard(response);
            throw new RedirectError(redirectTarget(response.headers, url), details);
          }
          if (response.status >= 200 && response.status < 300) {
            try {
              return await consume(response, attempt, details);
            } catch (error) {
              outcomeError = error as ApiError;
            }
          } else {
            const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
            const canRetry =
              attemptNo < maxRetries &&
              shouldRetry({ kind: 'status', status: response.status, retryAfterMs }, mode) &&
              (retryAfterMs === undefined || retryAfterMs <= this.#o.maxRetryAfterMs);
            if (canRetry) {
              await discard(response);
              await this.#o.sleep(retryAfterMs ?? this.#delay(attemptNo), callerSignal);
              attemptNo++;
              continue;
            }
            if (!throwOnStatus) return await consume(response, attempt, details);
            let body: ServiceErrorBody | undefined;
            let unreadable: unknown;
            try {
              body = parseErrorBody(await readBoundedText(response, attempt, details, this.#o.maxBodyBytes));
            } catch (error) {
              // The status says what went wrong; a body that could not be read is only its cause.
              unreadable = error;
            }
            throw createStatusError(response.status, body, {
              ...details,
              retryAfterMs,
              ...(unreadable === undefined ? {} : { cause: unreadable }),
            });
          }
        }

        const err = outcomeError as ApiError;
        if (attemptNo < maxRetries && shouldRetry({ kind: 'error', error: err }, mode)) {
          await this.#o.sleep(this.#delay(attemptNo), callerSignal);
          attemptNo++;
          continue;
        }
        throw err;
      } finally {
        // Always: a timer left armed keeps the process alive for timeoutMs after the call.
        // A streamed body arms its own idle timer when it is first read, after this.
        clearTimeout(attempt.timer);
        attempt.timer = undefined;
      }
    }
  }

  async #token(auth: AccessTokenSource, attempt: Attempt, base: ApiErrorDetails): Promise<string> {
    let token: string;
    try {
      token = await auth.getAccessToken(attempt.signal);
    } catch (error) {
      // A timeout or abort while waiting for a token is ours to name; OAuth errors pass through.
      if (attempt.signal.aborted) throw mapAbortOrConnection(error, attempt, base, 'Getting a token failed');
      throw error;
    }
    if (typeof token !== 'string' || !BEARER_TOKEN.test(token)) {
      throw new ValidationError('accessToken', 'is not a valid bearer token (empty, or not visible ASCII)');
    }
    return token;
  }

  #delay(attemptNo: number): number {
    return backoffDelay(attemptNo, {
      baseDelayMs: this.#o.retryBaseDelayMs,
      maxDelayMs: this.#o.retryMaxDelayMs,
      random: this.#o.random,
    });
  }
}
