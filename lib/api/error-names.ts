/**
 * Error names a workflow matches on (Step Functions `Retry`/`Catch` `ErrorEquals`). Each is
 * the literal `name` its class sets, so it survives bundling and minification; the unit
 * test checks every entry against a real instance.
 *
 * Not in either list, so a workflow decides per state: `AbortedError` (the caller stopped),
 * `ProtocolError` and `RowCountMismatchError` (a response not understood),
 * `TokenEndpointError` (other RFC 6749 errors: `invalid_client` is terminal,
 * `temporarily_unavailable` is not), `InvalidOAuthResponseError` and
 * `TokenPersistenceError` (a rotated refresh token may be lost: alarm, do not loop).
 */

/** Worth retrying later: the client already spent its own retries on them. */
export const API_TRANSIENT_ERROR_NAMES = [
  'ConnectionError',
  'TimeoutError',
  'RateLimitedError',
  'ServerError',
  'TruncatedBodyError',
] as const;
export type ApiTransientErrorName = (typeof API_TRANSIENT_ERROR_NAMES)[number];

/** Never worth retrying: the same call fails the same way until something else changes. */
export const API_TERMINAL_ERROR_NAMES = [
  'ReportFailedError',
  'PollBudgetExhaustedError',
  // invalid_grant: the refresh token is revoked or spent; a person must log in again.
  'LoginRequiredError',
  'NoRefreshTokenError',
  'ValidationError',
  'BadRequestError',
  'UnauthorizedError',
  'ForbiddenError',
  'NotFoundError',
  'UnexpectedStatusError',
  'RedirectError',
  'ResponseTooLargeError',
  'ValueTooDeepError',
  'UnsupportedContentEncodingError',
] as const;
export type ApiTerminalErrorName = (typeof API_TERMINAL_ERROR_NAMES)[number];
