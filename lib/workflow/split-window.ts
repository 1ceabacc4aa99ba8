import { shiftDate, windowForDates } from '../export/window';
import { RowLimitError } from './errors';
import type { PendingWindow } from './job-cursor';

/**
 * Splits a window whose result reached the service's row limit. A window of several local
 * days splits into two day-aligned halves (each still owns whole `dt` partitions); a
 * single day splits into two halves in time, kept together as pieces of that day; nothing
 * splits below `minSplitMinutes` (then the day cannot be exported whole: RowLimitError).
 *
 * @param dates the local dates the window covers, ascending (from the result's zone)
 */
export function splitWindow(
  window: PendingWindow,
  dates: readonly string[],
  timeZone: string,
  minSplitMinutes: number,
): PendingWindow[] {
  if (window.from === undefined || window.to === undefined) {
    throw new RowLimitError(
      'A preset result reached the row limit; run it as explicit dates (from/to) instead',
    );
  }
  if (window.day === undefined && dates.length > 1) {
    const firstHalfLast = dates[Math.floor(dates.length / 2) - 1] as string;
    const first = windowForDates(dates[0] as string, firstHalfLast, timeZone);
    const second = windowForDates(shiftDate(firstHalfLast, 1), dates[dates.length - 1] as string, timeZone);
    return [
      { from: first.from, to: first.to },
      { from: second.from, to: second.to },
    ];
  }
  const day = window.day ?? (dates[0] as string);
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const half = Math.floor((to - from) / 2 / 60_000) * 60_000;
  if (half < minSplitMinutes * 60_000) {
    throw new RowLimitError(
      `The result for ${window.from} .. ${window.to} (local day ${day}) still reaches the service's row limit at the minimum split of ${minSplitMinutes} minutes; add a filter or lower MIN_SPLIT_MINUTES`,
    );
  }
  const middle = new Date(from + half).toISOString().replace('.000Z', 'Z');
  return [
    { from: window.from, to: middle, day },
    { from: middle, to: window.to, day },
  ];
}
