import {
  buildAuthorizationUrl,
  exchangeCode,
  type OAuthClientConfig,
  type TokenSet,
  validateRedirect,
} from '../api';
import { LocalFileSecretStore } from '../stores';
import type { ServiceSecret } from '../workflow';

/**
 * The authorization-code flow against an authorization server that approves without a
 * person (the local service started with auto-approve): follow the authorize URL without
 * redirects, read the code from the Location header, exchange it. PKCE as a real login would.
 * `loginHint` (OpenID Connect's `login_hint`, a username) says which user approves: on a
 * service hosting several tenants, the user of the tenant the grant is for.
 */
export async function loginWithAutoApproval(
  app: OAuthClientConfig,
  options: { pkce?: boolean; fetch?: typeof fetch; signal?: AbortSignal; loginHint?: string } = {},
): Promise<TokenSet> {
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const { url, state, codeVerifier } = buildAuthorizationUrl({ ...app, pkce: options.pkce ?? true });
  if (options.loginHint !== undefined) url.searchParams.set('login_hint', options.loginHint);
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

/** What {@link writeAutoApprovedLogin} needs of a local service started with autoApprove. */
export interface AutoApprovingService {
  authUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * Signs in to the local service (auto-approval) and writes the secret a real `login`
 * writes (the workflow's ServiceSecret, name `service`) into a local secret file. With
 * `loginHint`, as that user (the grant reaches that user's tenant only).
 */
export async function writeAutoApprovedLogin(
  sim: AutoApprovingService,
  file: string,
  options: { loginHint?: string } = {},
): Promise<ServiceSecret> {
  const app = {
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
  };
  const tokens = await loginWithAutoApproval(app, options);
  const secret: ServiceSecret = {
    ...app,
    baseUrl: sim.baseUrl,
    refreshToken: tokens.refreshToken as string,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt,
  };
  await new LocalFileSecretStore(file).put('service', secret);
  return secret;
}
