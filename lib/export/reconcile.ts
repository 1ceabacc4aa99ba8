import type { ResultRow, SummaryEntry } from '../spec';

/** The five totals the service's `summary` carries. */
interface SummaryTotals {
  ans: number;
  ref: number;
  lost: number;
  ring: number;
  duration: number;
}

/**
 * The rows read against the service's own totals (the result's `summary`). `service` is
 * null when the result carried no summary entry: then there is nothing to compare and
 * `matches` is null. Recorded in every manifest of the run and in the run record.
 */
export interface Reconciliation {
  service: SummaryTotals | null;
  rows: SummaryTotals;
  matches: boolean | null;
  /** The totals that differ, by name (empty when they match). */
  differences: (keyof SummaryTotals)[];
}

const NAMES = ['ans', 'ref', 'lost', 'ring', 'duration'] as const;

/** Sums the five totals over rows as they stream by (every row read, dropped ones included). */
export class TotalsCounter {
  readonly totals: SummaryTotals = { ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 };

  add(row: ResultRow): void {
    const t = this.totals;
    t.ans += numberOf(row.ans);
    t.ref += numberOf(row.ref);
    t.lost += numberOf(row.lost);
    t.ring += numberOf(row.ring);
    t.duration += numberOf(row.duration);
  }
}

/**
 * Compares the sums over the rows with the service's summary (its entries summed). Counts
 * must be equal; ring and duration are sums of decimals, whose last digits depend on the
 * order of addition, so they match within 0.001 or a relative 1e-9, whichever is larger.
 */
export function reconcile(summary: readonly SummaryEntry[] | undefined, rows: SummaryTotals): Reconciliation {
  const rounded = { ...rows, ring: round(rows.ring), duration: round(rows.duration) };
  if (summary === undefined || summary.length === 0) {
    return { service: null, rows: rounded, matches: null, differences: [] };
  }
  const service: SummaryTotals = { ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 };
  for (const entry of summary) for (const n of NAMES) service[n] += numberOf(entry?.[n]);
  const differences = NAMES.filter((n) => {
    const [a, b] = [service[n], rows[n]];
    if (n === 'ring' || n === 'duration') return !(Math.abs(a - b) <= Math.max(0.001, 1e-9 * Math.abs(a)));
    return a !== b;
  });
  service.ring = round(service.ring);
  service.duration = round(service.duration);
  return { service, rows: rounded, matches: differences.length === 0, differences };
}

/** Sums as records show them: to a millionth, without the binary noise of long sums. */
function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** A total's value: a number or decimal text (the notes say numbers may arrive as strings); else 0. */
function numberOf(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : 0;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}
