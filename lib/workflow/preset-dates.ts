import { dateInZone, dayWindow, shiftDate } from '../calendar';
import type { PresetName } from '../spec';
import { InvalidInputError } from './errors';

/**
 * A current period (Today, ThisWeek, ...) ends this long before the request, as the
 * service's notes say ("about 15 minutes before the request time").
 */
export const CURRENT_PERIOD_LAG_MS = 15 * 60_000;

type PeriodUnit = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** Each preset: its period and which one (0 the current, -1 the previous). */
const PRESET_PERIODS: Record<PresetName, readonly [PeriodUnit, 0 | -1]> = {
  Today: ['day', 0],
  Yesterday: ['day', -1],
  ThisWeek: ['week', 0],
  LastWeek: ['week', -1],
  ThisMonth: ['month', 0],
  LastMonth: ['month', -1],
  ThisQuarter: ['quarter', 0],
  LastQuarter: ['quarter', -1],
  ThisYear: ['year', 0],
  LastYear: ['year', -1],
};

/**
 * The local dates a preset covers at an instant, in the report's zone, as the service
 * resolves presets (lib/simulator/reporting/presets.ts; a test compares the two): periods
 * start at their calendar start (weeks on Monday); a previous period is whole; a current
 * one ends {@link CURRENT_PERIOD_LAG_MS} before `now`, so its last date is the one that
 * instant falls on. The workflow then exports those dates day by day like any window
 * (a summary report needs its days), its last one partial when it is today.
 *
 * @throws InvalidInputError when the current period holds no time yet (Today in the first
 * 15 minutes of the day): the service would answer an empty window.
 */
export function presetDates(name: PresetName, timeZone: string, now: Date): { from: string; to: string } {
  const [unit, offset] = PRESET_PERIODS[name];
  const today = dateInZone(now.getTime(), timeZone);
  const from = periodStart(unit, today, offset);
  if (offset === -1) return { from, to: shiftDate(periodStart(unit, today, 0), -1) };
  const lagged = Math.floor((now.getTime() - CURRENT_PERIOD_LAG_MS) / 1000) * 1000;
  const startMs = Date.parse(dayWindow(from, timeZone).from);
  if (lagged <= startMs) {
    throw new InvalidInputError(
      `preset ${name} covers no time yet at ${now.toISOString()} (a current period ends ${CURRENT_PERIOD_LAG_MS / 60_000} minutes before the request): run it later, or give the dates`,
    );
  }
  return { from, to: dateInZone(lagged - 1, timeZone) };
}

/** The first date of the period `index` periods from the one holding `today`. */
function periodStart(unit: PeriodUnit, today: string, index: number): string {
  const [y = 0, m = 1] = today.split('-').map(Number);
  switch (unit) {
    case 'day':
      return shiftDate(today, index);
    case 'week': {
      // Days since Monday (getUTCDay: Sunday 0).
      const sinceMonday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
      return shiftDate(today, 7 * index - sinceMonday);
    }
    case 'month':
      return calendarDate(y, m - 1 + index);
    case 'quarter':
      return calendarDate(y, Math.floor((m - 1) / 3) * 3 + 3 * index);
    case 'year':
      return calendarDate(y + index, 0);
  }
}

/** The first day of a month given by year and (possibly out-of-range) month index. */
function calendarDate(year: number, monthIndex: number): string {
  return new Date(Date.UTC(year, monthIndex, 1)).toISOString().slice(0, 10);
}
