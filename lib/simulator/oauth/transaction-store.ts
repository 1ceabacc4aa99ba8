import type { Clock } from '../clock';
import type { AuthorizeRequest } from './authorize-request';
import { randomOpaqueToken } from './opaque-tokens';

/** A validated authorization request waiting for the user on the login page. */
interface LoginTransaction {
  id: string;
  request: AuthorizeRequest;
  expiresAt: number;
  failedLogins: number;
}

/** Login pages open at once by default; opening one more forgets the oldest. */
const DEFAULT_MAX_LOGIN_TRANSACTIONS = 1000;

/**
 * Server-side state of the login page. The page carries only the random transaction id,
 * so a form post cannot smuggle in another client, redirect URI or scope. The number of
 * pending transactions is capped (the oldest is evicted), and each holds only validated,
 * bounded fields (see validateAuthorizeRequest), so opening login pages in a loop cannot
 * grow the server's memory.
 */
export class LoginTransactionStore {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxPending: number;
  readonly #transactions = new Map<string, LoginTransaction>();

  constructor(clock: Clock, ttlSeconds: number, maxPending = DEFAULT_MAX_LOGIN_TRANSACTIONS) {
    this.#clock = clock;
    this.#ttlMs = ttlSeconds * 1000;
    this.#maxPending = maxPending;
  }

  create(request: AuthorizeRequest): LoginTransaction {
    this.#sweep();
    // Map order is creation order: the first key is the oldest pending transaction.
    while (this.#transactions.size >= this.#maxPending) {
      this.#transactions.delete(this.#transactions.keys().next().value as string);
    }
    const transaction: LoginTransaction = {
      id: randomOpaqueToken(),
      request,
      expiresAt: this.#clock.now() + this.#ttlMs,
      failedLogins: 0,
    };
    this.#transactions.set(transaction.id, transaction);
    return transaction;
  }

  /** The live transaction with this id, or undefined when unknown or expired. */
  get(id: string): LoginTransaction | undefined {
    const transaction = this.#transactions.get(id);
    if (transaction === undefined || this.#clock.now() >= transaction.expiresAt) {
      return undefined;
    }
    return transaction;
  }

  /** Number of pending transactions. */
  get size(): number {
    return this.#transactions.size;
  }

  /** Ends a transaction (approved, denied or abandoned): its id never works again. */
  end(id: string): void {
    this.#transactions.delete(id);
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [id, transaction] of this.#transactions) {
      if (now >= transaction.expiresAt) {
        this.#transactions.delete(id);
      }
    }
  }
}
