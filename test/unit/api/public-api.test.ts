import { describe, expect, it } from 'vitest';
import * as api from '../../../lib/api';
import * as oauth from '../../../lib/api/oauth/index';

/**
 * The runtime exports of the barrel, reviewed. Adding one is a decision about the public
 * API: internals (envelope parsing, retry arithmetic, the status-error factory, PKCE
 * helpers) are imported by their file path, tests included.
 */
const PUBLIC_RUNTIME_EXPORTS = [
  'API_ERROR_CODES',
  'API_ERROR_TABLE',
  'DEFAULT_PHONE_REGION',
  'API_TERMINAL_ERROR_NAMES',
  'API_TRANSIENT_ERROR_NAMES',
  'AbortedError',
  'ApiError',
  'AuthorizationResponseError',
  'BadRequestError',
  'ConnectionError',
  'DEFAULT_TOKEN_LIFETIME_SECONDS',
  'DirectoryClient',
  'ForbiddenError',
  'HttpTransport',
  'InvalidOAuthResponseError',
  'LoginRequiredError',
  'NoRefreshTokenError',
  'NotFoundError',
  'OAUTH_ERROR_CODES',
  'OAuthError',
  'PRODUCTION_AUTH_URL',
  'PollBudgetExhaustedError',
  'ProtocolError',
  'REGIONS',
  'REPORT_STATE',
  'RETRY_MODES',
  'RateLimitedError',
  'RedirectError',
  'ReportFailedError',
  'ReportingClient',
  'ResponseTooLargeError',
  'RowCountMismatchError',
  'ServerError',
  'StateMismatchError',
  'TRANSPORT_DEFAULTS',
  'TimeoutError',
  'TokenEndpointError',
  'TokenPersistenceError',
  'TokenProvider',
  'TruncatedBodyError',
  'UnauthorizedError',
  'UnexpectedStatusError',
  'UnsupportedContentEncodingError',
  'ValidationError',
  'ValueTooDeepError',
  'buildAuthorizationUrl',
  'classifyReportStatus',
  'createClient',
  'exchangeCode',
  'parseReportResultStream',
  'phoneExtension',
  'processTokenResponse',
  'rawMembersOf',
  'productionBaseUrl',
  'refreshTokens',
  'requireRegion',
  'searchTextFor',
  'sendAuthorizationCodeRequest',
  'sendRefreshRequest',
  'toE164',
  'validateRedirect',
];

describe('lib/api barrel', () => {
  it('exports exactly the reviewed public API when imported', () => {
    // Act
    const exported = Object.keys(api).sort();
    // Assess
    expect(exported).toEqual([...PUBLIC_RUNTIME_EXPORTS].sort());
  });

  it.each([
    'parseEnvelope',
    'toOptionalInt',
    'toOptionalNumber',
    'createStatusError',
    'shouldRetry',
    'backoffDelay',
    'parseRetryAfter',
    'pkceChallenge',
    'randomToken',
  ])('does not export the internal %s from either barrel', (name) => {
    // Assess
    expect(Object.keys(api)).not.toContain(name);
    expect(Object.keys(oauth)).not.toContain(name);
  });
});
