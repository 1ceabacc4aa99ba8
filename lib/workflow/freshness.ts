import { dayWindow, ZoneConverter } from '../calendar';
import { type FreshnessGoals, type IntradaySchedule, intradayMinute } from './tenant-registry';

/**
 * Freshness (issue 30): how old a report's data is, and whether that meets its goals, judged
 * per day partition, never by when a run ran (dbt's `source freshness` judges a source by its
 * newest row; a judgement by run time lets a backfill of an old day make stale data look fresh).
 *
 * - **Data time** of a report: the newest instant its published day partitions hold. A settled
 *   day (read after it ended in the tenant's zone) holds everything up to its end, the next
 *   local midnight (23, 24 or 25 hours after its start); a provisional day (read before it
 *   ended) holds up to the instant it was read as of (its cut-off). A backfill of an old day
 *   gives that old day's end. Lag = now - data time.
 * - **Goals** (`warn_after`, `error_after`): the tenant's explicit `freshness`, whenever set.
 *   Otherwise from its schedule. Nightly (at local `hour`, exporting yesterday): just before
 *   tonight's run, yesterday's end is 24 h + `hour` old; with 2 h for the run to finish,
 *   warn after 24 h + `hour` + 2 h, error a further 24 h later (a missed night). With intraday
 *   refreshes every `everyMinutes`, while local time is in [`fromHour` + interval, `toHour`)
 *   (from the second refresh of the day on: the first one must have had time to land): warn
 *   after 2 x interval + 15 min (one refresh missed), error after 4 x interval + 30 min (three
 *   missed). Outside those hours the nightly goals apply.
 * - **Verdict**: `ok`; `warn` when the lag is past `warn_after`; `error` when it is past
 *   `error_after`, or when no day is published at all. "Past" is strictly greater: a lag of
 *   exactly the goal meets it.
 *
 * The goals are durations, as dbt's are: a DST night moves the nightly run by an hour
 * against the elapsed time, which the 2 h of the nightly goal absorbs (1 h of it is left on
 * the night after a 25-hour day).
 */

export const FRESHNESS_VERDICTS = ['ok', 'warn', 'error'] as const;
export type FreshnessVerdict = (typeof FRESHNESS_VERDICTS)[number];

/**
 * What a tenant's schedule says of its data: a registry entry (TenantEntry has every member),
 * or a single-tenant deployment's settings (its TIME_ZONE and its schedule's hour).
 */
export interface FreshnessSchedule {
  /** The tenant's id: its refreshes start at its own minute of the interval (intradayMinute). */
  id?: string | undefined;
  /** IANA zone of its days. */
  timeZone: string;
  /** Local hour (0..23) of its nightly run. */
  hour: number;
  intraday?: IntradaySchedule | undefined;
  /** Explicit goals: they win over the schedule's. */
  freshness?: FreshnessGoals | undefined;
}

/**
 * Goals as a judgement applied them, and why: `explicit` (the entry's `freshness`), `nightly`
 * (from its nightly hour), `intraday` (inside its refresh hours).
 */
export interface AppliedGoals extends FreshnessGoals {
  basis: 'explicit' | 'nightly' | 'intraday';
}

/** Time a nightly run has to finish after its hour before its tenant's data counts as late. */
export const NIGHTLY_GRACE_MINUTES = 120;

/**
 * The longest an execution runs (the state machine's timeout, lib/infra's ExportWorkflow
 * default): a run record, filed under the UTC date its execution started, holds no data newer
 * than that much after its start.
 */
export const LONGEST_EXECUTION_MS = 12 * 3_600_000;

const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;

/** The nightly goals of a tenant whose run is at local `hour`. */
export function nightlyGoals(hour: number): FreshnessGoals {
  const warnAfterMinutes = DAY_MINUTES + hour * 60 + NIGHTLY_GRACE_MINUTES;
  return { warnAfterMinutes, errorAfterMinutes: warnAfterMinutes + DAY_MINUTES };
}

/** The goals inside a tenant's intraday hours: one refresh missed warns, three are an error. */
export function intradayGoals(everyMinutes: number): FreshnessGoals {
  return { warnAfterMinutes: 2 * everyMinutes + 15, errorAfterMinutes: 4 * everyMinutes + 30 };
}

/**
 * Minutes after a refresh's scheduled start by which its data has landed: Scheduler's flexible
 * window (a fifth of the interval) and the run itself (RUN_MINUTES).
 */
const RUN_MINUTES = 15;

/**
 * Whether `now` is, in the zone's wall-clock time, inside the hours the intraday goals hold:
 * from when the day's first refresh has landed (fromHour, plus the tenant's own minute of the
 * interval when its id is known, plus the flexible window and the run: RUN_MINUTES) up to toHour.
 * Before it, the day's data is still the night's, judged by the nightly goals.
 */
export function insideIntradayHours(
  intraday: IntradaySchedule,
  timeZone: string,
  now: Date,
  id?: string,
): boolean {
  const at = now.getTime();
  const local = at + new ZoneConverter(timeZone).offsetAt(at);
  const minute = Math.floor((((local % 86_400_000) + 86_400_000) % 86_400_000) / MINUTE_MS);
  const every = intraday.everyMinutes;
  const offset = id === undefined ? every - 1 : intradayMinute(id, every);
  const landed = intraday.fromHour * 60 + offset + Math.floor(every / 5) + RUN_MINUTES;
  return minute >= landed && minute < intraday.toHour * 60;
}

