import type { SpillShortage } from '../errors';

/** File system codes that mean "no room": retrying on the same storage cannot help. */
const DISK_FULL_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Part files did not fit (budget or full disk). Internal to the spill step: it crosses
 * from the encode worker as data, and read-partitions turns it into SpillBudgetError
 * once it knows the rows read.
 */
export class SpillShortageError extends Error {
  readonly shortage: SpillShortage;

  constructor(shortage: SpillShortage, options?: { cause?: unknown }) {
    super(
      shortage.reason === 'budget'
        ? `spill budget of ${shortage.budgetBytes} bytes reached at ${shortage.spilledBytes} bytes (${shortage.writeBytes} more needed)`
        : `local disk full (${shortage.errno}) at ${shortage.spilledBytes} bytes spilled`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'SpillShortageError';
    this.shortage = shortage;
  }
}

/** The file system's code when `error` says the disk (or the user's quota) is full. */
export function diskFullCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DISK_FULL_CODES.has(code) ? code : undefined;
}

/**
 * Bytes of part files one sink writes, for every partition and format, checked against
 * `spillBudgetBytes` before each write: the disk never holds more than the budget. One
 * counter per run, owned by the sink that writes (the calling thread's or the worker's),
 * so it is exact whichever thread encodes. Counts only what is appended (headers, row
 * groups, footers), one addition per append, never per row.
 */
export class SpillBudget {
  readonly #limit: number | undefined;
  #used = 0;

  /** `limit` undefined: unlimited (only counts). */
  constructor(limit?: number) {
    this.#limit = limit;
  }

  /** Bytes written (or reserved for the write under way). */
  get used(): number {
    return this.#used;
  }

  /** Reserves a write of `bytes`; throws SpillShortageError when it would pass the budget. */
  reserve(bytes: number): void {
    if (this.#limit !== undefined && this.#used + bytes > this.#limit) {
      throw new SpillShortageError({
        reason: 'budget',
        spilledBytes: this.#used,
        writeBytes: bytes,
        budgetBytes: this.#limit,
        errno: undefined,
      });
    }
    this.#used += bytes;
  }

  /**
   * A write of `bytes` (reserved) failed: the error to throw, a SpillShortageError when the
   * file system is full, else `error` itself. The reservation stays counted (part of it may
   * be on disk), so `used` remains an upper bound.
   */
  refused(error: unknown, bytes: number): unknown {
    const errno = diskFullCode(error);
    if (errno === undefined) return error;
    return new SpillShortageError(
      {
        reason: 'disk',
        spilledBytes: this.#used - bytes,
        writeBytes: bytes,
        budgetBytes: this.#limit,
        errno,
      },
      { cause: error },
    );
  }
}
