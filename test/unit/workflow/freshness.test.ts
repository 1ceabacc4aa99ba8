import { describe, expect, it } from 'vitest';
import {
  type FreshnessSchedule,
  goalsAt,
  insideIntradayHours,
  judgeFreshness,
  nightlyGoals,
  recordDatesToRead,
  verdictOf,
  worstVerdict,
} from '../../../lib/workflow/freshness';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const LONDON: FreshnessSchedule = { timeZone: 'Europe/London', hour: 2 };
/**
 * Refreshes every 15 minutes from 07:00 to 19:00, London time, for tenant acme: its schedule
 * starts at minute 10 of each quarter (intradayMinute), so the day's first refresh is at 07:10
 * and has landed by 07:28 (3 minutes of flexible window, 15 of run).
 */
const INTRADAY: FreshnessSchedule = {
  ...LONDON,
  id: 'acme',
  intraday: { everyMinutes: 15, fromHour: 7, toHour: 19 },
};

describe('nightlyGoals', () => {
  it.each([
    [0, 26 * 60, 50 * 60],
    [2, 28 * 60, 52 * 60],
    [23, 49 * 60, 73 * 60],
  ])('warns after 24 h + hour + 2 h and errs a day later when the night is at %i', (hour, warn, error) => {
    // Act
    const goals = nightlyGoals(hour);

    // Assess
    expect(goals).toEqual({ warnAfterMinutes: warn, errorAfterMinutes: error });
  });
});

