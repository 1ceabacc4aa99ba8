import { CALENDAR_ERROR_CODES, CalendarError } from './errors';

const HOUR_MS = 3_600_000;
// Offsets reach +14:00 and -12:00, so a wall time read as UTC can be 14 hours from its
// instant: probes a day either side still straddle the change (12 hours did not for
// Pacific/Chatham at +13:45).
const PROBE_MS = 24 * HOUR_MS;

/**
 * Converts wall-clock times of one IANA time zone to instants.
 *
 * Wall times are given as "local milliseconds": the time read as if it were UTC.
 * The zone's offsets before and after each local hour are cached, so a row costs a map
 * lookup except in the hour of a DST change.
 *
 * Disambiguation (the same as Temporal's `compatible`):
 * - a time that occurs twice (fall-back, e.g. 01:30 in London on 2026-10-25) maps to the
 *   EARLIER instant, i.e. the offset in force before the change (01:30 BST = 00:30Z);
 * - a time that does not exist (spring-forward, e.g. 01:30 in London on 2026-03-29) is
 *   shifted FORWARD by the length of the gap, i.e. read with the offset before the
 *   change (01:30 GMT = 01:30Z, which is 02:30 BST).
 */
export class ZoneConverter {
  readonly timeZoneId: string;
  readonly #format: Intl.DateTimeFormat;
  /** local hour -> [offset a day before, offset a day after] in ms. */
  readonly #hourOffsets = new Map<number, readonly [number, number]>();

  constructor(timeZoneId: string) {
    try {
      this.#format = new Intl.DateTimeFormat('en-US', {
        timeZone: timeZoneId,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch (cause) {
      throw new CalendarError(CALENDAR_ERROR_CODES.timeZoneInvalid, `Unknown time zone: ${timeZoneId}`, {
        cause,
      });
    }
    this.timeZoneId = timeZoneId;
  }

  /** Offset (local minus UTC, ms) in force at an instant. */
  offsetAt(utcMs: number): number {
    const seconds = Math.floor(utcMs / 1000) * 1000;
    const parts = this.#format.formatToParts(new Date(seconds));
    let y = 0;
    let mo = 0;
    let d = 0;
    let h = 0;
    let mi = 0;
    let s = 0;
    for (const p of parts) {
      if (p.type === 'year') y = Number(p.value);
      else if (p.type === 'month') mo = Number(p.value);
      else if (p.type === 'day') d = Number(p.value);
      else if (p.type === 'hour') h = Number(p.value);
      else if (p.type === 'minute') mi = Number(p.value);
      else if (p.type === 'second') s = Number(p.value);
    }
    return Date.UTC(y, mo - 1, d, h, mi, s) - seconds;
  }

  /** The instant (UTC ms) of a wall-clock time in this zone. */
  toUtc(localMs: number): number {
    const hour = Math.floor(localMs / HOUR_MS);
    let offsets = this.#hourOffsets.get(hour);
    if (offsets === undefined) {
      const at = hour * HOUR_MS;
      // Offsets well before and after cover any single change within the hour.
      offsets = [this.offsetAt(at - PROBE_MS), this.offsetAt(at + PROBE_MS)];
      this.#hourOffsets.set(hour, offsets);
    }
    const [before, after] = offsets;
    if (before === after) return localMs - before;
    const earlier = localMs - before;
    if (this.offsetAt(earlier) === before) return earlier;
    const later = localMs - after;
    if (this.offsetAt(later) === after) return later;
    // In the gap: read with the offset before the change, which shifts it forward.
    return earlier;
  }

  /** The instant a local calendar date (`YYYY-MM-DD`) starts: its midnight, or the end of a gap over it. */
  startOfDay(date: string): number {
    const localMs = parseLocalTime(`${date}T00:00:00`);
    if (localMs === undefined) {
      throw new CalendarError(CALENDAR_ERROR_CODES.timeZoneInvalid, `Not a calendar date: ${date}`);
    }
    return this.toUtc(localMs);
  }

  /** The local wall time of an instant with the offset then in force: `2026-03-29T01:00:00+03:00`. */
  formatWithOffset(utcMs: number): string {
    const offset = this.offsetAt(utcMs);
    const local = new Date(Math.floor(utcMs / 1000) * 1000 + offset).toISOString().slice(0, 19);
    const sign = offset < 0 ? '-' : '+';
    const minutes = Math.abs(offset) / 60_000;
    return `${local}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  }
}

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?$/;

let hourPrefix = '';
let hourBase = 0;

function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1000;
}

/**
 * Parses an offset-less ISO 8601 date-time to local milliseconds (sub-millisecond digits
 * are truncated). Returns undefined when the text is not such a time or names an
 * impossible date.
 */
export function parseLocalTime(text: string): number | undefined {
  // Rows come in time order: most share the previous row's "YYYY-MM-DDTHH:" prefix,
  // validated once; only minutes, seconds and fraction are read here.
  if (hourPrefix !== '' && text.length >= 19 && text.length <= 29 && text.startsWith(hourPrefix)) {
    const mi = digit(text, 14) * 10 + digit(text, 15);
    const sec = digit(text, 17) * 10 + digit(text, 18);
    if (text.charCodeAt(16) === 58 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59) {
      if (text.length === 19) return hourBase + mi * 60_000 + sec * 1000;
      if (text.charCodeAt(19) === 46 && text.length >= 21) {
        let ms = 0;
        let ok = true;
        for (let i = 20; i < text.length; i++) {
          const d = digit(text, i);
          if (d < 0) ok = false;
          else if (i < 23) ms = ms * 10 + d;
        }
        if (ok) {
          for (let i = Math.min(text.length, 23); i < 23; i++) ms *= 10;
          return hourBase + mi * 60_000 + sec * 1000 + ms;
        }
      }
    }
  }
  const ms = parseLocalTimeSlow(text);
  if (ms !== undefined && text.length >= 16 && text.charCodeAt(10) === 84) {
    hourPrefix = text.slice(0, 14);
    hourBase = ms - (((ms % 3_600_000) + 3_600_000) % 3_600_000);
  }
  return ms;
}

function parseLocalTimeSlow(text: string): number | undefined {
  const m = LOCAL_TIME.exec(text);
  if (m === null) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const frac = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s, frac);
  // Date.UTC rolls 2026-02-30 over to March: reject instead of silently moving the call.
  if (new Date(ms).getUTCDate() !== d) return undefined;
  return ms;
}

/** The calendar date (YYYY-MM-DD) of local milliseconds. */
export function localDate(localMs: number): string {
  return new Date(localMs).toISOString().slice(0, 10);
}

/** True for a zone name the runtime's Intl knows (IANA names and `UTC`). */
export function isIanaZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return name.length > 0;
  } catch {
    return false;
  }
}
