import { truncateServiceText } from './service-text';

/**
 * Errors of the service client. One class per failure kind, all extending {@link ApiError}
 * and carrying a stable `code`. Errors never carry the Authorization header, a token, a
 * client secret or a request body: only the method, the path (no query string) and what the
 * service said (`message`, `timestamp`).
 */

/**
 * Stable codes of {@link ApiError} subclasses: assert on these, not on messages. Workflows
 * match on error names instead (see error-names): each class sets `name` to a literal.
 */
export const API_ERROR_CODES = {
  badRequest: 'API_BAD_REQUEST',
  unauthorized: 'API_UNAUTHORIZED',
  forbidden: 'API_FORBIDDEN',
  notFound: 'API_NOT_FOUND',
  rateLimited: 'API_RATE_LIMITED',
  server: 'API_SERVER_ERROR',
  unexpectedStatus: 'API_UNEXPECTED_STATUS',
  redirect: 'API_REDIRECT_NOT_FOLLOWED',
  connection: 'API_CONNECTION_ERROR',
  timeout: 'API_TIMEOUT',
  aborted: 'API_ABORTED',
  protocol: 'API_PROTOCOL_ERROR',
  responseTooLarge: 'API_RESPONSE_TOO_LARGE',
  truncatedBody: 'API_TRUNCATED_BODY',
  rowCountMismatch: 'API_ROW_COUNT_MISMATCH',
  valueTooDeep: 'API_VALUE_TOO_DEEP',
  unsupportedEncoding: 'API_UNSUPPORTED_CONTENT_ENCODING',
  validation: 'API_INVALID_ARGUMENT',
  reportFailed: 'API_REPORT_FAILED',
  pollBudgetExhausted: 'API_POLL_BUDGET_EXHAUSTED',
} as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[keyof typeof API_ERROR_CODES];

/** What an error knows about the call that failed. */
export interface ApiErrorDetails {
  status?: number | undefined;
  method?: string | undefined;
  /** Path of the URL, without query string (search texts may be personal data). */
  path?: string | undefined;
  /**
   * Scheme, host and port of the URL called (`http://127.0.0.1:4010`): never its user
   * info or query. Set by the transport on every error of a call.
   */
  origin?: string | undefined;
  /** `message` of the service's error body; kept cut to 1 KiB (see service-text). */
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
  readonly origin: string | undefined;
  readonly serviceMessage: string | undefined;
  readonly serviceTimestamp: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: ApiErrorCode, message: string, details: ApiErrorDetails = {}) {
    const serviceMessage = truncateServiceText(details.serviceMessage);
    super(
      describe(message, { ...details, serviceMessage }),
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = 'ApiError';
    this.code = code;
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.origin = details.origin;
    this.serviceMessage = serviceMessage;
    this.serviceTimestamp = truncateServiceText(details.serviceTimestamp);
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
    this.name = 'BadRequestError';
  }
}

/** 401: token missing, invalid or expired (after the client's one refresh-and-retry). */
export class UnauthorizedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.unauthorized, message, details);
    this.name = 'UnauthorizedError';
  }
}

/** 403: the token is valid but not allowed to do this. */
export class ForbiddenError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.forbidden, message, details);
    this.name = 'ForbiddenError';
  }
}

/** 404: no such directory, item, report or request. */
export class NotFoundError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.notFound, message, details);
    this.name = 'NotFoundError';
  }
}

/** 429 after the retry budget was spent (or Retry-After longer than the client waits). */
export class RateLimitedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.rateLimited, message, details);
    this.name = 'RateLimitedError';
  }
}

/** 5xx after the retry budget was spent. */
export class ServerError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.server, message, details);
    this.name = 'ServerError';
  }
}

/** Any other non-success status (for example 405, 409, 415). */
export class UnexpectedStatusError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.unexpectedStatus, message, details);
    this.name = 'UnexpectedStatusError';
  }
}

/**
 * A 3xx: redirects are never followed, since following one re-sends the request (a token
 * grant's client secret and refresh token included) to wherever the response points.
 */
export class RedirectError extends ApiError {
  /** Where the response pointed: origin and path only (a query may carry anything). */
  readonly location: string | undefined;
  constructor(location: string | undefined, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.redirect, `Redirect to ${location ?? '(no Location)'} not followed`, details);
    this.name = 'RedirectError';
    this.location = location;
  }
}

/**
 * The connection failed: refused, reset (also in the middle of a body), DNS. The message
 * names the origin it tried; `url` is that origin and the path (no query), for a caller that
 * wants to say where the address came from (a stored login, a setting).
 */
