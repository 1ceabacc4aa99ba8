import { labelSeed, mixSeed, Prng } from '../prng';
import { dateOfEpochDay, localEpochDayAt, offsetMinutesAt, startOfLocalDay } from '../time-zone';
import { type CallPopulation, createCallPopulation } from './call-population';

/**
 * Opaque integers of the rows (the spec does not give their meaning); the simulator's
 * own reading, documented in lib/simulator/README.md.
 */
export const CALL_TYPE = { external: 1, huntGroup: 2, internal: 3 } as const;
export const CALL_DIRECTION = { inbound: 1, outbound: 2, internal: 3 } as const;

/** Share of a weekday's volume on Saturday and Sunday. */
const WEEKEND_SHARE = { 6: 0.15, 7: 0.08 } as const;

export interface CallGeneratorOptions {
  seed: number;
  /** Calls on a full weekday (Monday to Friday); weekends get a small share. */
  rowsPerDay: number;
  /** IANA zone: days, business hours and the rows' `start` are local to it. */
  timeZone: string;
}

/** Totals of the emitted rows, i.e. the result's summary entry. */
export interface CallTally {
  rows: number;
  ans: number;
  ref: number;
  lost: number;
  ring: number;
  duration: number;
}

export function emptyTally(): CallTally {
  return { rows: 0, ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 };
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const DAY_MS = 86_400_000;

function lowerBound(times: Float64Array, value: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Deterministic call-centre traffic. Every day's calls depend only on (seed, local
 * date), and each call only on (seed, date, index), so any window yields the same
 * calls, and a day is produced without materialising the window.
 */
export class CallGenerator {
  readonly #options: CallGeneratorOptions;
  readonly #population: CallPopulation;
  readonly #rowRng = new Prng(0);

  constructor(options: CallGeneratorOptions) {
    this.#options = options;
    this.#population = createCallPopulation(options.seed);
  }

  /** Number of calls on a local day (epoch day number). */
  dayVolume(dayNumber: number): number {
    const { weekday } = dateOfEpochDay(dayNumber);
    const share = weekday === 6 || weekday === 7 ? WEEKEND_SHARE[weekday] : 1;
    return Math.round(this.#options.rowsPerDay * share);
  }

  /** Sorted call instants (ms, whole seconds) of a local day, business hours heavier. */
  dayTimes(dayNumber: number): Float64Array {
    const count = this.dayVolume(dayNumber);
    const dayStart = startOfLocalDay(this.#options.timeZone, dayNumber);
    const dayLengthSec = (startOfLocalDay(this.#options.timeZone, dayNumber + 1) - dayStart) / 1000;
    const rng = new Prng(mixSeed(this.#options.seed, dayNumber, labelSeed('times')));
    const times = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const r = rng.next();
      let hours: number;
      if (r < 0.72) {
        // Office hours with a late-morning peak: sum of two uniforms (triangular) over 08-18.
        hours = 8 + 5 * (rng.next() + rng.next());
      } else if (r < 0.94) {
        hours = 7 + 14 * rng.next();
      } else {
        hours = 24 * rng.next();
      }
      const sec = Math.min(dayLengthSec - 1, Math.floor((hours * 3600 * dayLengthSec) / 86_400));
      times[i] = dayStart + sec * 1000;
    }
    return times.sort();
  }

  /** Number of calls with start in [startMs, endMs). */
  countInWindow(startMs: number, endMs: number): number {
    let total = 0;
    this.#forEachDay(startMs, endMs, (day, full) => {
      if (full) {
        total += this.dayVolume(day);
      } else {
        const times = this.dayTimes(day);
        total += lowerBound(times, endMs) - lowerBound(times, startMs);
      }
    });
    return total;
  }

  /**
   * Rows with start in [startMs, endMs), sorted by start, at most `limit`, as JSON text
   * in batches of about `batchChars` characters (rows separated by commas, the batches
   * joined with a comma by the caller). `tally` accumulates the emitted rows.
   */
  *rowBatches(
    startMs: number,
    endMs: number,
    limit: number,
    tally: CallTally,
    batchChars = 65_536,
  ): Generator<string> {
    const days: number[] = [];
    this.#forEachDay(startMs, endMs, (day) => days.push(day));
    let batch = '';
    for (const day of days) {
      if (tally.rows >= limit) break;
      const times = this.dayTimes(day);
      const from = lowerBound(times, startMs);
      const to = lowerBound(times, endMs);
      const clock = this.#localClock(day);
      for (let i = from; i < to && tally.rows < limit; i++) {
        const row = this.#row(day, i, times[i] as number, clock, tally);
        batch = batch.length === 0 ? row : `${batch},${row}`;
        if (batch.length >= batchChars) {
          yield batch;
          batch = '';
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  #forEachDay(startMs: number, endMs: number, visit: (day: number, full: boolean) => void): void {
    if (!(endMs > startMs)) return;
    const tz = this.#options.timeZone;
    const last = localEpochDayAt(tz, endMs - 1);
    for (let day = localEpochDayAt(tz, startMs); day <= last; day++) {
      const dayStart = startOfLocalDay(tz, day);
      const dayEnd = startOfLocalDay(tz, day + 1);
      visit(day, startMs <= dayStart && dayEnd <= endMs);
    }
  }

  /** Formats instants of one local day as local wall time, handling a DST change inside the day. */
  #localClock(day: number): (epochMs: number) => string {
    const tz = this.#options.timeZone;
    const d = dateOfEpochDay(day);
    const prefix = `${d.year}-${TWO_DIGITS[d.month]}-${TWO_DIGITS[d.day]}T`;
    const dayStart = startOfLocalDay(tz, day);
    const dayEnd = startOfLocalDay(tz, day + 1);
    const before = offsetMinutesAt(tz, dayStart) * 60_000;
    const after = offsetMinutesAt(tz, dayEnd - 1) * 60_000;
    let change = dayEnd;
    if (before !== after) {
      let lo = dayStart;
      let hi = dayEnd - 1;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (offsetMinutesAt(tz, mid) * 60_000 === before) lo = mid;
        else hi = mid;
      }
      change = hi;
    }
    return (epochMs) => {
      const local = epochMs + (epochMs < change ? before : after);
      const tod = Math.floor((((local % DAY_MS) + DAY_MS) % DAY_MS) / 1000);
      return `${prefix}${TWO_DIGITS[Math.floor(tod / 3600)]}:${TWO_DIGITS[Math.floor(tod / 60) % 60]}:${TWO_DIGITS[tod % 60]}`;
    };
  }

  #row(day: number, index: number, epochMs: number, clock: (ms: number) => string, tally: CallTally): string {
    const rng = this.#rowRng;
    rng.reseed(mixSeed(this.#options.seed, day, index));
    const { agents, huntGroups, externals } = this.#population;
    const connId = rng.guid();
    let s = `{"connId":"${connId}","start":"${clock(epochMs)}"`;
    let callType: number;
    let callDir: number;
    let ans = 0;
    let ref = 0;
    let lost = 0;
    let ring: number;
    let duration = 0;
    let tail = '';
    const kind = rng.next();
    if (kind < 0.62) {
      const caller = rng.pick(externals);
      const group = rng.next() < 0.75 ? rng.pick(huntGroups) : undefined;
      const agent = agents[group ? rng.pick(group.members) : rng.int(agents.length)] ?? agents[0];
      const outcome = rng.next();
      ans = outcome < (group ? 0.78 : 0.85) ? 1 : 0;
      ref = !ans && outcome > 0.95 ? 1 : 0;
      lost = ans || ref ? 0 : 1;
      callType = group ? CALL_TYPE.huntGroup : CALL_TYPE.external;
      callDir = CALL_DIRECTION.inbound;
      ring = ref ? rng.int(6) : Math.min(180, Math.round(rng.logNormal(ans ? 8 : 22, 0.6)));
      if (ans) duration = Math.min(7200, Math.max(1, Math.round(rng.logNormal(150, 0.9))));
      // A lost hunt-group call reached nobody; a direct call names the user it rang.
      if (agent && (ans || !group)) s += `,"userName":${agent.nameJson},"userNum":"${agent.extension}"`;
      s += `,"cli":"${caller.number}"`;
      if (caller.nameJson) s += `,"cliName":${caller.nameJson}`;
      if (group) s += `,"hgNum":"${group.number}","hgName":${group.nameJson}`;
      if (ans && agent) tail = `,"calledUserNum":"${agent.extension}","calledUserName":${agent.nameJson}`;
    } else if (kind < 0.9) {
      const agent = rng.pick(agents);
      const callee = rng.pick(externals);
      ans = rng.next() < 0.7 ? 1 : 0;
      lost = ans ? 0 : 1;
      callType = CALL_TYPE.external;
      callDir = CALL_DIRECTION.outbound;
      ring = Math.min(120, Math.round(rng.logNormal(12, 0.5)));
      if (ans) duration = Math.min(7200, Math.max(1, Math.round(rng.logNormal(200, 0.8))));
      s += `,"userName":${agent.nameJson},"userNum":"${agent.extension}","cli":"${callee.number}"`;
      if (callee.nameJson) s += `,"cliName":${callee.nameJson}`;
      tail = `,"callUserName":${agent.nameJson},"callUserNum":"${agent.extension}"`;
    } else {
      const caller = rng.int(agents.length);
      const callee = (caller + 1 + rng.int(agents.length - 1)) % agents.length;
      const from = agents[caller] ?? (agents[0] as (typeof agents)[number]);
      const to = agents[callee] ?? from;
      ans = rng.next() < 0.85 ? 1 : 0;
      lost = ans ? 0 : 1;
      callType = CALL_TYPE.internal;
      callDir = CALL_DIRECTION.internal;
      ring = Math.min(60, Math.round(rng.logNormal(6, 0.5)));
      if (ans) duration = Math.min(3600, Math.max(1, Math.round(rng.logNormal(90, 0.8))));
      s += `,"userName":${from.nameJson},"userNum":"${from.extension}","cli":"${from.extension}","cliName":${from.nameJson}`;
      tail = ans ? `,"calledUserNum":"${to.extension}","calledUserName":${to.nameJson}` : '';
      tail += `,"callUserName":${from.nameJson},"callUserNum":"${from.extension}"`;
    }
    tally.rows++;
    tally.ans += ans;
    tally.ref += ref;
    tally.lost += lost;
    tally.ring += ring;
    tally.duration += duration;
    return `${s},"callType":${callType},"callDir":${callDir},"ans":${ans},"ref":${ref},"lost":${lost},"ring":${ring},"duration":${duration}${tail},"docId":"${rng.guid()}"}`;
  }
}
