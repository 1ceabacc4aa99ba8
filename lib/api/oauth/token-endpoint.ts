import { parseErrorBody } from '../http/body';
import { RETRY_MODES } from '../http/retry';
import { createStatusError } from '../http/status-error';
import { type CallOptions, HttpTransport, type TextResponse, type TransportOptions } from '../http/transport';
import type { OAuthClientConfig } from './authorization';
import { InvalidOAuthResponseError, LoginRequiredError, TokenEndpointError } from './errors';

/** Tokens as the client keeps them. `expiresAt` is absolute (ms since the epoch). */
export interface TokenSet {
  accessToken: string;
  /** Absent when the server did not issue one; a rotated one replaces the previous. */
  refreshToken: string | undefined;
  tokenType: string;
  expiresAt: number;
  scope: string | undefined;
}

/** Transport settings for the token endpoint (fetch, timeouts, retries). */
export type TokenEndpointTransport = Omit<TransportOptions, 'baseUrl' | 'auth'>;

/** Lifetime assumed when the response states none: the spec's "1 hour". */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;

function transportFor(
  config: OAuthClientConfig,
  transport: TokenEndpointTransport | HttpTransport | undefined,
): HttpTransport {
  if (transport instanceof HttpTransport) return transport;
  return new HttpTransport({ ...transport, baseUrl: config.authUrl });
}

function tokenUrl(config: OAuthClientConfig): string {
  return `${config.authUrl.replace(/\/+$/, '')}/connect/token`;
}

/**
 * Sends the token request. POSTs are retried only when the server cannot have redeemed
 * the grant (see {@link RETRY_MODES}): a refresh token redeemed twice under rotation
 * revokes the whole family.
 */
function postForm(
  config: OAuthClientConfig,
  form: URLSearchParams,
  transport: TokenEndpointTransport | HttpTransport | undefined,
  call: CallOptions,
): Promise<TextResponse> {
  return transportFor(config, transport).requestText({
    ...call,
    method: 'POST',
    path: tokenUrl(config),
    form,
    retryMode: RETRY_MODES.unsentOnly,
    authenticate: false,
  });
}

/** Step 2, send: the authorization_code grant. */
export function sendAuthorizationCodeRequest(
  config: OAuthClientConfig,
  input: { code: string; codeVerifier?: string | undefined; redirectUri?: string },
  transport?: TokenEndpointTransport | HttpTransport,
  call: CallOptions = {},
): Promise<TextResponse> {
  const form = new URLSearchParams({
    code: input.code,
    grant_type: 'authorization_code',
    client_id: config.clientId,
    client_secret: config.clientSecret,
    redirect_uri: input.redirectUri ?? config.redirectUri,
  });
  if (input.codeVerifier) form.set('code_verifier', input.codeVerifier);
  return postForm(config, form, transport, call);
}

/** Step 3, send: the refresh_token grant. */
export function sendRefreshRequest(
  config: OAuthClientConfig,
  refreshToken: string,
  transport?: TokenEndpointTransport | HttpTransport,
  call: CallOptions = {},
): Promise<TextResponse> {
  const form = new URLSearchParams({
    refresh_token: refreshToken,
    grant_type: 'refresh_token',
    client_id: config.clientId,
    client_secret: config.clientSecret,
  });
  return postForm(config, form, transport, call);
}

/**
 * Validates a token endpoint response. An RFC 6749 error body becomes a
 * {@link TokenEndpointError} with `error` and `error_description` (a
 * {@link LoginRequiredError} for `invalid_grant`); other failures get the
 * transport's error class; a success must carry `access_token`. Lifetime comes from
 * `expires_in` or `expires` (seconds, number or numeric string).
 */
export function processTokenResponse(response: TextResponse, nowMs: number): TokenSet {
  let body: unknown;
  try {
    body = response.text ? (JSON.parse(response.text) as unknown) : undefined;
  } catch {
    // No `cause`: V8's SyntaxError quotes the start of the body, which may be a token.
    if (response.status >= 200 && response.status < 300) {
      throw new InvalidOAuthResponseError('The token response is not JSON');
    }
  }
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (response.status < 200 || response.status >= 300) {
    if (typeof o.error === 'string') {
      const description = typeof o.error_description === 'string' ? o.error_description : undefined;
      if (o.error === 'invalid_grant') throw new LoginRequiredError(description, response.status);
      throw new TokenEndpointError(o.error, description, response.status);
    }
    throw createStatusError(response.status, parseErrorBody(response.text), {
      method: 'POST',
      path: '/connect/token',
    });
  }
  if (typeof o.access_token !== 'string' || o.access_token === '') {
    throw new InvalidOAuthResponseError("The token response has no 'access_token'");
  }
  const lifetime = seconds(o.expires_in) ?? seconds(o.expires) ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  return {
    accessToken: o.access_token,
    refreshToken: typeof o.refresh_token === 'string' && o.refresh_token !== '' ? o.refresh_token : undefined,
    tokenType: typeof o.token_type === 'string' ? o.token_type : 'bearer',
    expiresAt: nowMs + lifetime * 1000,
    scope: typeof o.scope === 'string' ? o.scope : undefined,
  };
}

function seconds(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Step 2: exchanges the code from {@link validateRedirect} for tokens. */
export async function exchangeCode(
  config: OAuthClientConfig,
  input: { code: string; codeVerifier?: string | undefined; redirectUri?: string },
  options: { transport?: TokenEndpointTransport | HttpTransport; now?: () => number } & CallOptions = {},
): Promise<TokenSet> {
  const { transport, now = Date.now, ...call } = options;
  return processTokenResponse(await sendAuthorizationCodeRequest(config, input, transport, call), now());
}

/** Step 3: new tokens for a refresh token. Store the returned refresh token: it may rotate. */
export async function refreshTokens(
  config: OAuthClientConfig,
  refreshToken: string,
  options: { transport?: TokenEndpointTransport | HttpTransport; now?: () => number } & CallOptions = {},
): Promise<TokenSet> {
  const { transport, now = Date.now, ...call } = options;
  const set = processTokenResponse(await sendRefreshRequest(config, refreshToken, transport, call), now());
  // Without rotation the server may not repeat the refresh token: the old one stays valid.
  return set.refreshToken ? set : { ...set, refreshToken };
}
