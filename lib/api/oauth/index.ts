export {
  type AuthorizationUrl,
  type AuthorizationUrlInput,
  buildAuthorizationUrl,
  type OAuthClientConfig,
  validateRedirect,
} from './authorization';
export {
  AuthorizationResponseError,
  InvalidOAuthResponseError,
  LoginRequiredError,
  NoRefreshTokenError,
  OAUTH_ERROR_CODES,
  OAuthError,
  type OAuthErrorCode,
  StateMismatchError,
  TokenEndpointError,
  TokenPersistenceError,
} from './errors';
export {
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  exchangeCode,
  processTokenResponse,
  refreshTokens,
  sendAuthorizationCodeRequest,
  sendRefreshRequest,
  type TokenEndpointTransport,
  type TokenSet,
} from './token-endpoint';
export {
  type InitialTokens,
  type TokenClock,
  TokenProvider,
  type TokenProviderOptions,
} from './token-provider';
