import { CALENDAR_ERROR_CODES, CalendarError } from './errors';
import { ZoneConverter } from './time-zone';

/**
 * A report window, the one shape the export core, its callers and its manifests use:
 * ISO 8601 instants with offsets, `from` inclusive, `to` exclusive. Windows made here
 * run from a local midnight to a local midnight, each written with the offset in force
 * at that instant (a window across a DST change carries two offsets).
 */
export interface ReportWindow {
  /** Inclusive, e.g. `2026-03-29T00:00:00+00:00`. */
  from: string;
  /** Exclusive, e.g. `2026-03-30T00:00:00+01:00`. */
  to: string;
}

/** A malformed or backward date, instant or window: a configuration error naming the setting. */
const invalid = (message: string) => new CalendarError(CALENDAR_ERROR_CODES.dateInvalid, message);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Parses `YYYY-MM-DD` to the UTC milliseconds of that calendar date; names the setting when invalid. */
export function parseCalendarDate(setting: string, text: string): number {
  const m = DATE.exec(text);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw invalid(`${setting} must be a calendar date YYYY-MM-DD, got '${text}'`);
  }
  return ms;
}

/** Parses an ISO 8601 instant that carries its offset; names the setting when invalid. */
export function parseInstant(setting: string, text: string): number {
  // Without an offset Date.parse would read the machine's zone: refuse instead.
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw invalid(`${setting} must be an ISO 8601 instant with an offset, got '${text}'`);
  }
  return ms;
}

/**
 * The window covering the local calendar days `from` to `to` (both inclusive) in an IANA
 * zone: from the start of `from` to the start of the day after `to`.
 *
 * @example
 * windowForDates('2026-03-29', '2026-03-30', 'Europe/London');
 * // { from: '2026-03-29T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' }
 */
export function windowForDates(from: string, to: string, timeZoneId: string): ReportWindow {
  const fromMs = parseCalendarDate('from', from);
  const toMs = parseCalendarDate('to', to);
  if (toMs < fromMs) throw invalid(`to (${to}) must not be before from (${from})`);
  const zone = new ZoneConverter(timeZoneId);
  // The start of a day is its midnight, or the end of a gap over it: America/Santiago
  // skips 2026-09-06T00:00 (23:59:59-04:00 -> 01:00-03:00), so that day starts at
  // 2026-09-06T01:00:00-03:00, which still ends the day before exactly.
  const startOf = (dateMs: number) =>
    zone.formatWithOffset(zone.startOfDay(new Date(dateMs).toISOString().slice(0, 10)));
  return { from: startOf(fromMs), to: startOf(toMs + DAY_MS) };
}

/** One local day as a window: its start to the next day's start (23, 24 or 25 hours). */
export function dayWindow(date: string, timeZoneId: string): ReportWindow {
  return windowForDates(date, date, timeZoneId);
}

/** A calendar date moved by whole days: `shiftDate('2026-03-01', -1)` is `2026-02-28`. */
export function shiftDate(date: string, days: number): string {
  return new Date(parseCalendarDate('date', date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Every calendar date from `from` to `to`, both inclusive, ascending. */
export function datesInRange(from: string, to: string): string[] {
  const fromMs = parseCalendarDate('from', from);
  const toMs = parseCalendarDate('to', to);
  if (toMs < fromMs) throw invalid(`to (${to}) must not be before from (${from})`);
  const dates: string[] = [];
  for (let ms = fromMs; ms <= toMs; ms += DAY_MS) dates.push(new Date(ms).toISOString().slice(0, 10));
  return dates;
}

/** The local calendar date (`YYYY-MM-DD`) on which an instant (UTC ms) falls in an IANA zone. */
export function dateInZone(instantMs: number, timeZoneId: string): string {
  const zone = new ZoneConverter(timeZoneId);
  return new Date(instantMs + zone.offsetAt(instantMs)).toISOString().slice(0, 10);
}

/**
 * The local date before the one on which an instant falls: "yesterday" of a scheduled
 * run, from the scheduled time (never from the clock, so a late or retried run exports
 * the same day).
 *
 * @example
 * dayBefore('2026-03-30T00:30:00Z', 'Europe/London'); // '2026-03-29' (01:30 BST on the 30th)
 */
export function dayBefore(instant: string | Date, timeZoneId: string): string {
  const ms = typeof instant === 'string' ? parseInstant('instant', instant) : instant.getTime();
  if (Number.isNaN(ms)) throw invalid('instant must be a valid date');
  return shiftDate(dateInZone(ms, timeZoneId), -1);
}

/**
 * Every local calendar date (`YYYY-MM-DD`, ascending) in an IANA zone on which some
 * instant of the window [from, to) falls. For a window made by `windowForDates(a, b)` this
 * is exactly a..b. A date a zone skipped (Pacific/Apia, 2011-12-30) is not listed.
 *
 * @example
 * datesOfWindow({ from: '2026-03-29T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' }, 'Europe/London');
 * // ['2026-03-29', '2026-03-30']
 */
export function datesOfWindow(window: ReportWindow, timeZoneId: string): string[] {
  const from = parseInstant('window.from', window.from);
  const to = parseInstant('window.to', window.to);
  if (to <= from) {
    throw invalid(`window.to (${window.to}) must be after window.from (${window.from})`);
  }
  const zone = new ZoneConverter(timeZoneId);
  const dateAt = (utcMs: number) => new Date(utcMs + zone.offsetAt(utcMs)).toISOString().slice(0, 10);
  // Every date inside the window lasts hours, so hourly samples plus both ends hit each
  // one; a Set because a fall-back across midnight revisits the date before.
  const dates = new Set<string>([dateAt(to - 1)]);
  for (let t = from; t < to; t += HOUR_MS) dates.add(dateAt(t));
  return [...dates].sort();
}

/** Validates explicit window dates (`YYYY-MM-DD`); returns them sorted, without repeats. */
export function checkWindowDates(dates: readonly string[]): string[] {
  for (const date of dates) parseCalendarDate('windowDates', date);
  return [...new Set(dates)].sort();
}

/**
 * The window as the client's `requestReport({ period })` takes it (`{ start, end }`): the
 * one place the two shapes meet. Written structurally, so the calendar imports no client.
 */
export function toReportPeriod(window: ReportWindow): { start: string; end: string } {
  return { start: window.from, end: window.to };
}
