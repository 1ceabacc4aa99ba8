import { setImmediate as nextTurn } from 'node:timers/promises';
import { labelSeed, mixSeed, Prng } from '../prng';
import { dateOfEpochDay, localEpochDayAt, offsetMinutesAt, startOfLocalDay } from '../time-zone';
import { type CallPopulation, createCallPopulation } from './call-population';
import { CallDraft, type CallTally, emptyTally } from './call-rows';
import type { ExternalNumbers } from './external-numbers';
import type { CallFilter } from './report-templates';
import { addToUser, sortedUsers, type UserTotals } from './user-totals';

export { CALL_DIRECTION, CALL_TYPE, type CallTally, emptyTally } from './call-rows';
export type { UserTotals } from './user-totals';

/** Share of a weekday's volume on Saturday and Sunday. */
const WEEKEND_SHARE = { 6: 0.15, 7: 0.08 } as const;

interface CallGeneratorOptions {
  seed: number;
  /** Calls on a full weekday (Monday to Friday); weekends get a small share. */
  rowsPerDay: number;
  /** IANA zone: days, business hours and the rows' `start` are local to it. */
  timeZone: string;
  /** The external parties' numbers in `cli` (default: the call population's, in E.164). */
  externalNumbers?: ExternalNumbers;
}

interface RowBatchOptions {
  /** About this many characters per batch (default 65,536). */
  batchChars?: number;
  /** Rows carry the detail members of `CallListWithDetails` (default false). */
  details?: boolean;
}

