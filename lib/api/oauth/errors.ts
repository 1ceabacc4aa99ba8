import { truncateServiceText } from '../service-text';

/**
 * Errors of the OAuth steps. Each carries a stable `code`; errors from the authorization
 * server keep its `error` and `error_description`, never a code, token or secret.
 */
export const OAUTH_ERROR_CODES = {
  /** The authorization server answered with an RFC 6749 error other than `invalid_grant`. */
  tokenEndpoint: 'OAUTH_TOKEN_ERROR',
  /** `invalid_grant`: the refresh token (or code) is revoked, expired or spent; log in again. */
  invalidGrant: 'OAUTH_INVALID_GRANT',
  /** The redirect carried `error` (e.g. `access_denied`). */
  authorizationResponse: 'OAUTH_AUTHORIZATION_ERROR',
  stateMismatch: 'OAUTH_STATE_MISMATCH',
  invalidResponse: 'OAUTH_INVALID_RESPONSE',
  noRefreshToken: 'OAUTH_NO_REFRESH_TOKEN',
  persistenceFailed: 'OAUTH_PERSISTENCE_FAILED',
} as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[keyof typeof OAUTH_ERROR_CODES];

/** Base of the OAuth module's errors. */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OAuthError';
    this.code = code;
  }
}

/** A message in place of the generated one (what the caller was doing), and the cause. */
interface TokenEndpointErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * An RFC 6749 5.2 error from the token endpoint (`invalid_client`, `temporarily_unavailable`,
 * ...). `invalid_grant` has its own subclass, {@link LoginRequiredError}.
 */
export class TokenEndpointError extends OAuthError {
  /** RFC 6749 `error`, e.g. `invalid_client`; cut to 1 KiB like every service text. */
  readonly error: string;
  readonly errorDescription: string | undefined;
  readonly status: number;
  constructor(
    error: string,
    errorDescription: string | undefined,
    status: number,
    code: OAuthErrorCode = OAUTH_ERROR_CODES.tokenEndpoint,
    options?: TokenEndpointErrorOptions,
  ) {
    const e = truncateServiceText(error);
    const description = truncateServiceText(errorDescription);
    super(
      code,
      options?.message ??
        `Token endpoint error ${e}${description ? `: ${description}` : ''} (status ${status})`,
      options,
    );
    this.name = 'TokenEndpointError';
    this.error = e;
    this.errorDescription = description;
    this.status = status;
  }
}

/**
 * `invalid_grant`: the refresh token was revoked, expired or already redeemed (or an
 * authorization code expired or was reused). Retrying cannot help: someone must log in
 * again (the authorization code flow) to get a new refresh token.
 */
export class LoginRequiredError extends TokenEndpointError {
  /**
   * @param status the token endpoint's status; 0 when no endpoint answered (the workflow
   *   found no refresh token, or the service refused a freshly refreshed access token).
   */
  constructor(errorDescription: string | undefined, status: number, options?: TokenEndpointErrorOptions) {
    super('invalid_grant', errorDescription, status, OAUTH_ERROR_CODES.invalidGrant, options);
    this.name = 'LoginRequiredError';
  }
}

/** The authorization redirect carried `error` (RFC 6749 4.1.2.1). */
export class AuthorizationResponseError extends OAuthError {
  readonly error: string;
  readonly errorDescription: string | undefined;
  constructor(error: string, errorDescription: string | undefined) {
    const e = truncateServiceText(error);
    const description = truncateServiceText(errorDescription);
    super(
      OAUTH_ERROR_CODES.authorizationResponse,
      `Authorization failed: ${e}${description ? `: ${description}` : ''}`,
    );
    this.name = 'AuthorizationResponseError';
    this.error = e;
    this.errorDescription = description;
  }
}

/** The redirect's `state` is not the one sent: possibly a forged redirect. */
export class StateMismatchError extends OAuthError {
  constructor() {
    super(OAUTH_ERROR_CODES.stateMismatch, 'The redirect state does not match the authorization request');
    this.name = 'StateMismatchError';
  }
}

/** A redirect or token response that does not have the required shape. */
export class InvalidOAuthResponseError extends OAuthError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(OAUTH_ERROR_CODES.invalidResponse, message, options);
    this.name = 'InvalidOAuthResponseError';
  }
}

/** A refresh was needed but no refresh token is known (scope lacked offline_access?). */
export class NoRefreshTokenError extends OAuthError {
  constructor() {
    super(OAUTH_ERROR_CODES.noRefreshToken, 'No refresh token available');
    this.name = 'NoRefreshTokenError';
  }
}

/** The `onTokens` hook failed: the new access token is withheld until it is stored. */
export class TokenPersistenceError extends OAuthError {
  constructor(cause: unknown) {
    super(
      OAUTH_ERROR_CODES.persistenceFailed,
      'Storing the new tokens failed; the access token is withheld',
      {
        cause,
      },
    );
    this.name = 'TokenPersistenceError';
  }
}