describe('goalsAt', () => {
  it('applies the nightly goals when the tenant has no intraday refreshes and no explicit goals', () => {
    // Act
    const goals = goalsAt(LONDON, new Date('2026-12-04T12:00:00Z'));

    // Assess
    expect(goals).toEqual({ warnAfterMinutes: 28 * 60, errorAfterMinutes: 52 * 60, basis: 'nightly' });
  });

  it.each([
    ['before the first refresh of the day landed (07:27 GMT)', '2026-12-04T07:27:00Z', 'nightly'],
    ['once it landed (07:28 GMT)', '2026-12-04T07:28:00Z', 'intraday'],
    ['in the last minute of the hours (18:59 GMT)', '2026-12-04T18:59:00Z', 'intraday'],
    ['at the end of the hours (19:00 GMT)', '2026-12-04T19:00:00Z', 'nightly'],
    ['at 07:28 BST, which is 06:28Z', '2026-07-01T06:28:00Z', 'intraday'],
    ['at 19:00 BST, which is 18:00Z', '2026-07-01T18:00:00Z', 'nightly'],
    ['at 07:27 BST, which is 06:27Z', '2026-07-01T06:27:00Z', 'nightly'],
  ])('applies the %s goals by local time %s', (_, at, basis) => {
    // Act
    const goals = goalsAt(INTRADAY, new Date(at));

    // Assess
    expect(goals.basis).toBe(basis);
    if (basis === 'intraday') expect(goals).toMatchObject({ warnAfterMinutes: 45, errorAfterMinutes: 90 });
    else expect(goals).toMatchObject({ warnAfterMinutes: 28 * 60, errorAfterMinutes: 52 * 60 });
  });

  it("keeps the nightly goals each morning until an hourly tenant's first refresh, at its own minute, landed", () => {
    // Prepare: acme refreshes hourly from 08:00 at minute 55 (08:55, up to 12 minutes late).
    const hourly = { everyMinutes: 60 as const, fromHour: 8, toHour: 20 };

    // Act
    const at = (t: string) => insideIntradayHours(hourly, 'Europe/London', new Date(t), 'acme');

    // Assess: at 09:01 the data is still the night's (no false error); from 09:22 a refresh is due.
    expect([at('2026-12-04T09:01:00Z'), at('2026-12-04T09:21:00Z'), at('2026-12-04T09:22:00Z')]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('reads the local hour on the day the clocks go forward (01:40Z is 02:40 BST)', () => {
    // Prepare: refreshes from 02:00, every 20 minutes, tenant unknown (its minute taken as the
    // latest, 19): the first has landed by 02:38 BST.
    const early = { everyMinutes: 20 as const, fromHour: 2, toHour: 4 };

    // Act
    const inside = insideIntradayHours(early, 'Europe/London', new Date('2026-03-29T01:40:00Z'));
    const before = insideIntradayHours(early, 'Europe/London', new Date('2026-03-29T00:59:00Z'));

    // Assess: 00:59Z is 00:59 GMT, before the hours
    expect(inside).toBe(true);
    expect(before).toBe(false);
  });

  it('applies the explicit goals whenever they are set, inside intraday hours too', () => {
    // Prepare
    const schedule = { ...INTRADAY, freshness: { warnAfterMinutes: 600, errorAfterMinutes: 900 } };

    // Act
    const goals = goalsAt(schedule, new Date('2026-12-04T12:00:00Z'));

    // Assess
    expect(goals).toEqual({ warnAfterMinutes: 600, errorAfterMinutes: 900, basis: 'explicit' });
  });
});

describe('verdictOf', () => {
  const goals = { warnAfterMinutes: 60, errorAfterMinutes: 120 };
  it.each([
    [0, 'ok'],
    [60 * MINUTE, 'ok'],
    [60 * MINUTE + 1, 'warn'],
    [120 * MINUTE, 'warn'],
    [120 * MINUTE + 1, 'error'],
    [null, 'error'],
  ] as const)('judges a lag of %s ms as %s', (lag, verdict) => {
    // Act & Assess
    expect(verdictOf(lag, goals)).toBe(verdict);
  });
});

describe('worstVerdict', () => {
  it.each([
    [[], 'ok'],
    [['ok', 'ok'], 'ok'],
    [['ok', 'warn', 'ok'], 'warn'],
    [['warn', 'error', 'ok'], 'error'],
  ] as const)('takes the worst of %j', (verdicts, worst) => {
    // Act & Assess
    expect(worstVerdict(verdicts)).toBe(worst);
  });
});

describe('judgeFreshness', () => {
  it.each([
    // 2026-03-29 starts at 00:00 GMT and ends at 00:00 BST the next day: 23 hours.
    ['the day the clocks go forward (23 hours)', '2026-03-29', '2026-03-29T23:00:00.000Z'],
    // 2026-10-25 starts at 00:00 BST (23:00Z the day before) and ends at 00:00 GMT: 25 hours.
    ['the day the clocks go back (25 hours)', '2026-10-25', '2026-10-26T00:00:00.000Z'],
    ['a winter day', '2026-12-03', '2026-12-04T00:00:00.000Z'],
    ['a summer day', '2026-07-01', '2026-07-01T23:00:00.000Z'],
  ])("takes a settled day's end in its zone on %s", (_, dt, end) => {
    // Prepare: exactly the warn goal (28 h) after the day's end, then a moment past it
    const atGoal = new Date(Date.parse(end) + 28 * HOUR);
    const past = new Date(atGoal.getTime() + 1);

    // Act
    const met = judgeFreshness([{ dt }], LONDON, atGoal);
    const missed = judgeFreshness([{ dt }], LONDON, past);

    // Assess
    expect(met).toMatchObject({ newestSettledDay: dt, dataTime: end, lagMinutes: 28 * 60, verdict: 'ok' });
    expect(missed.verdict).toBe('warn');
  });

  it('takes the data time of a provisional day from its as-of, after the newest settled day', () => {
    // Prepare: yesterday settled, today read at 10:00 GMT, judged at 10:40
    const days = [{ dt: '2026-12-03' }, { dt: '2026-12-04', asOf: '2026-12-04T10:00:00Z' }];

    // Act
    const judged = judgeFreshness(days, INTRADAY, new Date('2026-12-04T10:40:00Z'));

    // Assess
    expect(judged).toEqual({
      newestSettledDay: '2026-12-03',
      provisionalDays: [{ dt: '2026-12-04', asOf: '2026-12-04T10:00:00.000Z' }],
      dataTime: '2026-12-04T10:00:00.000Z',
      lagMinutes: 40,
      verdict: 'ok',
      goals: { warnAfterMinutes: 45, errorAfterMinutes: 90, basis: 'intraday' },
    });
  });

  it('warns when the intraday refreshes stopped, though the nightly goals would be met', () => {
    // Prepare: today's last refresh at 09:00, judged at 10:00 inside the refresh hours
    const days = [{ dt: '2026-12-03' }, { dt: '2026-12-04', asOf: '2026-12-04T09:00:00Z' }];

    // Act
    const judged = judgeFreshness(days, INTRADAY, new Date('2026-12-04T10:00:00Z'));

    // Assess: 60 min past the 45 min goal, not past the 90 min one
    expect(judged.verdict).toBe('warn');
    expect(judgeFreshness(days, LONDON, new Date('2026-12-04T10:00:00Z')).verdict).toBe('ok');
  });

  it('judges a backfill of an old day by that day, not by when it ran', () => {
    // Prepare: the only day published is a month old (whenever the backfill ran)
    const days = [{ dt: '2026-11-04' }];

    // Act
    const judged = judgeFreshness(days, LONDON, new Date('2026-12-04T10:00:00Z'));

    // Assess
    expect(judged).toMatchObject({ newestSettledDay: '2026-11-04', verdict: 'error' });
    expect(judged.lagMinutes).toBeGreaterThan(52 * 60);
  });

  it('errs with no data time when no day is published', () => {
    // Act
    const judged = judgeFreshness([], LONDON, new Date('2026-12-04T10:00:00Z'));

    // Assess
    expect(judged).toMatchObject({
      newestSettledDay: null,
      provisionalDays: [],
      dataTime: null,
      lagMinutes: null,
      verdict: 'error',
    });
  });

  it('lists no provisional day older than the newest settled one', () => {
    // Prepare: an older day still provisional (never settled), a newer one settled
    const days = [{ dt: '2026-12-01', asOf: '2026-12-01T12:00:00Z' }, { dt: '2026-12-03' }];

    // Act
    const judged = judgeFreshness(days, LONDON, new Date('2026-12-04T10:00:00Z'));

    // Assess
    expect(judged.provisionalDays).toEqual([]);
    expect(judged.dataTime).toBe('2026-12-04T00:00:00.000Z');
  });
});

describe('recordDatesToRead', () => {
  it.each([
    // nightly at 4: error after 54 h, + 12 h: 66 h back from 18:00Z is 00:00Z two days earlier
    ['a nightly tenant', { timeZone: 'UTC', hour: 4 }, '2026-12-02'],
    ['a nightly tenant at 5, a minute further back', { timeZone: 'UTC', hour: 5 }, '2026-12-01'],
    [
      'a tenant with the longest explicit goal (31 days)',
      { timeZone: 'UTC', hour: 4, freshness: { warnAfterMinutes: 60, errorAfterMinutes: 31 * 24 * 60 } },
      '2026-11-03',
    ],
  ])('reads back to error_after + 12 h for %s', (_, schedule, from) => {
    // Act
    const dates = recordDatesToRead(schedule, new Date('2026-12-04T18:00:00Z'));

    // Assess
    expect(dates).toEqual({ from, to: '2026-12-04' });
  });
});
