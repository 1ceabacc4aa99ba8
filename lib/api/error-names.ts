import { API_ERROR_CODES as A, type ApiErrorCode } from './errors';
import { OAUTH_ERROR_CODES as O, type OAuthErrorCode } from './oauth/errors';

/**
 * What a caller does with an error of the client, after the client spent its own retries:
 * - `transient`: worth retrying later (the same call may pass).
 * - `terminal`: never worth retrying: the same call fails the same way until something else
 *   changes (a person logs in again, the request or the report is changed).
 * - `caller-decides`: depends on what the caller was doing: `AbortedError` (the caller
 *   stopped), `ProtocolError` and `RowCountMismatchError` (a response not understood),
 *   `TokenEndpointError` (other RFC 6749 errors: `invalid_client` is terminal,
 *   `temporarily_unavailable` is not), `InvalidOAuthResponseError` and
 *   `TokenPersistenceError` (a rotated refresh token may be lost: alarm, do not loop).
 */
export type ApiErrorTreatment = 'transient' | 'terminal' | 'caller-decides';

/** One row of {@link API_ERROR_TABLE}. */
export interface ApiErrorRow {
  /** The literal `name` its class sets: it survives bundling, and a workflow matches on it. */
  readonly name: string;
  readonly treatment: ApiErrorTreatment;
  /**
   * The client's later calls fail the same way (the login is gone or lacks the right, the
   * caller stopped): a batch of calls stops at once rather than failing every item.
   */
  readonly failsEveryCall: boolean;
  /**
   * A write (POST, PUT, PATCH, DELETE) that failed so may still have been applied: the
   * request may have reached the service and its answer was lost or not understood. Look
   * before reporting it failed or sending it again.
   */
  readonly mayBeApplied: boolean;
}

const EVERY_CALL = 'failsEveryCall';
const APPLIED = 'mayBeApplied';

/** A row: the flags named are true. */
function row<N extends string, T extends ApiErrorTreatment>(
  name: N,
  treatment: T,
  ...flags: (typeof EVERY_CALL | typeof APPLIED)[]
): { name: N; treatment: T; failsEveryCall: boolean; mayBeApplied: boolean } {
  return {
    name,
    treatment,
    failsEveryCall: flags.includes(EVERY_CALL),
    mayBeApplied: flags.includes(APPLIED),
  };
}

/**
 * The one table of the client's errors, keyed by every API and OAuth error code (the
 * compiler checks each has a row). The client's own lists below, the directory sync's and
 * the workflow's tests read it; the workflow's table (lib/workflow/error-table.ts) maps the
 * same codes to task outcomes, and a test checks the two agree.
 */
export const API_ERROR_TABLE = {
  [A.badRequest]: row('BadRequestError', 'terminal'),
  // The token provider already refreshed once: a fresh token refused again is not a blip.
  [A.unauthorized]: row('UnauthorizedError', 'terminal', EVERY_CALL),
  [A.forbidden]: row('ForbiddenError', 'terminal', EVERY_CALL),
  [A.notFound]: row('NotFoundError', 'terminal'),
  // Refused before acting (429), as the transport's retry rules for writes assume.
  [A.rateLimited]: row('RateLimitedError', 'transient'),
  [A.server]: row('ServerError', 'transient', APPLIED),
  [A.unexpectedStatus]: row('UnexpectedStatusError', 'terminal', APPLIED),
  // A redirect comes from the address (http -> https, a wrong host), not from the service acting.
  [A.redirect]: row('RedirectError', 'terminal'),
  [A.connection]: row('ConnectionError', 'transient', APPLIED),
  [A.timeout]: row('TimeoutError', 'transient', APPLIED),
  [A.aborted]: row('AbortedError', 'caller-decides', EVERY_CALL, APPLIED),
  [A.protocol]: row('ProtocolError', 'caller-decides', APPLIED),
  // The service answered (too much, or in a coding the client does not read): it may have acted.
  [A.responseTooLarge]: row('ResponseTooLargeError', 'terminal', APPLIED),
  [A.unsupportedEncoding]: row('UnsupportedContentEncodingError', 'terminal', APPLIED),
  [A.truncatedBody]: row('TruncatedBodyError', 'transient', APPLIED),
  // These two fail only a result's read, never a write.
  [A.rowCountMismatch]: row('RowCountMismatchError', 'caller-decides'),
  [A.valueTooDeep]: row('ValueTooDeepError', 'terminal'),
  // Refused by the client before any request.
  [A.validation]: row('ValidationError', 'terminal'),
  [A.reportFailed]: row('ReportFailedError', 'terminal'),
  [A.pollBudgetExhausted]: row('PollBudgetExhaustedError', 'terminal'),
  // The token endpoint's errors fail every call that needs a token; none is a write.
  [O.tokenEndpoint]: row('TokenEndpointError', 'caller-decides', EVERY_CALL),
  // invalid_grant: the refresh token is revoked or spent; a person must log in again.
  [O.invalidGrant]: row('LoginRequiredError', 'terminal', EVERY_CALL),
  // These two only end an interactive login: the person starts it again.
  [O.authorizationResponse]: row('AuthorizationResponseError', 'terminal'),
  [O.stateMismatch]: row('StateMismatchError', 'terminal'),
  [O.invalidResponse]: row('InvalidOAuthResponseError', 'caller-decides'),
  [O.noRefreshToken]: row('NoRefreshTokenError', 'terminal', EVERY_CALL),
  // A rotated refresh token may be lost: every later call would need it.
  [O.persistenceFailed]: row('TokenPersistenceError', 'caller-decides', EVERY_CALL),
} as const satisfies Record<ApiErrorCode | OAuthErrorCode, ApiErrorRow>;

type Table = typeof API_ERROR_TABLE;
type NameWith<T extends ApiErrorTreatment> = {
  [C in keyof Table]: Table[C]['treatment'] extends T ? Table[C]['name'] : never;
}[keyof Table];

function namesWith<T extends ApiErrorTreatment>(treatment: T): readonly NameWith<T>[] {
  const rows: readonly ApiErrorRow[] = Object.values(API_ERROR_TABLE);
  return rows.filter((row) => row.treatment === treatment).map((row) => row.name as NameWith<T>);
}

/**
 * Error names a workflow matches on (Step Functions `Retry`/`Catch` `ErrorEquals`) that are
 * worth retrying later: the client already spent its own retries on them.
 */
export const API_TRANSIENT_ERROR_NAMES = namesWith('transient');
export type ApiTransientErrorName = NameWith<'transient'>;

/** Never worth retrying: the same call fails the same way until something else changes. */
export const API_TERMINAL_ERROR_NAMES = namesWith('terminal');
export type ApiTerminalErrorName = NameWith<'terminal'>;
