import { createHash, randomBytes } from 'node:crypto';
import { OAUTH_SCOPE } from '../../spec';
import { AuthorizationResponseError, InvalidOAuthResponseError, StateMismatchError } from './errors';

/** Settings of the registered client. */
export interface OAuthClientConfig {
  /** Authorization server, e.g. `https://login.xarios.cloud`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Registered redirect, e.g. `http://127.0.0.1:8000/`. */
  redirectUri: string;
}

export interface AuthorizationUrlInput {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  /** Default: 32 random bytes, base64url. */
  state?: string;
  /** Default: `openid offline_access onboarding`. */
  scope?: string;
  /** true: generate an S256 PKCE pair; or give the verifier to use. */
  pkce?: boolean | { codeVerifier: string };
}

export interface AuthorizationUrl {
  url: URL;
  state: string;
  /** Keep it for {@link exchangeCode} when PKCE was asked for. */
  codeVerifier: string | undefined;
}

/** A random URL-safe value (state, PKCE verifier). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** RFC 7636 S256 challenge of a verifier. */
export function pkceChallenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url');
}

/** Step 1: the URL to open in the browser (`{authUrl}/connect/authorize?...`). */
export function buildAuthorizationUrl(input: AuthorizationUrlInput): AuthorizationUrl {
  const state = input.state ?? randomToken();
  const url = new URL(`${input.authUrl.replace(/\/+$/, '')}/connect/authorize`);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', state);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('scope', input.scope ?? OAUTH_SCOPE);
  let codeVerifier: string | undefined;
  if (input.pkce) {
    codeVerifier = typeof input.pkce === 'object' ? input.pkce.codeVerifier : randomToken();
    url.searchParams.set('code_challenge', pkceChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return { url, state, codeVerifier };
}

/**
 * Step 1 answer: validates the redirect the browser landed on. The state is checked first
 * (a forged redirect must not be believed even about its error), then `error`, then `code`.
 */
export function validateRedirect(
  redirect: string | URL | URLSearchParams,
  expectedState: string,
): { code: string } {
  const params =
    redirect instanceof URLSearchParams
      ? redirect
      : new URL(typeof redirect === 'string' ? redirect : redirect.href, 'http://127.0.0.1/').searchParams;
  if (params.get('state') !== expectedState) throw new StateMismatchError();
  const error = params.get('error');
  if (error) throw new AuthorizationResponseError(error, params.get('error_description') ?? undefined);
  const code = params.get('code');
  if (!code) throw new InvalidOAuthResponseError("The redirect carries neither 'code' nor 'error'");
  return { code };
}