/** Calls looked at between two turns of the event loop (a sparse template emits few rows). */
export const CALLS_PER_SLICE = 4096;
/** Full-day counts of filtered templates kept, so polling clients do not recount a window. */
const DAY_COUNT_CACHE_SIZE = 4096;

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
  readonly #draft = new CallDraft();
  /** `${day}` -> calls of that whole day the filter keeps, per filter. */
  readonly #dayCounts = new WeakMap<CallFilter, Map<number, number>>();

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

  /** Number of calls with start in [startMs, endMs) that `filter` keeps (all when none). */
  countInWindow(startMs: number, endMs: number, filter?: CallFilter): number {
    const steps = this.#countSteps(startMs, endMs, filter);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return step.value;
  }

  /** {@link countInWindow} that lets other requests in between slices of work. */
  async countInWindowAsync(startMs: number, endMs: number, filter?: CallFilter): Promise<number> {
    const steps = this.#countSteps(startMs, endMs, filter);
    let step = steps.next();
    while (!step.done) {
      await nextTurn();
      step = steps.next();
    }
    return step.value;
  }

  /**
   * Rows with start in [startMs, endMs) that `filter` keeps, sorted by start, at most
   * `limit`, as JSON text in batches of about `batchChars` characters (rows separated by
   * commas, the batches joined with a comma by the caller). A batch also ends after
   * {@link CALLS_PER_SLICE} calls looked at, so it may be empty: the caller's cue to let
   * other work run. `tally` accumulates the emitted rows. With `details`, rows carry the
   * detail members of `CallListWithDetails`.
   */
  *rowBatches(
    startMs: number,
    endMs: number,
    limit: number,
    tally: CallTally,
    filter?: CallFilter,
    { batchChars = 65_536, details = false }: RowBatchOptions = {},
  ): Generator<string> {
    const days: number[] = [];
    this.#forEachDay(startMs, endMs, (day) => days.push(day));
    const rng = this.#rowRng;
    let batch = '';
    let looked = 0;
    for (const day of days) {
      if (tally.rows >= limit) break;
      const times = this.dayTimes(day);
      const from = lowerBound(times, startMs);
      const to = lowerBound(times, endMs);
      const clock = this.#localClock(day);
      for (let i = from; i < to && tally.rows < limit; i++) {
        const call = this.#callAt(day, i);
        if (filter === undefined || filter(call)) {
          const party = call.partyNumber;
          const numbers = this.#options.externalNumbers;
          if (party !== undefined && numbers !== undefined)
            call.writeExternalNumber(numbers.numberFor(day, i, party));
          const row = call.render(rng, clock(times[i] as number), tally, details);
          batch = batch.length === 0 ? row : `${batch},${row}`;
        }
        if (batch.length >= batchChars || ++looked >= CALLS_PER_SLICE) {
          yield batch;
          batch = '';
          looked = 0;
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * Totals per extension user (the one a call's row names in userName) of the calls with
   * start in [startMs, endMs) that `filter` keeps, in extension order: the same calls,
   * ring and duration as {@link rowBatches} writes, with no row limit. Works in slices.
   */
  async userTotalsAsync(startMs: number, endMs: number, filter?: CallFilter): Promise<UserTotals[]> {
    const steps = this.#userTotalSteps(startMs, endMs, filter);
    let step = steps.next();
    while (!step.done) {
      await nextTurn();
      step = steps.next();
    }
    return step.value;
  }

  *#userTotalSteps(
    startMs: number,
    endMs: number,
    filter: CallFilter | undefined,
  ): Generator<void, UserTotals[]> {
    const days: number[] = [];
    this.#forEachDay(startMs, endMs, (day) => days.push(day));
    const byUser = new Map<string, UserTotals>();
    let looked = 0;
    for (const day of days) {
      const times = this.dayTimes(day);
      const to = lowerBound(times, endMs);
      for (let i = lowerBound(times, startMs); i < to; i++) {
        const call = this.#callAt(day, i);
        const agent = call.userAgent;
        if (agent !== undefined && (filter === undefined || filter(call))) {
          const one = emptyTally();
          call.render(this.#rowRng, '', one);
          addToUser(byUser, agent, one);
        }
        if (++looked >= CALLS_PER_SLICE) {
          looked = 0;
          yield;
        }
      }
    }
    return sortedUsers(byUser);
  }

  /** The drafted call `index` of a local day (the shared draft, valid until the next call). */
  #callAt(day: number, index: number): CallDraft {
    this.#rowRng.reseed(mixSeed(this.#options.seed, day, index));
    return this.#draft.draft(this.#rowRng, this.#population);
  }

  /** Counts in slices: yields after each slice of calls looked at, returns the count. */
  *#countSteps(startMs: number, endMs: number, filter: CallFilter | undefined): Generator<void, number> {
    const days: [number, boolean][] = [];
    this.#forEachDay(startMs, endMs, (day, full) => days.push([day, full]));
    let total = 0;
    let looked = 0;
    const keep = (day: number, from: number, to: number) => {
      let kept = 0;
      for (let i = from; i < to; i++) if (filter === undefined || filter(this.#callAt(day, i))) kept++;
      looked += to - from;
      return kept;
    };
    for (const [day, full] of days) {
      if (full) {
        const cache = filter === undefined ? undefined : this.#dayCache(filter);
        const cached = filter === undefined ? this.dayVolume(day) : cache?.get(day);
        if (cached !== undefined) {
          total += cached;
          continue;
        }
        const kept = keep(day, 0, this.dayVolume(day));
        if (cache && cache.size >= DAY_COUNT_CACHE_SIZE) cache.delete(cache.keys().next().value as number);
        cache?.set(day, kept);
        total += kept;
      } else {
        const times = this.dayTimes(day);
        const from = lowerBound(times, startMs);
        const to = lowerBound(times, endMs);
        total += filter === undefined ? to - from : keep(day, from, to);
      }
      if (looked >= CALLS_PER_SLICE) {
        looked = 0;
        yield;
      }
    }
    return total;
  }

  #dayCache(filter: CallFilter): Map<number, number> {
    let cache = this.#dayCounts.get(filter);
    if (cache === undefined) {
      cache = new Map();
      this.#dayCounts.set(filter, cache);
    }
    return cache;
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
}
