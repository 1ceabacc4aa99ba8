import type { Clock } from '../clock';
import type { PkceChallenge } from './authorize-request';
import { randomOpaqueToken } from './opaque-tokens';

/** What an authorization code stands for; the token endpoint checks client and redirect URI against it. */
export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  subject: string;
  tenantId: string;
  scope: string;
  codeChallenge: PkceChallenge | undefined;
}

/** Result of presenting a code at the token endpoint. */
type CodeRedemption =
  | { kind: 'redeemed'; grant: CodeGrant }
  /** Presented before: RFC 6749 4.1.2 says to revoke what was issued from it. */
  | { kind: 'reused'; grant: CodeGrant; refreshFamilyIds: readonly string[] }
  | { kind: 'unknown' };

interface CodeRecord {
  grant: CodeGrant;
  expiresAt: number;
  used: boolean;
  refreshFamilyIds: string[];
}

/** Authorization codes: random, single use, short lived, bound to the grant that made them. */
export class AuthorizationCodeStore {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #codes = new Map<string, CodeRecord>();

  constructor(clock: Clock, ttlSeconds: number) {
    this.#clock = clock;
    this.#ttlMs = ttlSeconds * 1000;
  }

  /** Issues a new code for the grant. */
  issue(grant: CodeGrant): string {
    this.#sweep();
    const code = randomOpaqueToken();
    this.#codes.set(code, {
      grant,
      expiresAt: this.#clock.now() + this.#ttlMs,
      used: false,
      refreshFamilyIds: [],
    });
    return code;
  }

  /**
   * Consumes a code. Any presentation uses it up, so a failed exchange (wrong redirect URI,
   * wrong verifier) cannot be retried with guesses.
   */
  redeem(code: string): CodeRedemption {
    const record = this.#codes.get(code);
    if (record === undefined || this.#clock.now() >= record.expiresAt) {
      return { kind: 'unknown' };
    }
    if (record.used) {
      return { kind: 'reused', grant: record.grant, refreshFamilyIds: [...record.refreshFamilyIds] };
    }
    record.used = true;
    return { kind: 'redeemed', grant: record.grant };
  }

  /** Remembers the refresh-token family issued from a code, to revoke it if the code is replayed. */
  linkRefreshFamily(code: string, familyId: string): void {
    this.#codes.get(code)?.refreshFamilyIds.push(familyId);
  }

  /** Number of codes held (expired ones are dropped as new ones are issued). */
  get size(): number {
    return this.#codes.size;
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [code, record] of this.#codes) {
      if (now >= record.expiresAt) {
        this.#codes.delete(code);
      }
    }
  }
}
