/**
 * Errors of the service client. One class per failure kind, all extending {@link ApiError}
 * and carrying a stable `code`. Errors never carry the Authorization header, a token, a
 * client secret or a request body: only the method, the path (no query string) and what the
 * service said (`message`, `timestamp`).
 */

/** Stable codes of {@link ApiError} subclasses: assert on these, not on messages. */
export const API_ERROR_CODES = {
  badRequest: 'bad_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  rateLimited: 'rate_limited',
  server: 'server_error',
  unexpectedStatus: 'unexpected_status',
  connection: 'connection_error',
  timeout: 'timeout',
  aborted: 'aborted',
  protocol: 'protocol_error',
  truncatedBody: 'truncated_body',
  rowCountMismatch: 'row_count_mismatch',
  validation: 'invalid_argument',
  reportFailed: 'report_failed',
  pollBudgetExhausted: 'poll_budget_exhausted',
} as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[keyof typeof API_ERROR_CODES];

/** What an error knows about the call that failed. */
export interface ApiErrorDetails {
  status?: number | undefined;
  method?: string | undefined;
  /** Path of the URL, without query string (search texts may be personal data). */
  path?: string | undefined;
  /** `message` of the service's error body. */
  serviceMessage?: string | undefined;
  /** `timestamp` of the service's error body. */
  serviceTimestamp?: string | undefined;
  /** A request id header of the response, when the service sends one. */
  requestId?: string | undefined;
  /** Delay the service asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** Base of every error the client throws (except OAuth protocol errors, see oauth/errors). */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly serviceMessage: string | undefined;
  readonly serviceTimestamp: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: ApiErrorCode, message: string, details: ApiErrorDetails = {}) {
    super(describe(message, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.serviceMessage = details.serviceMessage;
    this.serviceTimestamp = details.serviceTimestamp;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }
}

function describe(message: string, d: ApiErrorDetails): string {
  const where = d.method && d.path ? ` (${d.method} ${d.path}${d.status ? ` -> ${d.status}` : ''})` : '';
  const said = d.serviceMessage ? `: ${d.serviceMessage}` : '';
  return `${message}${said}${where}`;
}

/** 400: an identifier or parameter is not in the format the service expects. */
export class BadRequestError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.badRequest, message, details);
  }
}

/** 401: token missing, invalid or expired (after the client's one refresh-and-retry). */
export class UnauthorizedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.unauthorized, message, details);
  }
}

/** 403: the token is valid but not allowed to do this. */
export class ForbiddenError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.forbidden, message, details);
  }
}

/** 404: no such directory, item, report or request. */
export class NotFoundError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.notFound, message, details);
  }
}

/** 429 after the retry budget was spent (or Retry-After longer than the client waits). */
export class RateLimitedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.rateLimited, message, details);
  }
}

/** 5xx after the retry budget was spent. */
export class ServerError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.server, message, details);
  }
}

/** Any other non-success status (for example 405, 409, 415). */
export class UnexpectedStatusError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.unexpectedStatus, message, details);
  }
}

/** The connection failed: refused, reset (also in the middle of a body), DNS. */
export class ConnectionError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.connection, message, details);
  }
}

/** The client's timeout elapsed (or the service answered 408). */
export class TimeoutError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.timeout, message, details);
  }
}

/** The caller's AbortSignal fired. Never retried. */
export class AbortedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.aborted, message, details);
  }
}

/** The response could not be understood: not JSON, wrong shape, trailing garbage. */
export class ProtocolError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}, code: ApiErrorCode = API_ERROR_CODES.protocol) {
    super(code, message, details);
  }
}

/** The body ended cleanly but before the JSON document did: never a short result. */
export class TruncatedBodyError extends ProtocolError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(message, details, API_ERROR_CODES.truncatedBody);
  }
}

/** The rows read disagree with the result's `totalCount` (or `rowLimit`). */
export class RowCountMismatchError extends ProtocolError {
  readonly expected: number;
  readonly actual: number;
  constructor(expected: number, actual: number, details: ApiErrorDetails = {}) {
    super(`Read ${actual} rows, the result announced ${expected}`, details, API_ERROR_CODES.rowCountMismatch);
    this.expected = expected;
    this.actual = actual;
  }
}

/** A call was rejected before any request: a bad id, phone number or option. */
export class ValidationError extends ApiError {
  /** The argument at fault, e.g. `directoryId`. */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(API_ERROR_CODES.validation, `${argument}: ${message}`);
    this.argument = argument;
  }
}

/** The report run ended in a failure status (`Failed`, `Error`, `Cancelled`, ...). */
export class ReportFailedError extends ApiError {
  readonly reportStatus: string;
  readonly statusMessage: string;
  readonly reportId: string;
  readonly reportRequestId: string;
  constructor(init: { reportStatus: string; statusMessage: string; reportId: string; requestId: string }) {
    super(API_ERROR_CODES.reportFailed, `Report run ended with status ${init.reportStatus}`, {
      serviceMessage: init.statusMessage,
    });
    this.reportStatus = init.reportStatus;
    this.statusMessage = init.statusMessage;
    this.reportId = init.reportId;
    this.reportRequestId = init.requestId;
  }
}

/** `waitForCompletion` spent its polls or passed its deadline while the run was still going. */
export class PollBudgetExhaustedError extends ApiError {
  readonly polls: number;
  readonly lastStatus: string | undefined;
  constructor(polls: number, lastStatus: string | undefined) {
    super(
      API_ERROR_CODES.pollBudgetExhausted,
      `Report run not complete after ${polls} polls (last status ${lastStatus ?? 'unknown'})`,
    );
    this.polls = polls;
    this.lastStatus = lastStatus;
  }
}

/** The service's error body (400/404), read leniently. */
export interface ServiceErrorBody {
  message?: string;
  timestamp?: string;
}

/** Builds the error for a non-success status: one class per kind. */
export function createStatusError(
  status: number,
  body: ServiceErrorBody | undefined,
  details: ApiErrorDetails,
): ApiError {
  const d: ApiErrorDetails = {
    ...details,
    status,
    serviceMessage: body?.message,
    serviceTimestamp: body?.timestamp,
  };
  if (status === 400) return new BadRequestError('Bad request', d);
  if (status === 401) return new UnauthorizedError('Unauthorized', d);
  if (status === 403) return new ForbiddenError('Forbidden', d);
  if (status === 404) return new NotFoundError('Not found', d);
  if (status === 408) return new TimeoutError('The service timed out waiting for the request', d);
  if (status === 429) return new RateLimitedError('Rate limited', d);
  if (status >= 500) return new ServerError('Server error', d);
  return new UnexpectedStatusError(`Unexpected status ${status}`, d);
}
