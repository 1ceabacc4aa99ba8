import { randomUUID } from 'node:crypto';
import type { AccessTokenSource, OAuthClientConfig, TokenSet } from '../api';
import type { LeaseStore } from '../stores';
import { describeLeaseHolder, SECRET_STORE_ERROR_CODES, type SecretStore } from '../stores';
import { LeaseBusyError, loginRequired, ServiceUnavailableError, StoreFailedError } from './errors';

/**
 * The one secret of a deployment: what a login fills (client credentials, URLs, the
 * refresh token) and the cached access token. Tasks read the access token from here,
 * never from state.
 */
export interface ServiceSecret {
  authUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  refreshToken: string;
  accessToken?: string;
  /** Expiry of `accessToken`, ms since the epoch. */
  accessTokenExpiresAt?: number;
}

/** The refresh-token grant; injectable for tests. */
export type RefreshGrant = (
  client: OAuthClientConfig,
  refreshToken: string,
  signal?: AbortSignal,
) => Promise<TokenSet>;

interface SecretTokenSourceOptions {
  secrets: SecretStore;
  secretName: string;
  leases: LeaseStore;
  /** The refresh lease's key: one per secret. Default TOKEN_REFRESH_LEASE (the one secret's). */
  leaseKey?: string;
  refresh: RefreshGrant;
  now?: () => number;
  /** Refresh this long before expiry. Default 5 minutes. */
  expirySkewMs?: number;
  /** Lease lifetime; far longer than one refresh. Default 60 s. */
  leaseTtlMs?: number;
  /** How long to wait for another holder's refresh before giving up (LeaseBusyError, retried). Default 20 s. */
  leaseWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The lease every holder of the secret takes to refresh its tokens (one refresh at a time). */
export const TOKEN_REFRESH_LEASE = 'token-refresh';

/** A key of the lease store as a tenant's: under `tenant=<t>/`, or as it is without a tenant. */
export function tenantLeaseKey(key: string, tenant: string | undefined): string {
  return tenant === undefined ? key : `tenant=${tenant}/${key}`;
}

/**
 * The refresh lease of a secret: the deployment's one secret's (TOKEN_REFRESH_LEASE), or a
 * tenant's (`tenant=<t>/token-refresh`), so tenants never wait on each other's refresh.
 */
export function tokenRefreshLease(tenant?: string): string {
  return tenantLeaseKey(TOKEN_REFRESH_LEASE, tenant);
}

/**
 * Access tokens from the deployment's secret, refreshed only when about to expire and only
 * under a lease, so concurrent tasks and executions never redeem one refresh token twice:
 * the holder re-reads the secret under the lease (another holder may have refreshed
 * already), refreshes, and stores the new tokens (a rotated refresh token included) before
 * anything uses the new access token. A 401 invalidates the token and forces one refresh.
 */
export class SecretTokenSource implements AccessTokenSource {
  readonly #o: Required<Omit<SecretTokenSourceOptions, 'now' | 'sleep'>> & {
    now: () => number;
    sleep: (ms: number) => Promise<void>;
  };
  readonly #owner = randomUUID();
  #rejected: string | undefined;

