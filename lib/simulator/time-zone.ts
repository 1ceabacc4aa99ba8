/**
 * IANA time-zone arithmetic with Intl only (no tz library): offsets at an instant,
 * local wall-clock parts, and the instant of a local wall-clock time.
 */

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();
const abbreviationFormatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, f);
  }
  return f;
}

/** Offset of the zone from UTC at the instant, in minutes (east positive). */
export function offsetMinutesAt(timeZone: string, epochMs: number): number {
  const parts = offsetFormatter(timeZone).formatToParts(new Date(epochMs));
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT([+-])(\d{2}):?(\d{2})?$/.exec(name);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/** Local wall-clock fields of an instant (month 1-12, weekday 1 = Monday ... 7 = Sunday). */
interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  weekday: number;
}

/** The local wall-clock fields of the instant in the zone. */
export function localPartsAt(timeZone: string, epochMs: number): LocalParts {
  const local = new Date(epochMs + offsetMinutesAt(timeZone, epochMs) * 60_000);
  const dow = local.getUTCDay();
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    millisecond: local.getUTCMilliseconds(),
    weekday: dow === 0 ? 7 : dow,
  };
}

/** Long enough to step over any one transition, short enough never to span two. */
const PROBE_MS = 86_400_000;

/**
 * The instant of a local wall-clock time. Month may run past 12 and day past the month
 * (Date.UTC normalises), which keeps period arithmetic simple. Resolved like Temporal's
 * `disambiguation: 'compatible'`: a time that occurs twice (fall-back) is the earlier
 * instant; a time that does not exist (spring-forward gap) is shifted forward by the
 * length of the gap, i.e. read with the offset in force before the change (00:00 on
 * 2026-03-29 in Asia/Beirut is 01:00 +03:00).
 */
export function zonedTimeToEpoch(
  timeZone: string,
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = offsetMinutesAt(timeZone, wall - PROBE_MS) * 60_000;
  const after = offsetMinutesAt(timeZone, wall + PROBE_MS) * 60_000;
  // Each offset in force around the wall time gives a candidate; it is real only if that
  // offset is the one in force at the candidate instant.
  const earlier = Math.min(wall - before, wall - after);
  const later = Math.max(wall - before, wall - after);
  for (const candidate of [earlier, later]) {
    if (offsetMinutesAt(timeZone, candidate) * 60_000 === wall - candidate) return candidate;
  }
  // In the gap: the offset before the change moves the time forward by the gap's length.
  return wall - before;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `+01:00` style offset. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Local date-time without offset, seconds precision: `2026-03-29T09:15:02`. */
function formatLocal(timeZone: string, epochMs: number): string {
  const p = localPartsAt(timeZone, epochMs);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** Local date-time with the zone's offset at that instant: `2026-03-29T09:15:02+01:00`. */
export function formatWithOffset(timeZone: string, epochMs: number): string {
  return `${formatLocal(timeZone, epochMs)}${formatOffset(offsetMinutesAt(timeZone, epochMs))}`;
}

/** Short zone name at the instant (e.g. GMT, BST), falling back to the offset. */
export function abbreviationAt(timeZone: string, epochMs: number): string {
  let f = abbreviationFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'short' });
    abbreviationFormatters.set(timeZone, f);
  }
  return f.formatToParts(new Date(epochMs)).find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
}

/** Days since 1970-01-01 of a local calendar date. */
export function epochDay(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / 86_400_000);
}

/** Calendar date of an epoch day. */
export function dateOfEpochDay(dayNumber: number): {
  year: number;
  month: number;
  day: number;
  weekday: number;
} {
  const d = new Date(dayNumber * 86_400_000);
  const dow = d.getUTCDay();
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: dow === 0 ? 7 : dow,
  };
}

/** The local epoch day that contains the instant. */
export function localEpochDayAt(timeZone: string, epochMs: number): number {
  const p = localPartsAt(timeZone, epochMs);
  return epochDay(p.year, p.month, p.day);
}

/** Instant of local midnight starting the epoch day. */
export function startOfLocalDay(timeZone: string, dayNumber: number): number {
  const d = dateOfEpochDay(dayNumber);
  return zonedTimeToEpoch(timeZone, d.year, d.month, d.day);
}

/** UTC ISO 8601 with 7 fractional digits (the envelope's timestamp format). */
export function formatUtcTimestamp(epochMs: number, subMillisecond = 0): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 23)}${pad(Math.max(0, Math.min(9999, Math.floor(subMillisecond))), 4)}Z`;
}
