import type { Clock } from '../clock';
import { randomOpaqueToken } from './opaque-tokens';

/** What a refresh token stands for. */
export interface RefreshGrant {
  clientId: string;
  subject: string;
  tenantId: string;
  scope: string;
}

/** Why a refresh token was refused; all of them are `invalid_grant` on the wire. */
const REFRESH_REJECTION = {
  unknown: 'unknown',
  wrongClient: 'wrong-client',
  idleExpired: 'idle-expired',
  revoked: 'revoked',
  reused: 'reused',
} as const;

type RefreshRejection = (typeof REFRESH_REJECTION)[keyof typeof REFRESH_REJECTION];

type RefreshUse =
  | { kind: 'accepted'; token: string; grant: RefreshGrant }
  | { kind: 'rejected'; reason: RefreshRejection };

interface RefreshTokenStoreOptions {
  clock: Clock;
  /** Idle expiry: a token not used for this long stops working. */
  idleSeconds: number;
  /** One-time tokens: each use returns a new one; replaying a used one revokes the family. */
  rotate: boolean;
}

interface TokenRecord {
  familyId: string;
  grant: RefreshGrant;
  lastUsedAt: number;
  used: boolean;
}

/**
 * Refresh tokens grouped in families (all tokens descending from one authorization code),
 * so that a replayed token can take down every token of its lineage.
 */
export class RefreshTokenStore {
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #rotate: boolean;
  readonly #tokens = new Map<string, TokenRecord>();
  readonly #revokedFamilies = new Set<string>();

  constructor(options: RefreshTokenStoreOptions) {
    this.#clock = options.clock;
    this.#idleMs = options.idleSeconds * 1000;
    this.#rotate = options.rotate;
  }

  /** Starts a new family with its first token. */
  issue(grant: RefreshGrant): { token: string; familyId: string } {
    this.#sweep();
    const familyId = randomOpaqueToken(16);
    return { token: this.#add(familyId, grant), familyId };
  }

  /** The grant of a live token, without using it (to check a narrowed scope first). */
  peek(token: string): RefreshGrant | undefined {
    const record = this.#tokens.get(token);
    if (record === undefined || this.#revokedFamilies.has(record.familyId) || this.#isIdle(record)) {
      return undefined;
    }
    return record.grant;
  }

  /**
   * Uses a token for `clientId`. Accepted: the idle clock restarts, and the token to hand out
   * is the same one (default) or a new one of the same family (rotation).
   */
  use(token: string, clientId: string): RefreshUse {
    const record = this.#tokens.get(token);
    if (record === undefined) {
      return reject(REFRESH_REJECTION.unknown);
    }
    if (this.#revokedFamilies.has(record.familyId)) {
      return reject(REFRESH_REJECTION.revoked);
    }
    // A token of another client is not that client's to replay: leave its family alone.
    if (record.grant.clientId !== clientId) {
      return reject(REFRESH_REJECTION.wrongClient);
    }
    if (record.used) {
      this.revokeFamily(record.familyId);
      return reject(REFRESH_REJECTION.reused);
    }
    if (this.#isIdle(record)) {
      this.#tokens.delete(token);
      return reject(REFRESH_REJECTION.idleExpired);
    }
    if (!this.#rotate) {
      record.lastUsedAt = this.#clock.now();
      return { kind: 'accepted', token, grant: record.grant };
    }
    record.used = true;
    return { kind: 'accepted', token: this.#add(record.familyId, record.grant), grant: record.grant };
  }

  /** Every token of the family stops working. */
  revokeFamily(familyId: string): void {
    this.#revokedFamilies.add(familyId);
    for (const [token, record] of this.#tokens) {
      // Used tokens stay so a later replay is still recognised as one.
      if (record.familyId === familyId && !record.used) {
        this.#tokens.delete(token);
      }
    }
  }

  /** Every family of the tenant's grants stops working (used tokens stay recognised as replays). */
  revokeTenant(tenantId: string): void {
    const families = new Set<string>();
    for (const record of this.#tokens.values()) {
      if (record.grant.tenantId === tenantId) families.add(record.familyId);
    }
    for (const familyId of families) this.revokeFamily(familyId);
  }

  #add(familyId: string, grant: RefreshGrant): string {
    const token = randomOpaqueToken();
    this.#tokens.set(token, { familyId, grant, lastUsedAt: this.#clock.now(), used: false });
    return token;
  }

  #sweep(): void {
    for (const [token, record] of this.#tokens) {
      if (this.#isIdle(record)) {
        this.#tokens.delete(token);
      }
    }
  }

  // "Expires after 90 days without use": at exactly 90 days it is gone.
  #isIdle(record: TokenRecord): boolean {
    return this.#clock.now() >= record.lastUsedAt + this.#idleMs;
  }
}

function reject(reason: RefreshRejection): RefreshUse {
  return { kind: 'rejected', reason };
}