  constructor(options: SecretTokenSourceOptions) {
    this.#o = {
      expirySkewMs: 300_000,
      leaseKey: TOKEN_REFRESH_LEASE,
      leaseTtlMs: 60_000,
      leaseWaitMs: 20_000,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      ...options,
    };
  }

  /** The secret as stored (for the service URLs and client id); never logged. */
  async read(): Promise<ServiceSecret> {
    let secret: ServiceSecret | undefined;
    try {
      secret = await this.#o.secrets.get<ServiceSecret>(this.#o.secretName);
    } catch (cause) {
      if ((cause as { code?: unknown }).code === SECRET_STORE_ERROR_CODES.invalidValue) {
        // A secret the deployment created but no login filled yet (a generated placeholder).
        throw loginRequired(
          `Secret ${this.#o.secretName} does not hold the login's JSON: log in (report-export login) to fill it`,
          cause,
        );
      }
      throw new StoreFailedError(`Could not read secret ${this.#o.secretName}`, { cause });
    }
    if (secret === undefined || typeof secret.refreshToken !== 'string' || secret.refreshToken === '') {
      throw loginRequired(
        `Secret ${this.#o.secretName} holds no refresh token: log in again (report-export login) to fill it`,
      );
    }
    return secret;
  }

  async getAccessToken(signal?: AbortSignal): Promise<string> {
    const secret = await this.read();
    if (this.#usable(secret)) return secret.accessToken as string;
    return this.#refresh(signal);
  }

  invalidate(token: string): void {
    this.#rejected = token;
  }

  #usable(s: ServiceSecret): boolean {
    return (
      typeof s.accessToken === 'string' &&
      s.accessToken !== '' &&
      s.accessToken !== this.#rejected &&
      (s.accessTokenExpiresAt ?? 0) - this.#o.expirySkewMs > this.#o.now()
    );
  }

  async #refresh(signal?: AbortSignal): Promise<string> {
    const deadline = this.#o.now() + this.#o.leaseWaitMs;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const lease = await this.#o.leases
        .acquire(this.#o.leaseKey, { ttlMs: this.#o.leaseTtlMs, owner: this.#owner })
        .catch((cause: unknown) => {
          throw new StoreFailedError('Could not take the token refresh lease', { cause });
        });
      if (lease === undefined) {
        if (this.#o.now() >= deadline) {
          // Who holds it and until when, where the store can tell (a local one; not S3).
          const holder = await describeLeaseHolder(this.#o.leases, this.#o.leaseKey);
          throw new LeaseBusyError(
            `Another task is refreshing the access token${holder === undefined ? '' : ` (lease ${this.#o.leaseKey} ${holder})`}; retry later`,
          );
        }
        await this.#o.sleep(Math.min(2000, 100 * 2 ** attempt));
        const fresh = await this.read();
        if (this.#usable(fresh)) return fresh.accessToken as string;
        continue;
      }
      try {
        // Under the lease: another holder may have refreshed since we looked.
        const secret = await this.read();
        if (this.#usable(secret)) return secret.accessToken as string;
        const tokens = await this.#grant(secret, signal);
        const next: ServiceSecret = {
          ...secret,
          refreshToken: tokens.refreshToken ?? secret.refreshToken,
          accessToken: tokens.accessToken,
          accessTokenExpiresAt: tokens.expiresAt,
        };
        await this.#store(next);
        this.#rejected = undefined;
        return tokens.accessToken;
      } finally {
        await lease.release().catch(() => {});
      }
    }
  }

  async #grant(secret: ServiceSecret, signal?: AbortSignal): Promise<TokenSet> {
    const client = {
      authUrl: secret.authUrl,
      clientId: secret.clientId,
      clientSecret: secret.clientSecret,
      redirectUri: secret.redirectUri,
    };
    try {
      return await this.#o.refresh(client, secret.refreshToken, signal);
    } catch (cause) {
      const error = (cause as { error?: unknown }).error;
      if (error === 'invalid_grant' || error === 'unauthorized_client' || error === 'invalid_client') {
        throw loginRequired(
          `The authorization server refused the stored refresh token (${String(error)}): it is revoked or expired; log in again (report-export login) to refill secret ${this.#o.secretName}`,
          cause,
        );
      }
      throw new ServiceUnavailableError('Refreshing the access token failed', { cause });
    }
  }

  /** The rotated refresh token must not be lost: a few attempts before giving up loudly. */
  async #store(next: ServiceSecret): Promise<void> {
    let last: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        await this.#o.secrets.put(this.#o.secretName, next);
        return;
      } catch (cause) {
        last = cause;
        await this.#o.sleep(200 * 2 ** attempt);
      }
    }
    throw new StoreFailedError(
      `Could not store the refreshed tokens in secret ${this.#o.secretName}; if the service rotates refresh tokens, log in again`,
      { cause: last },
    );
  }
}
