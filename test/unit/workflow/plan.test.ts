import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/workflow/errors';
import { MAX_EXECUTION_INPUT_BYTES } from '../../../lib/workflow/input';
import { planExecution } from '../../../lib/workflow/plan';
import {
  HISTORY_EVENT_BUDGET,
  HISTORY_EVENT_LIMIT,
  jobsWithinBudget,
  SETTINGS_DEFAULTS,
  settingsFromEnvironment,
  worstCaseEventsPerJob,
} from '../../../lib/workflow/settings';

const REPORTS = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, name: `Report ${i}` }));
const settings = settingsFromEnvironment({
  TIME_ZONE: 'Europe/London',
  WORKSPACE_ID: 'ws',
  REPORTS: JSON.stringify(REPORTS.slice(0, 3)),
});

describe('planExecution', () => {
  it('plans the local day before the scheduled time, never today, when the time is just after local midnight', () => {
    // 00:30 BST on 2026-03-30 is 23:30Z on the 29th: yesterday is the 29th (a 23-hour day).
    const plan = planExecution(
      { scheduledTime: '2026-03-29T23:30:00Z' },
      { ...settings, lookBackDays: 0 },
      { executionName: 'x' },
    );
    expect(plan.dates).toEqual({ from: '2026-03-29', to: '2026-03-29' });
    expect(plan.jobs[0]?.window).toEqual({
      from: '2026-03-29T00:00:00+00:00',
      to: '2026-03-30T00:00:00+01:00',
      firstDate: '2026-03-29',
      lastDate: '2026-03-29',
    });
  });

  it.each([
    // 12:00 in London: today only, whatever the interval.
    ['midday', '2026-11-20T12:00:00Z', 15, { from: '2026-11-20', to: '2026-11-20' }],
    // Until the refresh before was the settle grace (30 min) past midnight, yesterday is read
    // whole too: at 00:30 (the one before at 00:15) it is settled, at 00:45 no longer read.
    ['local midnight', '2026-11-20T00:00:00Z', 15, { from: '2026-11-19', to: '2026-11-20' }],
    ['00:10', '2026-11-20T00:10:00Z', 15, { from: '2026-11-19', to: '2026-11-20' }],
    ['00:30, past the grace', '2026-11-20T00:30:00Z', 15, { from: '2026-11-19', to: '2026-11-20' }],
    ['00:45, settled before', '2026-11-20T00:45:00Z', 15, { from: '2026-11-20', to: '2026-11-20' }],
    ['hourly, 01:15', '2026-11-20T01:15:00Z', 60, { from: '2026-11-19', to: '2026-11-20' }],
    ['hourly, 01:30', '2026-11-20T01:30:00Z', 60, { from: '2026-11-20', to: '2026-11-20' }],
    // 00:30 BST on 2026-03-30 is 23:30Z on the 29th: today is the 30th in London.
    ['BST, a UTC date behind', '2026-03-29T23:30:00Z', 60, { from: '2026-03-29', to: '2026-03-30' }],
  ])(
    'plans an intraday refresh at %s as today so far in the zone (every %s minutes)',
    (_, scheduledTime, every, dates) => {
      const plan = planExecution(
        { intraday: true, scheduledTime },
        { ...settings, intradayEveryMinutes: every },
        { executionName: 'x' },
      );
      expect([plan.mode, plan.dates]).toEqual(['intraday', dates]);
      // Whole local days are requested: the service answers with the calls up to the request.
      expect(plan.jobs.map((j) => j.window?.firstDate)).toEqual(plan.jobs.map(() => dates.from));
      expect(plan.jobs[0]?.window?.lastDate).toBe(dates.to);
    },
  );

  it('plans an intraday refresh without a schedule as today at the execution start, in the tenant zone', () => {
    // 23:30Z on 2026-11-20 is 10:30 on the 21st in Sydney.
    const plan = planExecution(
      { intraday: true },
      { ...settings, timeZone: 'Australia/Sydney', intradayEveryMinutes: 60 },
      { executionName: 'x', now: new Date('2026-11-20T23:30:00Z') },
    );
    expect(plan.dates).toEqual({ from: '2026-11-21', to: '2026-11-21' });
  });

  it.each([
    [{ intraday: true, date: '2026-11-20' }, /takes one of .*got intraday and date/],
    [{ intraday: false, scheduledTime: '2026-11-20T00:00:00Z' }, /intraday must be true/],
    [
      { intraday: true, contacts: 'only' },
      /"only" syncs the contact directories alone: it takes no intraday/,
    ],
  ])('refuses an intraday input that names another window: %j', (input, message) => {
    expect(() => planExecution(input, settings, { executionName: 'x' })).toThrow(message);
  });

  it('re-exports the look-back days every night', () => {
    const plan = planExecution({ scheduledTime: '2026-11-21T00:05:00Z' }, settings, { executionName: 'x' });
    expect(plan.dates).toEqual({ from: '2026-11-18', to: '2026-11-20' });
    expect(plan.jobs).toHaveLength(3);
  });

  it('groups a backfill into day-aligned windows of at most maxWindowDays per report', () => {
    const plan = planExecution(
      { from: '2026-11-01', to: '2026-11-10' },
      { ...settings, maxWindowDays: 3, maxJobsPerExecution: 12 },
      { executionName: 'x' },
    );
    expect(
      plan.jobs.map((j) => `${j.window?.firstDate}..${j.window?.lastDate}`).filter((_, i) => i % 3 === 0),
    ).toEqual([
      '2026-11-01..2026-11-03',
      '2026-11-04..2026-11-06',
      '2026-11-07..2026-11-09',
      '2026-11-10..2026-11-10',
    ]);
  });

  it('keeps a two-year backfill of ten reports within the history budget by continuing in new executions', () => {
    const s = { ...settings, reports: REPORTS };
    let input: unknown = { from: '2024-11-01', to: '2026-10-31' };
    let executions = 0;
    const days = new Set<string>();
    while (input !== undefined && executions < 1000) {
      const plan = planExecution(input, s, { executionName: `e${executions}` });
      executions++;
      expect(plan.jobCount * worstCaseEventsPerJob(s) + 60).toBeLessThanOrEqual(HISTORY_EVENT_BUDGET);
      for (const j of plan.jobs) days.add(`${j.reportId}/${j.window?.firstDate}`);
      input = plan.continuation;
    }
    expect(input).toBeUndefined();
    expect(days.size).toBe(10 * Math.ceil(730 / SETTINGS_DEFAULTS.maxWindowDays));
    expect(HISTORY_EVENT_BUDGET).toBeLessThan(HISTORY_EVENT_LIMIT);
  });

  it('resolves a preset to local dates at the execution start, so every report (summaries too) runs as dated windows', () => {
    // Thursday 2026-11-26 14:00 in London: last week is Monday 16 to Sunday 22 November.
    const plan = planExecution(
      { preset: 'LastWeek' },
      { ...settings, maxWindowDays: 7 },
      {
        executionName: 'x',
        now: new Date('2026-11-26T14:00:00Z'),
      },
    );
    expect(plan.mode).toBe('preset');
    expect(plan.dates).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(plan.jobs.map((j) => j.window)).toEqual(
      Array(3).fill({
        from: '2026-11-16T00:00:00+00:00',
        to: '2026-11-23T00:00:00+00:00',
        firstDate: '2026-11-16',
        lastDate: '2026-11-22',
      }),
    );
  });

  it('refuses with InvalidInputError an input larger than an execution may carry in its state', () => {
    const conditions = Array.from({ length: 40 }, (_, i) => ({
      fieldName: 'cli',
      operator: 'in',
      values: Array.from({ length: 200 }, (_, j) => `+4412345${i}${j}`.padEnd(16, '0')),
    }));
    expect(JSON.stringify(conditions).length).toBeGreaterThan(MAX_EXECUTION_INPUT_BYTES);
    expect(() =>
      planExecution({ date: '2026-11-01', additionalConditions: conditions }, settings, {
        executionName: 'x',
      }),
    ).toThrow(InvalidInputError);
  });

  it("keeps the input's filters once, in the jobs' options, never in the continuation", () => {
    const filters = { filterId: '6f1f3b7e-2c1d-4b8e-9a55-0c7e1d2f3a4b', additionalConditions: [] };
    const plan = planExecution(
      { from: '2024-11-01', to: '2026-10-31', ...filters },
      { ...settings, maxJobsPerExecution: 3, maxWindowDays: 7 },
      { executionName: 'x' },
    );
    expect(plan.options.filters).toEqual(filters);
    expect(plan.continuation).toEqual({
      from: '2024-11-08',
      to: '2026-10-31',
      reports: ['r0', 'r1', 'r2'],
      parentRunId: 'x',
      // Its first execution synced the contact directories.
      contacts: 'skip',
    });
  });

  it.each([
    ['a nightly input (no contacts)', { scheduledTime: '2026-11-19T02:00:00Z' }, true],
    ['a dated input (no contacts)', { date: '2026-11-18' }, true],
    ['contacts sync', { date: '2026-11-18', contacts: 'sync' }, true],
    ['contacts only', { contacts: 'only' }, true],
    ['contacts skip', { date: '2026-11-18', contacts: 'skip' }, false],
    ['an intraday refresh (no contacts)', { intraday: true }, false],
    ['an intraday refresh with contacts sync', { intraday: true, contacts: 'sync' }, true],
    ['a continuation', { from: '2026-11-01', to: '2026-11-10', parentRunId: 'e0' }, false],
    [
      'a continuation that asks for the sync',
      { from: '2026-11-01', to: '2026-11-10', parentRunId: 'e0', contacts: 'sync' },
      false,
    ],
  ])('decides whether the contact directories are synced when the input is %s', (_, input, sync) => {
    const plan = planExecution(input, settings, { executionName: 'x' });
    expect(plan.contacts).toEqual({ sync, force: false });
  });

  it("releases the contacts' shrink guard when the input forces replacement", () => {
    const plan = planExecution({ date: '2026-11-18', forceReplace: true }, settings, { executionName: 'x' });
    expect(plan.contacts).toEqual({ sync: true, force: true });
  });

  it('names a report that is not configured', () => {
    expect(() =>
      planExecution({ date: '2026-11-01', reports: ['Nope'] }, settings, { executionName: 'x' }),
    ).toThrow(InvalidInputError);
  });

  it('accepts reports by id or by name', () => {
    const plan = planExecution({ date: '2026-11-01', reports: ['r1', 'Report 2'] }, settings, {
      executionName: 'x',
    });
    expect(plan.jobs.map((j) => j.reportId)).toEqual(['r1', 'r2']);
  });

  it('accepts a report name in another case when no name matches as written', () => {
    const plan = planExecution({ date: '2026-11-01', reports: ['report 2'] }, settings, {
      executionName: 'x',
    });
    expect(plan.jobs.map((j) => j.reportId)).toEqual(['r2']);
  });
});

describe('settingsFromEnvironment', () => {
  it.each([
    [{ TIME_ZONE: 'Europe/Londn' }, 'TIME_ZONE is not an IANA time zone'],
    [{ REPORTS: 'not json' }, 'REPORTS is not JSON'],
    [{ LOOKBACK_DAYS: '-1' }, 'LOOKBACK_DAYS'],
    [{ MAX_JOBS_PER_EXECUTION: '5000' }, 'exceeds the history budget'],
  ])('names the setting when %j', (override, named) => {
    const env = { TIME_ZONE: 'UTC', WORKSPACE_ID: 'w', REPORTS: '[{"id":"a","name":"b"}]', ...override };
    expect(() => settingsFromEnvironment(env)).toThrow(named);
  });

  it('derives jobs per execution from the worst case of the poll and request budgets', () => {
    expect(settings.maxJobsPerExecution).toBe(jobsWithinBudget(settings));
    expect(settings.maxJobsPerExecution).toBeGreaterThanOrEqual(10);
  });
});
