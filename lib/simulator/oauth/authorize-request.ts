import { AuthorizeRedirectError, OAUTH_ERROR, OAuthServerError, UntrustedRedirectError } from './errors';
import { singleParam } from './http-io';
import type { RegisteredClient } from './types';

/** Scopes this server grants. `openid` is required; `offline_access` earns a refresh token. */
export const SUPPORTED_SCOPES: readonly string[] = ['openid', 'offline_access', 'onboarding', 'profile'];

/** The scope that makes the token endpoint issue a refresh token (spec, Authentication 7). */
export const OFFLINE_ACCESS_SCOPE = 'offline_access';

const PKCE_METHODS = ['S256', 'plain'] as const;
type PkceMethod = (typeof PKCE_METHODS)[number];

export interface PkceChallenge {
  value: string;
  method: PkceMethod;
}

/** A validated authorization request: everything needed to issue a code. */
export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  /** Normalized: deduplicated, single-space separated. */
  scope: string;
  state: string | undefined;
  codeChallenge: PkceChallenge | undefined;
  /** OpenID Connect's `login_hint`: the username to sign in as (auto-approve signs that user in). */
  loginHint?: string | undefined;
}

/**
 * Longest `state` kept. RFC 6749 sets no limit, but the state is stored with a pending
 * login, so it is bounded like every other stored field.
 */
export const MAX_STATE_LENGTH = 1024;
/** Longest `login_hint` kept (stored with a pending login like the state). */
export const MAX_LOGIN_HINT_LENGTH = 256;

// RFC 7636 4.2: 43 to 128 characters of the unreserved set.
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Validates an authorization request. Client and redirect URI come first: when either is
 * wrong the error is an {@link UntrustedRedirectError} (answered with a page, never a
 * redirect). Every later problem is an {@link AuthorizeRedirectError} aimed at the checked
 * redirect URI.
 */
export function validateAuthorizeRequest(
  params: URLSearchParams,
  clients: readonly RegisteredClient[],
): AuthorizeRequest {
  const { clientId, redirectUri } = checkClientAndRedirect(params, clients);
  // The state goes back even on errors, so the client can match the answer to its request;
  // an oversized one is not echoed (nor stored).
  const givenState = params.getAll('state')[0] || undefined;
  const state = givenState !== undefined && givenState.length > MAX_STATE_LENGTH ? undefined : givenState;
  const fail = (code: OAuthServerError['error'], description: string): AuthorizeRedirectError =>
    new AuthorizeRedirectError(code, description, { redirectUri, state });

  let responseType: string | undefined;
  let rawScope: string | undefined;
  let challenge: string | undefined;
  let challengeMethod: string | undefined;
  let loginHint: string | undefined;
  try {
    singleParam(params, 'state');
    responseType = singleParam(params, 'response_type');
    rawScope = singleParam(params, 'scope');
    challenge = singleParam(params, 'code_challenge');
    challengeMethod = singleParam(params, 'code_challenge_method');
    loginHint = singleParam(params, 'login_hint') || undefined;
  } catch (error) {
    if (error instanceof OAuthServerError) {
      throw fail(error.error, error.description);
    }
    throw error;
  }

  if (givenState !== state) {
    throw fail(OAUTH_ERROR.invalidRequest, `The state is longer than ${MAX_STATE_LENGTH} characters.`);
  }
  if (loginHint !== undefined && loginHint.length > MAX_LOGIN_HINT_LENGTH) {
    throw fail(
      OAUTH_ERROR.invalidRequest,
      `The login_hint is longer than ${MAX_LOGIN_HINT_LENGTH} characters.`,
    );
  }
  if (responseType === undefined) {
    throw fail(OAUTH_ERROR.invalidRequest, "The parameter 'response_type' is missing.");
  }
  if (responseType !== 'code') {
    throw fail(OAUTH_ERROR.unsupportedResponseType, "Only the response_type 'code' is supported.");
  }
  if (rawScope === undefined) {
    throw fail(OAUTH_ERROR.invalidRequest, "The parameter 'scope' is missing.");
  }
  const scopes = [...new Set(rawScope.split(' ').filter((s) => s !== ''))];
  const unknown = scopes.filter((s) => !SUPPORTED_SCOPES.includes(s));
  if (unknown.length > 0) {
    throw fail(OAUTH_ERROR.invalidScope, `Unsupported scope: ${unknown.join(' ')}.`);
  }
  if (!scopes.includes('openid')) {
    throw fail(OAUTH_ERROR.invalidScope, "The scope must include 'openid'.");
  }

  let codeChallenge: PkceChallenge | undefined;
  if (challenge === undefined) {
    if (challengeMethod !== undefined) {
      throw fail(OAUTH_ERROR.invalidRequest, 'code_challenge_method was sent without code_challenge.');
    }
  } else {
    const method = challengeMethod ?? 'plain';
    if (!isPkceMethod(method)) {
      throw fail(OAUTH_ERROR.invalidRequest, 'code_challenge_method must be S256 or plain.');
    }
    if (!PKCE_VALUE.test(challenge)) {
      throw fail(OAUTH_ERROR.invalidRequest, 'code_challenge is not a valid PKCE challenge.');
    }
    codeChallenge = { value: challenge, method };
  }

  return { clientId, redirectUri, scope: scopes.join(' '), state, codeChallenge, loginHint };
}

function checkClientAndRedirect(
  params: URLSearchParams,
  clients: readonly RegisteredClient[],
): { clientId: string; redirectUri: string } {
  const clientIds = params.getAll('client_id');
  const clientId = clientIds[0];
  if (clientIds.length !== 1 || clientId === undefined || clientId === '') {
    throw new UntrustedRedirectError(OAUTH_ERROR.invalidRequest, 'The client_id is missing or repeated.');
  }
  const client = clients.find((c) => c.clientId === clientId);
  if (client === undefined) {
    throw new UntrustedRedirectError(OAUTH_ERROR.unauthorizedClient, `Unknown client_id '${clientId}'.`);
  }
  const redirectUris = params.getAll('redirect_uri');
  const redirectUri = redirectUris[0];
  if (redirectUris.length !== 1 || redirectUri === undefined || redirectUri === '') {
    throw new UntrustedRedirectError(OAUTH_ERROR.invalidRequest, 'The redirect_uri is missing or repeated.');
  }
  // Exact string comparison (RFC 6749 3.1.2.3; OAuth 2.1): no prefix or normalization games.
  if (!client.redirectUris.includes(redirectUri)) {
    throw new UntrustedRedirectError(
      OAUTH_ERROR.invalidRequest,
      `The redirect_uri '${redirectUri}' is not registered for this client.`,
    );
  }
  return { clientId, redirectUri };
}

function isPkceMethod(value: string): value is PkceMethod {
  return (PKCE_METHODS as readonly string[]).includes(value);
}

/** Adds query parameters to a registered redirect URI, keeping any query it already has. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) {
      url.searchParams.set(name, value);
    }
  }
  return url.toString();
}
