import type { ApiErrorDetails } from '../errors';
import type { RetryMode } from './retry';

// The transport's options, requests and responses, and its defaults.

/** The subset of `fetch` the client uses; inject one in tests. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Supplies bearer tokens. The token provider in `oauth/token-provider` implements it; a
 * fixed token works too (`{ getAccessToken: async () => token }`).
 */
export interface AccessTokenSource {
  getAccessToken(signal?: AbortSignal): Promise<string>;
  /** Called with the token a 401 rejected; the call is then retried once with a new token. */
  invalidate?(token: string): void;
}

/** Transport defaults; every one can be overridden per call with {@link CallOptions}. */
export interface TransportOptions {
  /** Service address ending before the version segment, e.g. `https://api.uk.myreports.cloud/api`. */
  baseUrl: string;
  fetch?: FetchLike;
  /** Per attempt: until response headers, then as idle time between body chunks. Default 30 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Backoff ceiling of the first retry. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Largest backoff ceiling. Default 8 000 ms. */
  retryMaxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error surfaces. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /**
   * Largest body read whole (status, list, token and error responses), in bytes after
   * decompression; a larger one fails with a `ResponseTooLargeError` and is not retried.
   * Streamed results are not bounded by it. Default 4 MiB.
   */
  maxBodyBytes?: number;
  userAgent?: string;
  /** Aborts every call of this client. */
  signal?: AbortSignal;
  auth?: AccessTokenSource;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Sleep between retries; injectable so unit tests do not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Per-call overrides. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpRequest extends CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to baseUrl (`/v1.0/...`), or an absolute URL (token endpoint). */
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: URLSearchParams;
  contentType?: string;
  /** Default: idempotent for GET/PUT/DELETE, unsent-only for POST/PATCH. */
  retryMode?: RetryMode;
  /** Send the bearer token. Default true when the transport has `auth`. */
  authenticate?: boolean;
}

/** A response whose body was read as text. */
export interface TextResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A response whose body is read as it arrives. */
export interface StreamResponse {
  status: number;
  headers: Headers;
  /** Chunks of the body; errors are {@link ApiError}s (connection, timeout, aborted). */
  body: AsyncIterable<Uint8Array>;
  cancel(reason?: unknown): void;
  /** Details for errors raised while consuming the body. */
  details: ApiErrorDetails;
}

export const TRANSPORT_DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 3,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  maxBodyBytes: 4 * 1024 * 1024,
  userAgent: 'report-export-client/0.1',
} as const;
