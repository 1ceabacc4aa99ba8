/**
 * Every error code of the local service, in one list. Codes are for the service's own
 * logs and tests; what goes on the wire is the spec's body (HTTP status and message) or,
 * for OAuth, the RFC 6749 `error` value.
 */
export const SIM_ERROR_CODES = {
  invalidValue: 'SIM_INVALID_VALUE',
  windowTooLong: 'SIM_WINDOW_TOO_LONG',
  notFound: 'SIM_NOT_FOUND',
  methodNotAllowed: 'SIM_METHOD_NOT_ALLOWED',
  reportNotReady: 'SIM_REPORT_NOT_READY',
  payloadTooLarge: 'SIM_PAYLOAD_TOO_LARGE',
  invalidFaultRule: 'SIM_INVALID_FAULT_RULE',
  directoryStoreUnreadable: 'SIM_DIRECTORY_STORE_UNREADABLE',
  invalidTenants: 'SIM_INVALID_TENANTS',
  oauthInvalidRequest: 'SIM_OAUTH_INVALID_REQUEST',
  oauthInvalidClient: 'SIM_OAUTH_INVALID_CLIENT',
  oauthInvalidGrant: 'SIM_OAUTH_INVALID_GRANT',
  oauthUnauthorizedClient: 'SIM_OAUTH_UNAUTHORIZED_CLIENT',
  oauthUnsupportedGrantType: 'SIM_OAUTH_UNSUPPORTED_GRANT_TYPE',
  oauthUnsupportedResponseType: 'SIM_OAUTH_UNSUPPORTED_RESPONSE_TYPE',
  oauthInvalidScope: 'SIM_OAUTH_INVALID_SCOPE',
  oauthAccessDenied: 'SIM_OAUTH_ACCESS_DENIED',
  oauthServerError: 'SIM_OAUTH_SERVER_ERROR',
} as const;

export type SimErrorCode = (typeof SIM_ERROR_CODES)[keyof typeof SIM_ERROR_CODES];

/** Base error of the local service: a stable `code` from {@link SIM_ERROR_CODES}. */
export class SimulatorError extends Error {
  override readonly name: string = 'SimulatorError';
  readonly code: SimErrorCode;

  constructor(code: SimErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
