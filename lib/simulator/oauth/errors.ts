import { SIM_ERROR_CODES, type SimErrorCode, SimulatorError } from '../errors';

/** RFC 6749 error codes (4.1.2.1 and 5.2) the server answers with. */
export const OAUTH_ERROR = {
  invalidRequest: 'invalid_request',
  invalidClient: 'invalid_client',
  invalidGrant: 'invalid_grant',
  unauthorizedClient: 'unauthorized_client',
  unsupportedGrantType: 'unsupported_grant_type',
  unsupportedResponseType: 'unsupported_response_type',
  invalidScope: 'invalid_scope',
  accessDenied: 'access_denied',
  serverError: 'server_error',
} as const;

export type OAuthErrorCode = (typeof OAUTH_ERROR)[keyof typeof OAUTH_ERROR];

/** The service's code of each RFC 6749 error. */
const SIM_CODE_OF: Record<OAuthErrorCode, SimErrorCode> = {
  invalid_request: SIM_ERROR_CODES.oauthInvalidRequest,
  invalid_client: SIM_ERROR_CODES.oauthInvalidClient,
  invalid_grant: SIM_ERROR_CODES.oauthInvalidGrant,
  unauthorized_client: SIM_ERROR_CODES.oauthUnauthorizedClient,
  unsupported_grant_type: SIM_ERROR_CODES.oauthUnsupportedGrantType,
  unsupported_response_type: SIM_ERROR_CODES.oauthUnsupportedResponseType,
  invalid_scope: SIM_ERROR_CODES.oauthInvalidScope,
  access_denied: SIM_ERROR_CODES.oauthAccessDenied,
  server_error: SIM_ERROR_CODES.oauthServerError,
};

/**
 * Base error of the local authorization server. `error` is the RFC 6749 error code sent
 * to the client, `code` the service's own; `description` is safe to send (it never
 * carries a token or a secret).
 */
export class OAuthServerError extends SimulatorError {
  override readonly name: string = 'OAuthServerError';
  readonly error: OAuthErrorCode;
  /** HTTP status when answered directly (token endpoint, error page). */
  readonly status: number;
  readonly description: string;

  constructor(
    error: OAuthErrorCode,
    description: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(
      SIM_CODE_OF[error],
      `${error}: ${description}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.error = error;
    this.description = description;
    this.status = options.status ?? 400;
  }
}

/** Client authentication failed at the token endpoint (401 with WWW-Authenticate). */
export class InvalidClientError extends OAuthServerError {
  override readonly name = 'InvalidClientError';

  constructor(description = 'Client authentication failed.') {
    super(OAUTH_ERROR.invalidClient, description, { status: 401 });
  }
}

/**
 * An authorization request whose client or redirect URI cannot be trusted: RFC 6749 4.1.2.1
 * forbids redirecting, so it is answered with an error page.
 */
export class UntrustedRedirectError extends OAuthServerError {
  override readonly name = 'UntrustedRedirectError';
}

/** The request body is larger than the server accepts. */
export class BodyTooLargeError extends OAuthServerError {
  override readonly name = 'BodyTooLargeError';

  constructor(limitBytes: number) {
    super(OAUTH_ERROR.invalidRequest, `The request body exceeds ${limitBytes} bytes.`, { status: 413 });
  }
}

/**
 * An authorization request error sent back to the client's (registered, checked) redirect
 * URI as `error`, `error_description` and `state` (RFC 6749 4.1.2.1).
 */
export class AuthorizeRedirectError extends OAuthServerError {
  override readonly name = 'AuthorizeRedirectError';
  readonly redirectUri: string;
  readonly state: string | undefined;

  constructor(
    code: OAuthErrorCode,
    description: string,
    target: { redirectUri: string; state: string | undefined },
  ) {
    super(code, description, { status: 302 });
    this.redirectUri = target.redirectUri;
    this.state = target.state;
  }
}
