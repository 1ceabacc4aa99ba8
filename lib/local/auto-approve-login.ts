import {
  buildAuthorizationUrl,
  exchangeCode,
  type OAuthClientConfig,
  type TokenSet,
  validateRedirect,
} from '../api';

/**
 * The authorization-code flow against an authorization server that approves without a
 * person (the local service started with auto-approve): follow the authorize URL without
 * redirects, read the code from the Location header, exchange it. PKCE as a real login would.
 */
export async function loginWithAutoApproval(
  app: OAuthClientConfig,
  options: { pkce?: boolean; fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<TokenSet> {
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const { url, state, codeVerifier } = buildAuthorizationUrl({ ...app, pkce: options.pkce ?? true });
  const response = await (options.fetch ?? fetch)(url, {
    redirect: 'manual',
    signal: AbortSignal.any([AbortSignal.timeout(10_000), ...(options.signal ? [options.signal] : [])]),
  });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null) {
    throw new Error(
      `The authorization server did not approve at once (HTTP ${response.status}); is it started with auto-approve?`,
    );
  }
  const { code } = validateRedirect(location, state);
  const { authUrl, clientId, clientSecret, redirectUri } = app;
  const client = { authUrl, clientId, clientSecret, redirectUri };
  return exchangeCode(client, codeVerifier === undefined ? { code } : { code, codeVerifier }, call);
}