export class ConnectionError extends ApiError {
  readonly url: string | undefined;
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.connection, message, details);
    this.name = 'ConnectionError';
    this.url = details.origin === undefined ? undefined : `${details.origin}${details.path ?? ''}`;
  }
}

/** The client's timeout elapsed (or the service answered 408). */
export class TimeoutError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.timeout, message, details);
    this.name = 'TimeoutError';
  }
}

/** The caller's AbortSignal fired. Never retried. */
export class AbortedError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(API_ERROR_CODES.aborted, message, details);
    this.name = 'AbortedError';
  }
}

/** The response could not be understood: not JSON, wrong shape, trailing garbage. */
export class ProtocolError extends ApiError {
  constructor(message: string, details: ApiErrorDetails = {}, code: ApiErrorCode = API_ERROR_CODES.protocol) {
    super(code, message, details);
    this.name = 'ProtocolError';
  }
}

/** A buffered body (status, list, token or error response) passed the transport's `maxBodyBytes`. */
export class ResponseTooLargeError extends ProtocolError {
  readonly limitBytes: number;
  constructor(limitBytes: number, details: ApiErrorDetails = {}) {
    super(
      `The response body is larger than ${limitBytes} bytes (after decompression)`,
      details,
      API_ERROR_CODES.responseTooLarge,
    );
    this.name = 'ResponseTooLargeError';
    this.limitBytes = limitBytes;
  }
}

/** The body ended cleanly but before the JSON document did: never a short result. */
export class TruncatedBodyError extends ProtocolError {
  constructor(message: string, details: ApiErrorDetails = {}) {
    super(message, details, API_ERROR_CODES.truncatedBody);
    this.name = 'TruncatedBodyError';
  }
}

/** The rows read disagree with the result's `totalCount` (or `rowLimit`). */
export class RowCountMismatchError extends ProtocolError {
  readonly expected: number;
  readonly actual: number;
  constructor(expected: number, actual: number, details: ApiErrorDetails = {}) {
    super(`Read ${actual} rows, the result announced ${expected}`, details, API_ERROR_CODES.rowCountMismatch);
    this.name = 'RowCountMismatchError';
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A value of the result nests deeper than {@link ValueTooDeepError.limit} levels. No walk of
 * the client recurses, so any depth would be read; the bound keeps such a value away from
 * consumers that do recurse (serializers, structured clone), where it would fail naming
 * nothing. Terminal: the service sends the same value again.
 */
export class ValueTooDeepError extends ProtocolError {
  readonly limit: number;
  /** The row's index in the result, when the value is in a row. */
  readonly row: number | undefined;
  /** The member (of the row, or of the result when `row` is undefined). */
  readonly member: string;
  constructor(
    limit: number,
    at: { row?: number | undefined; member: string },
    details: ApiErrorDetails = {},
  ) {
    const where =
      at.row === undefined ? `member '${at.member}'` : `row index ${at.row}, member '${at.member}'`;
    super(
      `The result nests a value deeper than ${limit} levels (${where})`,
      details,
      API_ERROR_CODES.valueTooDeep,
    );
    this.name = 'ValueTooDeepError';
    this.limit = limit;
    this.row = at.row;
    this.member = at.member;
  }
}

/**
 * The response is in a content coding the client does not decode (`zstd`, or anything but
 * the codings it asked for): said as such, not as a body that is not JSON. Terminal.
 */
export class UnsupportedContentEncodingError extends ProtocolError {
  /** The Content-Encoding as sent. */
  readonly encoding: string;
  readonly supported: readonly string[];
  constructor(header: string, supported: readonly string[], details: ApiErrorDetails = {}) {
    const encoding = truncateServiceText(header, 64);
    super(
      `The response's Content-Encoding '${encoding}' is not one the client decodes (${supported.join(', ')})`,
      details,
      API_ERROR_CODES.unsupportedEncoding,
    );
    this.name = 'UnsupportedContentEncodingError';
    this.encoding = encoding;
    this.supported = supported;
  }
}

/** A call was rejected before any request: a bad id, phone number or option. */
export class ValidationError extends ApiError {
  /** The argument at fault, e.g. `directoryId`. */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(API_ERROR_CODES.validation, `${argument}: ${message}`);
    this.name = 'ValidationError';
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
    const statusMessage = truncateServiceText(init.statusMessage);
    super(
      API_ERROR_CODES.reportFailed,
      `Report run ended with status ${truncateServiceText(init.reportStatus, 64)}`,
      { serviceMessage: statusMessage },
    );
    this.name = 'ReportFailedError';
    this.reportStatus = truncateServiceText(init.reportStatus);
    this.statusMessage = statusMessage;
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
    this.name = 'PollBudgetExhaustedError';
    this.polls = polls;
    this.lastStatus = lastStatus;
  }
}
