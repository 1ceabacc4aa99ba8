import { UsageError } from '../../command-line';
import type { AsOf } from '../../export';

/** An ISO 8601 date and time with its offset: a time without one would be read in the machine's zone. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
/** A snapshot id as Iceberg writes it: a positive integer of up to 63 bits (19 digits). */
const SNAPSHOT_ID = /^[1-9]\d{0,18}$/;

/** `YYYY-MM-DD` names a day of the calendar (Date.parse takes 2026-02-30 as March 2). */
function realDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10) === ymd;
}

/**
 * `--as-of`'s value: a snapshot id (digits; kept as text beyond 2^53, where a number would
 * round it) or an ISO 8601 timestamp with its offset (`2026-11-25T18:00:00Z`,
 * `2026-11-25T19:00+01:00`). Anything else is a UsageError naming the flag.
 */
export function asOfValue(raw: string, flag: string): AsOf {
  if (SNAPSHOT_ID.test(raw)) {
    const n = Number(raw);
    return { snapshotId: Number.isSafeInteger(n) ? n : raw };
  }
  const ms = ISO_TIMESTAMP.test(raw) && realDate(raw.slice(0, 10)) ? Date.parse(raw) : Number.NaN;
  if (!Number.isNaN(ms)) return { timestampMs: ms };
  throw new UsageError(
    `${flag} must be a snapshot id (as report-export tables snapshots lists them) or an ISO 8601 timestamp with its offset, e.g. 2026-11-25T18:00:00Z, got '${raw}'`,
  );
}
