/**
 * Port for short leases taken by a conditional write: at most one holder per key at a
 * time across processes and executions. A lease expires after its TTL so a crashed holder
 * never blocks for ever; holders keep their critical sections far shorter than the TTL.
 */
export interface LeaseStore {
  /** Takes the lease, or resolves undefined when another holder has it and it has not expired. */
  acquire(key: string, options: { ttlMs: number; owner: string }): Promise<Lease | undefined>;
}

/** A lease held; `release` is idempotent and never throws for an already expired lease. */
export interface Lease {
  readonly key: string;
  readonly owner: string;
  release(): Promise<void>;
}

/** What a lease object holds (JSON): who holds it and until when (ms since the epoch). */
interface LeaseRecord {
  owner: string;
  expiresAt: number;
}

export const LEASE_STORE_ERROR_CODES = {
  invalidKey: 'STORE_LEASE_KEY_INVALID',
  failed: 'STORE_LEASE_FAILED',
} as const;
type LeaseStoreErrorCode = (typeof LEASE_STORE_ERROR_CODES)[keyof typeof LEASE_STORE_ERROR_CODES];

/** Base error of the lease stores; names the lease key. */
export class LeaseStoreError extends Error {
  readonly code: LeaseStoreErrorCode;
  readonly key: string;
  constructor(code: LeaseStoreErrorCode, message: string, options: { key: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LeaseStoreError';
    this.code = code;
    this.key = options.key;
  }
}

const KEY = /^[A-Za-z0-9._=-]+(?:\/[A-Za-z0-9._=-]+)*$/;

/** Lease keys: `/`-separated segments of letters, digits and `._=-`, no `.` or `..` segment. */
export function checkLeaseKey(key: string): void {
  if (
    !KEY.test(key) ||
    key.length > 512 ||
    key.split('/').some((s) => s === '.' || s === '..' || s.length > 200)
  ) {
    throw new LeaseStoreError(
      LEASE_STORE_ERROR_CODES.invalidKey,
      `Invalid lease key: ${JSON.stringify(key)}`,
      {
        key,
      },
    );
  }
}

/** Parses a stored lease; anything unreadable counts as expired (a torn write of a crashed holder). */
export function parseLeaseRecord(text: string): LeaseRecord {
  try {
    const v = JSON.parse(text) as Partial<LeaseRecord>;
    if (typeof v.owner === 'string' && typeof v.expiresAt === 'number')
      return { owner: v.owner, expiresAt: v.expiresAt };
  } catch {
    // fall through
  }
  return { owner: '', expiresAt: 0 };
}