/** The goals that apply to a schedule's data at `now`. */
export function goalsAt(schedule: FreshnessSchedule, now: Date): AppliedGoals {
  if (schedule.freshness !== undefined) return { ...schedule.freshness, basis: 'explicit' };
  if (
    schedule.intraday !== undefined &&
    insideIntradayHours(schedule.intraday, schedule.timeZone, now, schedule.id)
  ) {
    return { ...intradayGoals(schedule.intraday.everyMinutes), basis: 'intraday' };
  }
  return { ...nightlyGoals(schedule.hour), basis: 'nightly' };
}

/** The longest `error_after` a schedule's goals take at any time of day (minutes). */
export function longestErrorAfterMinutes(schedule: FreshnessSchedule): number {
  if (schedule.freshness !== undefined) return schedule.freshness.errorAfterMinutes;
  const nightly = nightlyGoals(schedule.hour).errorAfterMinutes;
  if (schedule.intraday === undefined) return nightly;
  return Math.max(nightly, intradayGoals(schedule.intraday.everyMinutes).errorAfterMinutes);
}

/**
 * The UTC dates of run records (`runs/.../dt=<UTC date>/`) a judgement at `now` reads: from
 * the date of now - the longest `error_after` - {@link LONGEST_EXECUTION_MS} to today. An
 * older record holds only data past `error_after` (its data is at most 12 h newer than its
 * start), so reading it could not lift a verdict off `error`. Nightly at hour 4: 54 h + 12 h,
 * 3 or 4 dates; the longest goal an entry may set (31 days): 32 or 33.
 */
export function recordDatesToRead(schedule: FreshnessSchedule, now: Date): { from: string; to: string } {
  const reach = longestErrorAfterMinutes(schedule) * MINUTE_MS + LONGEST_EXECUTION_MS;
  return {
    from: new Date(now.getTime() - reach).toISOString().slice(0, 10),
    to: now.toISOString().slice(0, 10),
  };
}

/** A day partition as the lake holds it: settled, or provisional as of its cut-off. */
export interface DayPartition {
  /** The local date (YYYY-MM-DD). */
  dt: string;
  /** Provisional: the instant (ISO 8601) its data is as of. Absent: settled. */
  asOf?: string | undefined;
}

/** The newest instant a day partition holds (ms): its as-of, or the end of its day in the zone. */
export function dataInstantOf(day: DayPartition, timeZone: string): number {
  return day.asOf === undefined ? Date.parse(dayWindow(day.dt, timeZone).to) : Date.parse(day.asOf);
}

/** A report's freshness at one instant. */
export interface ReportFreshness {
  /** The newest day published settled; null: none. */
  newestSettledDay: string | null;
  /** The days after it published provisional, in date order, each with its as-of. */
  provisionalDays: { dt: string; asOf: string }[];
  /** The newest instant the published days hold (ISO 8601); null: no day published. */
  dataTime: string | null;
  /** Whole minutes from the data time to now (never below 0); null: no day published. */
  lagMinutes: number | null;
  verdict: FreshnessVerdict;
  goals: AppliedGoals;
}

/** The verdict of a lag (ms; null: no data) against goals. */
export function verdictOf(lagMs: number | null, goals: FreshnessGoals): FreshnessVerdict {
  if (lagMs === null || lagMs > goals.errorAfterMinutes * MINUTE_MS) return 'error';
  return lagMs > goals.warnAfterMinutes * MINUTE_MS ? 'warn' : 'ok';
}

/** The worst of verdicts (`ok` for none). */
export function worstVerdict(verdicts: Iterable<FreshnessVerdict>): FreshnessVerdict {
  let worst = 0;
  for (const v of verdicts) worst = Math.max(worst, FRESHNESS_VERDICTS.indexOf(v));
  return FRESHNESS_VERDICTS[worst] ?? 'ok';
}

/**
 * Judges one report from the day partitions the lake holds of it (each day once, as it was
 * last published): its newest settled day, the provisional days after it, its data time, and
 * the verdict at `now` against the schedule's goals.
 *
 * @example
 * judgeFreshness([{ dt: '2026-12-03' }], { timeZone: 'Europe/London', hour: 2 }, new Date('2026-12-04T12:00:00Z'));
 * // { newestSettledDay: '2026-12-03', dataTime: '2026-12-04T00:00:00.000Z', lagMinutes: 720, verdict: 'ok', ... }
 */
export function judgeFreshness(
  days: Iterable<DayPartition>,
  schedule: FreshnessSchedule,
  now: Date,
): ReportFreshness {
  let settled: string | null = null;
  const provisional: { dt: string; asOf: string }[] = [];
  let newest: number | null = null;
  for (const day of days) {
    if (day.asOf === undefined) {
      if (settled === null || day.dt > settled) settled = day.dt;
    } else provisional.push({ dt: day.dt, asOf: new Date(day.asOf).toISOString() });
    const at = dataInstantOf(day, schedule.timeZone);
    if (!Number.isNaN(at) && (newest === null || at > newest)) newest = at;
  }
  const lagMs = newest === null ? null : Math.max(0, now.getTime() - newest);
  const goals = goalsAt(schedule, now);
  return {
    newestSettledDay: settled,
    provisionalDays: provisional
      .filter((d) => settled === null || d.dt > settled)
      .sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0)),
    dataTime: newest === null ? null : new Date(newest).toISOString(),
    lagMinutes: lagMs === null ? null : Math.floor(lagMs / MINUTE_MS),
    verdict: verdictOf(lagMs, goals),
    goals,
  };
}
