import type { AccessTokenSource, HttpTransport } from '../http/transport';
import type { OAuthClientConfig } from './authorization';
import { NoRefreshTokenError, TokenPersistenceError } from './errors';
import { refreshTokens, type TokenEndpointTransport, type TokenSet } from './token-endpoint';

/** Time source; injectable so tests move time instead of waiting. */
export interface TokenClock {
  now(): number;
}

/** Tokens known at start, e.g. read from a secret store. */
export interface InitialTokens {
  refreshToken: string;
  accessToken?: string | undefined;
  /** Absolute expiry of `accessToken`, ms since the epoch. */
  expiresAt?: number | undefined;
}

export interface TokenProviderOptions {
  client: OAuthClientConfig;
  tokens: InitialTokens | TokenSet;
  /**
   * Persistence hook, awaited with every new token set BEFORE its access token is handed
   * out, so a rotated refresh token is stored before anything can depend on it. If it
   * throws, callers get a {@link TokenPersistenceError}; the next call retries the hook
   * with the same tokens (no second refresh), and the newest refresh token stays in memory.
   */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  clock?: TokenClock;
  /** Renew this long before expiry. Default 60 000 ms. */
  expirySkewMs?: number;
  /** fetch, timeouts and retries of the token endpoint. */
  transport?: TokenEndpointTransport | HttpTransport;
}

/**
 * Hands out access tokens, refreshing them with the refresh_token grant when they are
 * about to expire. Refresh is single-flight: any number of concurrent callers with an
 * expired token share one token request. Separate from the API client so one provider can
 * serve several clients and so its storage policy stays the caller's.
 *
 * @example
 * ```ts
 * const tokens = new TokenProvider({
 *   client: { authUrl, clientId, clientSecret, redirectUri },
 *   tokens: { refreshToken: stored.refreshToken },
 *   onTokens: (t) => secretStore.put({ ...stored, refreshToken: t.refreshToken }),
 * });
 * const client = createClient({ baseUrl, auth: tokens });
 * ```
 */
export class TokenProvider implements AccessTokenSource {
  readonly #client: OAuthClientConfig;
  readonly #onTokens: TokenProviderOptions['onTokens'];
  readonly #clock: TokenClock;
  readonly #skewMs: number;
  readonly #transport: TokenEndpointTransport | HttpTransport | undefined;
  #refreshToken: string | undefined;
  #current: TokenSet | undefined;
  #persisted = true;
  #inflight: Promise<string> | undefined;
  #refreshes = 0;

  constructor(options: TokenProviderOptions) {
    this.#client = options.client;
    this.#onTokens = options.onTokens;
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.#skewMs = options.expirySkewMs ?? 60_000;
    this.#transport = options.transport;
    this.#refreshToken = options.tokens.refreshToken;
    const t = options.tokens;
    if (t.accessToken && t.expiresAt !== undefined) {
      this.#current = {
        accessToken: t.accessToken,
        refreshToken: t.refreshToken,
        expiresAt: t.expiresAt,
        tokenType: 'tokenType' in t ? t.tokenType : 'bearer',
        scope: 'scope' in t ? t.scope : undefined,
      };
    }
  }

  /** The newest refresh token (after rotation, the one to store). */
  get refreshToken(): string | undefined {
    return this.#refreshToken;
  }

  /** How many refresh grants this provider sent. */
  get refreshCount(): number {
    return this.#refreshes;
  }

  /**
   * A valid access token. The `signal` only stops this caller's wait: a refresh already
   * sent runs to its end so a rotated refresh token is never lost.
   */
  async getAccessToken(signal?: AbortSignal): Promise<string> {
    const current = this.#current;
    if (current && this.#persisted && this.#isFresh(current)) return current.accessToken;
    this.#inflight ??= this.#renew().finally(() => {
      this.#inflight = undefined;
    });
    return signal ? raceAbort(this.#inflight, signal) : this.#inflight;
  }

  /** Forgets `token` if it is still the current one (a 401 said it is no longer valid). */
  invalidate(token: string): void {
    if (this.#current?.accessToken === token) this.#current = { ...this.#current, expiresAt: 0 };
  }

  #isFresh(t: TokenSet): boolean {
    return this.#clock.now() < t.expiresAt - this.#skewMs;
  }

  async #renew(): Promise<string> {
    let tokens = this.#current;
    // A token set whose hook failed earlier is retried as is: no second refresh grant.
    if (!tokens || this.#persisted || !this.#isFresh(tokens)) {
      const refreshToken = this.#refreshToken;
      if (!refreshToken) throw new NoRefreshTokenError();
      this.#refreshes++;
      const transport = this.#transport;
      tokens = await refreshTokens(this.#client, refreshToken, {
        now: () => this.#clock.now(),
        ...(transport ? { transport } : {}),
      });
      this.#refreshToken = tokens.refreshToken ?? refreshToken;
      this.#current = tokens;
      this.#persisted = false;
    }
    try {
      await this.#onTokens?.(tokens);
    } catch (error) {
      throw new TokenPersistenceError(error);
    }
    this.#persisted = true;
    return tokens.accessToken;
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
