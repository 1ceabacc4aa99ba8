import { dayWindow } from '../calendar';
import type { PartialDay } from './run-record';

/** A report run: its window and when it was requested (ISO 8601; unknown when empty). */
interface RequestedWindow {
  from: string;
  to: string;
  requestedAt?: string;
}

/**
 * The published days that were read before they ended. A day is partial when a report
 * run covering it reached past the instant it was requested (a window that includes
 * today, or a later day): the service had the day's calls up to then only. Its cut-off is
 * the earliest such instant.
 */
export function partialDaysOf(
  dates: readonly string[],
  runs: readonly RequestedWindow[],
  timeZone: string,
): PartialDay[] {
  const partial: PartialDay[] = [];
  for (const dt of dates) {
    const day = dayWindow(dt, timeZone);
    const [dayStart, dayEnd] = [Date.parse(day.from), Date.parse(day.to)];
    let cutOff: number | undefined;
    for (const run of runs) {
      const at =
        run.requestedAt === undefined || run.requestedAt === '' ? Number.NaN : Date.parse(run.requestedAt);
      const [from, to] = [Date.parse(run.from), Date.parse(run.to)];
      const covers = from < dayEnd && to > dayStart;
      if (covers && at < Math.min(dayEnd, to) && (cutOff === undefined || at < cutOff)) cutOff = at;
    }
    if (cutOff !== undefined) partial.push({ dt, cutOff: new Date(cutOff).toISOString() });
  }
  return partial;
}
