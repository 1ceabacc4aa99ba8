import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock';
import type { LoginThrottleOptions } from './login-throttle';

/** An OAuth client the authorization server knows. */
export interface RegisteredClient {
  clientId: string;
  clientSecret: string;
  /** Compared by exact string match (RFC 6749 3.1.2.3); never redirected to anything else. */
  redirectUris: string[];
}

/** A user who can log in on the login page (the reseller-portal user of the spec). */
export interface SeededUser {
  subject: string;
  username: string;
  password: string;
  tenantId: string;
}

/** Options of {@link createOAuthServer}. */
export interface OAuthServerOptions {
  clients: RegisteredClient[];
  /** Unique usernames. `autoApprove` logs in the one `login_hint` names, else the first. */
  users: SeededUser[];
  /** Time source of every expiry (codes, access tokens, refresh-token idle expiry). */
  clock: Clock;
  /** The authUrl; becomes the `iss` claim of access tokens. */
  issuer: string;
  /**
   * Skip the login page: GET /connect/authorize redirects at once with a code for the user
   * `login_hint` names (an unknown one: `access_denied`), else the first user.
   */
  autoApprove: boolean;
  /** Refresh tokens become one-time; reusing one is rejected and revokes its whole family. */
  rotateRefreshTokens: boolean;
  /** Lifetime of access tokens; the spec's `expires` is 5400. */
  accessTokenTtlSeconds: number;
  /** Refresh-token idle expiry. Default 90 days. */
  refreshIdleSeconds?: number;
  /** Authorization-code lifetime. Default 60. */
  codeTtlSeconds?: number;
  /** Failed sign-ins allowed per username and per client across login transactions (see LoginThrottle). */
  loginThrottle?: LoginThrottleOptions;
  /** Login pages pending at once; one more evicts the oldest. Default 1000. */
  maxLoginTransactions?: number;
}

/** What the API needs to know about a verified bearer token. */
export interface AccessTokenClaims {
  sub: string;
  clientId: string;
  tenantId: string;
  scope: string;
  /** Seconds since the epoch. */
  exp: number;
}

/** The authorization server: `/connect/authorize` (with its login page) and `/connect/token`. */
export interface OAuthServer {
  /** Handles GET/POST /connect/authorize, POST /connect/token (and the login form post). Returns false when the path is not an OAuth path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** Verifies a bearer JWT (signature with the server's key, expiry by the injected clock, not expired-by-fault); null when invalid. */
  verifyAccessToken(token: string): Promise<AccessTokenClaims | null>;
  /** Fault: every access token issued so far is expired from now on. */
  expireIssuedAccessTokens(): void;
  /**
   * What disabling a tenant's API access in the reseller portal does: every refresh token of
   * the tenant is revoked (its next use is `invalid_grant`) and its access tokens issued so far
   * stop working. A new login makes a new grant.
   */
  revokeTenantGrants(tenantId: string): void;
}
