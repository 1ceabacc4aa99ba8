import { ExportConfigError } from './errors';
import { ZoneConverter } from './time-zone';

/** A report window as the service takes it: ISO 8601 instants with the zone's offsets. */
export interface ReportWindow {
  /** Inclusive, local midnight of the first day, e.g. `2026-03-29T00:00:00+00:00`. */
  start: string;
  /** Exclusive, local midnight after the last day. */
  end: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Parses `YYYY-MM-DD` to the UTC milliseconds of that calendar date; names the setting when invalid. */
export function parseCalendarDate(setting: string, text: string): number {
  const m = DATE.exec(text);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new ExportConfigError(`${setting} must be a calendar date YYYY-MM-DD, got '${text}'`);
  }
  return ms;
}

function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMs) / 60_000;
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${sign}${hh}:${mm}`;
}

/** Local midnight of a calendar date in a zone, written with that instant's offset. */
function localMidnight(zone: ZoneConverter, dateMs: number): string {
  const utc = zone.toUtc(dateMs);
  const offset = zone.offsetAt(utc);
  return `${new Date(dateMs).toISOString().slice(0, 10)}T00:00:00${formatOffset(offset)}`;
}

/**
 * The window covering the local calendar days `from` to `to` (both inclusive) in an IANA
 * zone: from local midnight of `from` to local midnight after `to`, each with the offset in
 * force at that instant (so a window across a DST change carries two offsets).
 */
export function windowForDates(from: string, to: string, timeZoneId: string): ReportWindow {
  const fromMs = parseCalendarDate('from', from);
  const toMs = parseCalendarDate('to', to);
  if (toMs < fromMs) throw new ExportConfigError(`to (${to}) must not be before from (${from})`);
  const zone = new ZoneConverter(timeZoneId);
  return { start: localMidnight(zone, fromMs), end: localMidnight(zone, toMs + DAY_MS) };
}

/** A calendar date moved by whole days: `shiftDate('2026-03-01', -1)` is `2026-02-28`. */
export function shiftDate(date: string, days: number): string {
  return new Date(parseCalendarDate('date', date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The local calendar date (`YYYY-MM-DD`) of an instant in an IANA zone, shifted by whole days. */
export function localDate(instantMs: number, timeZoneId: string, dayShift = 0): string {
  const zone = new ZoneConverter(timeZoneId);
  const local = instantMs + zone.offsetAt(instantMs);
  return new Date(local + dayShift * DAY_MS).toISOString().slice(0, 10);
}

/** An export window as `exportReportResult` takes it: ISO 8601 instants with offsets, `to` exclusive. */
export interface ExportWindow {
  from: string;
  to: string;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const HOUR_MS = 3_600_000;

/** Parses an ISO 8601 instant that carries its offset; names the setting when invalid. */
function parseInstant(setting: string, text: string): number {
  // Without an offset Date.parse would read the machine's zone: refuse instead.
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new ExportConfigError(`${setting} must be an ISO 8601 instant with an offset, got '${text}'`);
  }
  return ms;
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
export function datesOfWindow(window: ExportWindow, timeZoneId: string): string[] {
  const from = parseInstant('window.from', window.from);
  const to = parseInstant('window.to', window.to);
  if (to <= from) {
    throw new ExportConfigError(`window.to (${window.to}) must be after window.from (${window.from})`);
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
