/**
 * Errors of the OAuth steps. Each carries a stable `code`; errors from the authorization
 * server keep its `error` and `error_description`, never a code, token or secret.
 */
export const OAUTH_ERROR_CODES = {
  /** The authorization server answered with an RFC 6749 error (`invalid_grant`, ...). */
  tokenEndpoint: 'oauth_token_error',
  /** The redirect carried `error` (e.g. `access_denied`). */
  authorizationResponse: 'oauth_authorization_error',
  stateMismatch: 'oauth_state_mismatch',
  invalidResponse: 'oauth_invalid_response',
  noRefreshToken: 'oauth_no_refresh_token',
  persistenceFailed: 'oauth_persistence_failed',
} as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[keyof typeof OAUTH_ERROR_CODES];

/** Base of the OAuth module's errors. */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** An RFC 6749 5.2 error from the token endpoint, e.g. `invalid_grant` for a spent refresh token. */
export class TokenEndpointError extends OAuthError {
  /** RFC 6749 `error`, e.g. `invalid_grant`. */
  readonly error: string;
  readonly errorDescription: string | undefined;
  readonly status: number;
  constructor(error: string, errorDescription: string | undefined, status: number) {
    super(
      OAUTH_ERROR_CODES.tokenEndpoint,
      `Token endpoint error ${error}${errorDescription ? `: ${errorDescription}` : ''} (status ${status})`,
    );
    this.error = error;
    this.errorDescription = errorDescription;
    this.status = status;
  }
}

/** The authorization redirect carried `error` (RFC 6749 4.1.2.1). */
export class AuthorizationResponseError extends OAuthError {
  readonly error: string;
  readonly errorDescription: string | undefined;
  constructor(error: string, errorDescription: string | undefined) {
    super(
      OAUTH_ERROR_CODES.authorizationResponse,
      `Authorization failed: ${error}${errorDescription ? `: ${errorDescription}` : ''}`,
    );
    this.error = error;
    this.errorDescription = errorDescription;
  }
}

/** The redirect's `state` is not the one sent: possibly a forged redirect. */
export class StateMismatchError extends OAuthError {
  constructor() {
    super(OAUTH_ERROR_CODES.stateMismatch, 'The redirect state does not match the authorization request');
  }
}

/** A redirect or token response that does not have the required shape. */
export class InvalidOAuthResponseError extends OAuthError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(OAUTH_ERROR_CODES.invalidResponse, message, options);
  }
}

/** A refresh was needed but no refresh token is known (scope lacked offline_access?). */
export class NoRefreshTokenError extends OAuthError {
  constructor() {
    super(OAUTH_ERROR_CODES.noRefreshToken, 'No refresh token available');
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
  }
}
