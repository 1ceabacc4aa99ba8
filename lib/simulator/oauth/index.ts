import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessTokenIssuer } from './access-tokens';
import { handleAuthorizeRequest } from './authorize-endpoint';
import { AuthorizationCodeStore } from './code-store';
import { discoveryDocument } from './discovery';
import { sendJson } from './http-io';
import { LoginThrottle } from './login-throttle';
import { RefreshTokenStore } from './refresh-store';
import { handleTokenRequest } from './token-endpoint';
import { LoginTransactionStore } from './transaction-store';
import type { AccessTokenClaims, OAuthServer, OAuthServerOptions } from './types';

export { OAUTH_ERROR, type OAuthErrorCode, OAuthServerError } from './errors';
export { escapeHtml } from './login-page';
export { DEFAULT_LOGIN_THROTTLE, type LoginThrottleOptions } from './login-throttle';
export { s256Challenge } from './pkce';
export type {
  AccessTokenClaims,
  OAuthServer,
  OAuthServerOptions,
  RegisteredClient,
  SeededUser,
} from './types';

/**
 * The redirect URIs the spec and notes name as the default (https in the spec, http in the
 * docs). Matching is exact, so both spellings the docs print (with and without the path
 * slash) are registered.
 */
export const DEFAULT_REDIRECT_URIS: readonly string[] = [
  'https://127.0.0.1:8000/',
  'http://127.0.0.1:8000/',
  'https://127.0.0.1:8000',
  'http://127.0.0.1:8000',
];

/** Refresh-token idle expiry of the spec: 90 days without use. */
export const DEFAULT_REFRESH_IDLE_SECONDS = 90 * 24 * 60 * 60;

/** Authorization codes are short lived (RFC 6749 4.1.2 recommends at most 10 minutes). */
export const DEFAULT_CODE_TTL_SECONDS = 60;

/** How long a login page stays usable. */
export const LOGIN_TRANSACTION_TTL_SECONDS = 10 * 60;

export const OAUTH_PATHS = {
  authorize: '/connect/authorize',
  token: '/connect/token',
  discovery: '/.well-known/openid-configuration',
  jwks: '/.well-known/openid-configuration/jwks',
} as const;

/**
 * Creates the local authorization server. Mount it on the HTTP server that serves `issuer`
 * (the authUrl): hand every request to `handle` first, and go on when it returns false.
 *
 * @example
 * ```ts
 * const oauth = await createOAuthServer({ clients, users, clock, issuer: authUrl,
 *   autoApprove: false, rotateRefreshTokens: false, accessTokenTtlSeconds: 5400 });
 * http.createServer(async (req, res) => {
 *   const url = new URL(req.url ?? '/', authUrl);
 *   if (await oauth.handle(req, res, url)) return;
 *   // ... the API, which calls oauth.verifyAccessToken(bearer)
 * });
 * ```
 */
export async function createOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  if (options.clients.length === 0) {
    throw new TypeError('createOAuthServer: at least one client is required.');
  }
  if (options.users.length === 0) {
    throw new TypeError('createOAuthServer: at least one user is required.');
  }
  if (!(Number.isInteger(options.accessTokenTtlSeconds) && options.accessTokenTtlSeconds > 0)) {
    throw new TypeError('createOAuthServer: accessTokenTtlSeconds must be a positive integer.');
  }
  const { clock } = options;
  const clients = options.clients.map((c) => ({ ...c, redirectUris: [...c.redirectUris] }));
  const users = [...options.users];
  const usersByName = new Map(users.map((user) => [user.username, user]));
  if (usersByName.size !== users.length) {
    throw new TypeError('createOAuthServer: usernames must be unique.');
  }
  const accessTokens = await AccessTokenIssuer.create({
    issuer: options.issuer,
    clock,
    ttlSeconds: options.accessTokenTtlSeconds,
  });
  const codes = new AuthorizationCodeStore(clock, options.codeTtlSeconds ?? DEFAULT_CODE_TTL_SECONDS);
  const refreshTokens = new RefreshTokenStore({
    clock,
    idleSeconds: options.refreshIdleSeconds ?? DEFAULT_REFRESH_IDLE_SECONDS,
    rotate: options.rotateRefreshTokens,
  });
  const transactions = new LoginTransactionStore(
    clock,
    LOGIN_TRANSACTION_TTL_SECONDS,
    options.maxLoginTransactions,
  );
  const throttle = new LoginThrottle(clock, options.loginThrottle);
  const authorizeContext = {
    clients,
    users,
    usersByName,
    codes,
    transactions,
    throttle,
    autoApprove: options.autoApprove,
  };
  const tokenContext = { clients, codes, refreshTokens, accessTokens };

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    switch (url.pathname) {
      case OAUTH_PATHS.authorize:
        await handleAuthorizeRequest(req, res, url, authorizeContext);
        return true;
      case OAUTH_PATHS.token:
        await handleTokenRequest(req, res, tokenContext);
        return true;
      case OAUTH_PATHS.discovery:
        sendJson(res, 200, discoveryDocument(options.issuer, OAUTH_PATHS));
        return true;
      case OAUTH_PATHS.jwks:
        sendJson(res, 200, await accessTokens.jwks());
        return true;
      default:
        return false;
    }
  }

  return {
    async handle(req, res, url) {
      try {
        return await route(req, res, url);
      } catch {
        // Details stay inside: an error here may carry form fields (passwords, codes).
        if (!res.headersSent) {
          sendJson(res, 500, { error: 'server_error', error_description: 'Internal error.' });
        } else {
          res.destroy();
        }
        return true;
      }
    },
    verifyAccessToken(token: string): Promise<AccessTokenClaims | null> {
      return accessTokens.verify(token);
    },
    expireIssuedAccessTokens(): void {
      accessTokens.expireIssued();
    },
    revokeTenantGrants(tenantId: string): void {
      refreshTokens.revokeTenant(tenantId);
      accessTokens.expireIssuedToTenant(tenantId);
    },
  };
}
