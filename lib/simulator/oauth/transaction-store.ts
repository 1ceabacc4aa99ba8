import type { Clock } from '../clock';
import type { AuthorizeRequest } from './authorize-request';
import { randomOpaqueToken } from './opaque-tokens';

/** A validated authorization request waiting for the user on the login page. */
export interface LoginTransaction {
  id: string;
  request: AuthorizeRequest;
  expiresAt: number;
  failedLogins: number;
}

/**
 * Server-side state of the login page. The page carries only the random transaction id,
 * so a form post cannot smuggle in another client, redirect URI or scope.
 */
export class LoginTransactionStore {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #transactions = new Map<string, LoginTransaction>();

  constructor(clock: Clock, ttlSeconds: number) {
    this.#clock = clock;
    this.#ttlMs = ttlSeconds * 1000;
  }

  create(request: AuthorizeRequest): LoginTransaction {
    this.#sweep();
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
