import { dayWindow } from '../calendar';
import { RowLimitError } from './errors';
import type { PendingWindow } from './job-cursor';

/** What the service said of the result that reached its row limit. */
interface RowLimitHead {
  totalCount: number;
  rowLimit: number;
}

/**
 * Splits a window whose result reached the service's row limit (or that could not be
 * exported before the task's deadline). A window of several local days splits into its
 * single days (each owns its whole `dt` partition). A single day splits in time into
 * enough pieces for each to stay under 90% of the limit (at least two), kept together as
 * pieces of that day and exported as one; nothing is cut below `minSplitMinutes` (then
 * the day cannot be exported whole: RowLimitError).
 *
 * @param dates the local dates the window covers, ascending, in the configured zone
 */
export function splitWindow(
  window: PendingWindow,
  dates: readonly string[],
  timeZone: string,
  minSplitMinutes: number,
  head?: RowLimitHead,
): PendingWindow[] {
  if (window.day === undefined && dates.length > 1) {
    return dates.map((date) => {
      const w = dayWindow(date, timeZone);
      return { from: w.from, to: w.to };
    });
  }
  const day = window.day ?? (dates[0] as string);
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const minMs = minSplitMinutes * 60_000;
  const wanted =
    head === undefined || head.rowLimit <= 0
      ? 2
      : Math.max(2, Math.ceil(head.totalCount / (0.9 * head.rowLimit)));
  const pieces = Math.min(wanted, Math.floor((to - from) / minMs));
  if (pieces < 2) {
    throw new RowLimitError(
      `The result for ${window.from} .. ${window.to} (local day ${day}) cannot be split below the minimum of ${minSplitMinutes} minutes; add a filter or lower MIN_SPLIT_MINUTES`,
    );
  }
  // Piece boundaries on whole minutes; the last piece ends exactly where the window does.
  const step = Math.floor((to - from) / pieces / 60_000) * 60_000;
  const out: PendingWindow[] = [];
  for (let i = 0; i < pieces; i++) {
    const start = i === 0 ? window.from : instant(from + i * step);
    const end = i === pieces - 1 ? window.to : instant(from + (i + 1) * step);
    out.push({ from: start, to: end, day });
  }
  return out;
}

function instant(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
