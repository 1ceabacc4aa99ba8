import type { Clock } from '../clock';

/** Limits of {@link LoginThrottle}; every one has a default. */
export interface LoginThrottleOptions {
  /** Failed sign-ins per username within the window before that username is refused. Default 10. */
  maxFailuresPerUser?: number;
  /** Failed sign-ins through one client within the window before the client is refused. Default 30. */
  maxFailuresPerClient?: number;
  /** Sliding window. Default 15 minutes. */
  windowSeconds?: number;
  /** Usernames and clients tracked at once; the least recently failed is forgotten first. Default 10,000. */
  maxTracked?: number;
}

export const DEFAULT_LOGIN_THROTTLE = {
  maxFailuresPerUser: 10,
  maxFailuresPerClient: 30,
  windowSeconds: 15 * 60,
  maxTracked: 10_000,
} as const satisfies Required<LoginThrottleOptions>;

// A typed username is kept only this long: the key space must not grow with the input.
const MAX_KEY_LENGTH = 256;

/**
 * Counts failed sign-ins per username and per client across login transactions, so a
 * fresh transaction does not buy a fresh set of guesses. Once a username or a client has
 * had its maximum of failures within the sliding window, every attempt is refused, even
 * with the right password, until the oldest failure leaves the window.
 */
export class LoginThrottle {
  readonly #clock: Clock;
  readonly #limits: Required<LoginThrottleOptions>;
  readonly #windowMs: number;
  /** key -> failure times (ms), oldest first; Map order = least recently failed first. */
  readonly #failures = new Map<string, number[]>();

  constructor(clock: Clock, options: LoginThrottleOptions = {}) {
    this.#clock = clock;
    this.#limits = { ...DEFAULT_LOGIN_THROTTLE, ...options };
    this.#windowMs = this.#limits.windowSeconds * 1000;
  }

  /** Seconds until an attempt for this username through this client may be made; 0 when it may now. */
  retryAfterSeconds(username: string, clientId: string): number {
    const waits = [
      this.#wait(userKey(username), this.#limits.maxFailuresPerUser),
      this.#wait(clientKey(clientId), this.#limits.maxFailuresPerClient),
    ];
    return Math.ceil(Math.max(...waits) / 1000);
  }

  /** Records a failed sign-in against the username and the client. */
  recordFailure(username: string, clientId: string): void {
    this.#record(userKey(username), this.#limits.maxFailuresPerUser);
    this.#record(clientKey(clientId), this.#limits.maxFailuresPerClient);
  }

  /** A successful sign-in clears the username's failures (the client's stay: it may be guessing others). */
  recordSuccess(username: string): void {
    this.#failures.delete(userKey(username));
  }

  /** Number of usernames and clients tracked (for tests of the bound). */
  get size(): number {
    return this.#failures.size;
  }

  #recent(key: string): number[] {
    const times = this.#failures.get(key);
    if (times === undefined) return [];
    const since = this.#clock.now() - this.#windowMs;
    while (times.length > 0 && (times[0] as number) <= since) times.shift();
    if (times.length === 0) this.#failures.delete(key);
    return times;
  }

  #wait(key: string, max: number): number {
    const times = this.#recent(key);
    if (times.length < max) return 0;
    // Blocked until the failure that made the count reach `max` leaves the window.
    return (times[times.length - max] as number) + this.#windowMs - this.#clock.now();
  }

  #record(key: string, max: number): void {
    const times = this.#recent(key);
    this.#failures.delete(key);
    times.push(this.#clock.now());
    // More than `max` recent failures change nothing: keep the list bounded.
    if (times.length > max) times.splice(0, times.length - max);
    this.#failures.set(key, times);
    if (this.#failures.size > this.#limits.maxTracked) {
      this.#failures.delete(this.#failures.keys().next().value as string);
    }
  }
}

function userKey(username: string): string {
  return `user:${username.trim().toLowerCase().slice(0, MAX_KEY_LENGTH)}`;
}

function clientKey(clientId: string): string {
  return `client:${clientId.slice(0, MAX_KEY_LENGTH)}`;
}
