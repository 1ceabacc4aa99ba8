import { describe, expect, it } from 'vitest';
import { CALLS_PER_SLICE, CallGenerator, emptyTally } from '../../../lib/simulator/reporting/call-generator';
import { type CallFilter, REPORT_TEMPLATES } from '../../../lib/simulator/reporting/report-templates';
import type { ResultRow } from '../../../lib/spec/types';

const LONDON = 'Europe/London';
// Monday 23 March 2026 (GMT), and the week around the DST change.
const MONDAY = Date.UTC(2026, 2, 23);
const DAY = 86_400_000;

/** Every generated row carries these members. */
type GeneratedRow = ResultRow &
  Required<Pick<ResultRow, 'start' | 'ans' | 'ref' | 'lost' | 'ring' | 'duration'>>;

function rowsOf(
  generator: CallGenerator,
  start: number,
  end: number,
  limit = 1_000_000,
  filter?: CallFilter,
) {
  const tally = emptyTally();
  const batches = [...generator.rowBatches(start, end, limit, tally, filter)].filter((b) => b.length > 0);
  const rows = JSON.parse(`[${batches.join(',')}]`) as GeneratedRow[];
  return { rows, tally };
}

describe('CallGenerator', () => {
  const generator = new CallGenerator({ seed: 7, rowsPerDay: 400, timeZone: LONDON });

  it('produces exactly rowsPerDay calls when the window is a whole weekday', () => {
    // Act
    const { rows } = rowsOf(generator, MONDAY, MONDAY + DAY);
    // Assess
    expect(rows).toHaveLength(400);
    expect(generator.countInWindow(MONDAY, MONDAY + DAY)).toBe(400);
  });

  it('counts the same rows it emits when the window cuts days at odd times', () => {
    // Prepare
    const start = MONDAY + 9.25 * 3600_000;
    const end = MONDAY + 6 * DAY + 13.5 * 3600_000;
    // Act
    const { rows, tally } = rowsOf(generator, start, end);
    // Assess
    expect(generator.countInWindow(start, end)).toBe(rows.length);
    expect(tally.rows).toBe(rows.length);
  });

  it('emits rows only inside the window, sorted by start, when the window spans the DST change', () => {
    // Prepare: Sat 28 09:00 GMT to Mon 30 09:00 BST.
    const start = Date.UTC(2026, 2, 28, 9);
    const end = Date.UTC(2026, 2, 30, 8);
    // Act
    const { rows } = rowsOf(generator, start, end);
    // Assess
    const starts = rows.map((r) => r.start);
    expect(starts.length).toBeGreaterThan(0);
    expect(starts).toEqual([...starts].sort());
    expect((starts[0] ?? '') >= '2026-03-28T09:00:00').toBe(true);
    expect((starts.at(-1) ?? '') < '2026-03-30T09:00:00').toBe(true);
    // No local time inside the skipped hour 01:00-02:00 on the 29th.
    expect(starts.some((s) => s.startsWith('2026-03-29T01:'))).toBe(false);
  });

  it('gives the same call the same content when windows overlap', () => {
    // Act
    const whole = rowsOf(generator, MONDAY, MONDAY + DAY).rows;
    const afternoon = rowsOf(generator, MONDAY + 12 * 3600_000, MONDAY + DAY).rows;
    // Assess
    expect(whole.slice(whole.length - afternoon.length)).toEqual(afternoon);
  });

  it('makes weekdays and office hours busier than weekends and nights', () => {
    // Act
    const week = rowsOf(generator, MONDAY, MONDAY + 7 * DAY).rows;
    // Assess
    const weekend = week.filter((r) => r.start >= '2026-03-28').length;
    const office = week.filter((r) => {
      const hour = Number(r.start.slice(11, 13));
      return hour >= 8 && hour < 18;
    }).length;
    expect(weekend).toBeLessThan(week.length * 0.1);
    expect(office).toBeGreaterThan(week.length * 0.6);
  });

  it('omits members that do not apply and keeps the summary in step with the rows', () => {
    // Act
    const { rows, tally } = rowsOf(generator, MONDAY, MONDAY + DAY);
    // Assess
    for (const row of rows) {
      expect(row.ans + row.ref + row.lost).toBe(1);
      if (row.lost === 1) {
        expect(row.calledUserNum).toBeUndefined();
        expect(row.duration).toBe(0);
      }
      if (row.hgNum === undefined) expect(row.hgName).toBeUndefined();
      if (row.callDir === 1 && row.hgNum !== undefined && row.lost === 1)
        expect(row.userName).toBeUndefined();
    }
    expect(rows.filter((r) => r.hgNum === undefined).length).toBeGreaterThan(0);
    expect(rows.some((r) => r.cliName?.includes(',') || r.cliName?.includes('"'))).toBe(true);
    expect(tally).toEqual({
      rows: rows.length,
      ans: rows.reduce((s, r) => s + r.ans, 0),
      ref: rows.reduce((s, r) => s + r.ref, 0),
      lost: rows.reduce((s, r) => s + r.lost, 0),
      ring: rows.reduce((s, r) => s + r.ring, 0),
      duration: rows.reduce((s, r) => s + r.duration, 0),
    });
  });

  it('stops at the limit when the window holds more rows', () => {
    // Act
    const { rows } = rowsOf(generator, MONDAY, MONDAY + 2 * DAY, 250);
    // Assess
    expect(rows).toHaveLength(250);
  });

  it('yields different calls when the seed differs', () => {
    // Prepare
    const other = new CallGenerator({ seed: 8, rowsPerDay: 400, timeZone: LONDON });
    // Act
    const a = rowsOf(generator, MONDAY, MONDAY + DAY).rows[0];
    const b = rowsOf(other, MONDAY, MONDAY + DAY).rows[0];
    // Assess
    expect(a?.connId).not.toBe(b?.connId);
  });

  it.each([
    { template: 'CallListByUser', keeps: (r: GeneratedRow) => r.userName !== undefined },
    { template: 'CallListByHuntGroup', keeps: (r: GeneratedRow) => r.hgNum !== undefined },
    { template: 'LostCalls', keeps: (r: GeneratedRow) => r.lost === 1 },
  ] as const)(
    'emits exactly the calls $template keeps, and counts them, when filtered',
    ({ template, keeps }) => {
      // Prepare
      const start = MONDAY + 9.25 * 3600_000;
      const end = MONDAY + 3 * DAY + 13.5 * 3600_000;
      const all = rowsOf(generator, start, end).rows;
      // Act
      const { rows, tally } = rowsOf(generator, start, end, 1_000_000, REPORT_TEMPLATES[template].includes);
      // Assess
      expect(rows).toEqual(all.filter(keeps));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThan(all.length);
      expect(generator.countInWindow(start, end, REPORT_TEMPLATES[template].includes)).toBe(rows.length);
      expect(tally.lost).toBe(rows.filter((r) => r.lost === 1).length);
    },
  );

  it('counts the same in slices as at once, and again from its day cache, when counting asynchronously', async () => {
    // Prepare
    const lost = REPORT_TEMPLATES.LostCalls.includes;
    const busy = new CallGenerator({ seed: 7, rowsPerDay: 3 * CALLS_PER_SLICE, timeZone: LONDON });
    // Act
    const once = busy.countInWindow(MONDAY, MONDAY + 3 * DAY, lost);
    const sliced = await busy.countInWindowAsync(MONDAY, MONDAY + 3 * DAY, lost);
    const cached = await busy.countInWindowAsync(MONDAY, MONDAY + 3 * DAY, lost);
    // Assess
    expect(sliced).toBe(once);
    expect(cached).toBe(once);
  });

  it('ends a batch after CALLS_PER_SLICE calls even when the filter keeps none of them', () => {
    // Prepare
    const busy = new CallGenerator({ seed: 7, rowsPerDay: 10 * CALLS_PER_SLICE, timeZone: LONDON });
    // Act
    const batches = [...busy.rowBatches(MONDAY, MONDAY + DAY, 1_000_000, emptyTally(), () => false)];
    // Assess
    expect(batches).toEqual(Array.from({ length: 10 }, () => ''));
  });
});
