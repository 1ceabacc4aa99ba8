import { describe, expect, it } from 'vitest';
import { CALLS_PER_SLICE, CallGenerator, emptyTally } from '../../../lib/simulator/reporting/call-generator';
import {
  CALL_DETAIL_FIELD_NAMES,
  CALL_FIELD_NAMES,
  displayFieldsOf,
  USER_TOTAL_FIELD_NAMES,
} from '../../../lib/simulator/reporting/display-fields';
import { REPORT_TEMPLATES, resolveTemplate } from '../../../lib/simulator/reporting/report-templates';
import { renderUserTotals } from '../../../lib/simulator/reporting/user-totals';
import type { ResultRow } from '../../../lib/spec/types';

const LONDON = 'Europe/London';
// Monday 23 March 2026 (GMT).
const MONDAY = Date.UTC(2026, 2, 23);
const DAY = 86_400_000;

type Row = ResultRow & Record<string, unknown>;

/** Every call's row in [start, end), with or without the detail members. */
function rowsOf(generator: CallGenerator, start: number, end: number, details: boolean) {
  const batches = [...generator.rowBatches(start, end, 1_000_000, emptyTally(), undefined, { details })];
  return JSON.parse(`[${batches.filter((b) => b.length > 0).join(',')}]`) as Row[];
}

describe('resolveTemplate', () => {
  it.each([
    ['CallListByUser', 'calls'],
    ['CallListByHuntGroup', 'calls'],
    ['LostCalls', 'calls'],
    ['CallListWithDetails', 'call-details'],
    ['SummaryByUser', 'user-totals'],
    ['NoSuchTemplate', 'calls'],
  ] as const)('gives %s the %s layout', (templateName, layout) => {
    // Assess
    expect(resolveTemplate(templateName).layout).toBe(layout);
  });

  it('keeps every call for CallListWithDetails and the calls by user for SummaryByUser', () => {
    // Assess
    expect(resolveTemplate('CallListWithDetails').filter).toBeUndefined();
    expect(resolveTemplate('SummaryByUser').filter).toBe(REPORT_TEMPLATES.CallListByUser.includes);
  });
});

describe('displayFieldsOf', () => {
  it('lists the call members, then the detail members after docId, when the layout is call-details', () => {
    // Act
    const fields = displayFieldsOf('call-details');
    // Assess
    expect(fields.map((f) => f.fieldName)).toEqual([
      ...CALL_FIELD_NAMES,
      'accountCode',
      'queueSeconds',
      'cost',
      'recorded',
      'trunk',
    ]);
    expect(fields.filter((f) => f.mandatory).map((f) => f.fieldName)).toEqual(['connId', 'start']);
  });

  it('has no start and no connId when the layout is user-totals', () => {
    // Act
    const names = displayFieldsOf('user-totals').map((f) => f.fieldName);
    // Assess
    expect(names).toEqual(['userName', 'userNum', 'calls', 'ans', 'ref', 'lost', 'ring', 'duration']);
    expect(names).not.toContain('start');
    expect(names).not.toContain('connId');
  });
});

describe('CallGenerator detail rows', () => {
  const generator = new CallGenerator({ seed: 7, rowsPerDay: 400, timeZone: LONDON });

  it('writes the plain row plus the detail members of the same call when details is true', () => {
    // Act
    const plain = rowsOf(generator, MONDAY, MONDAY + DAY, false);
    const detailed = rowsOf(generator, MONDAY, MONDAY + DAY, true);
    // Assess
    expect(detailed).toHaveLength(plain.length);
    detailed.forEach((row, i) => {
      const { accountCode, queueSeconds, cost, recorded, trunk, ...usual } = row;
      expect(usual).toEqual(plain[i]);
      expect(Object.keys(row).slice(-CALL_DETAIL_FIELD_NAMES.length)).toEqual([...CALL_DETAIL_FIELD_NAMES]);
    });
  });

  it('gives every detail member its documented type in every row', () => {
    // Act
    const rows = rowsOf(generator, MONDAY, MONDAY + DAY, true);
    // Assess
    for (const row of rows) {
      expect(typeof row.accountCode).toBe('string');
      expect(Number.isInteger(row.queueSeconds)).toBe(true);
      expect(typeof row.cost).toBe('number');
      expect(typeof row.recorded).toBe('boolean');
      expect(row.trunk).toEqual({ id: expect.any(String), name: expect.any(String) });
      expect(typeof row.start).toBe('string');
    }
    // Each kind of value occurs: a code made of digits, a non-integer cost, both booleans.
    expect(rows.some((r) => r.accountCode === '0042')).toBe(true);
    expect(rows.some((r) => !Number.isInteger(r.cost))).toBe(true);
    expect(new Set(rows.map((r) => r.recorded))).toEqual(new Set([true, false]));
    expect(rows.some((r) => (r.queueSeconds as number) > 0 && r.hgNum !== undefined)).toBe(true);
    expect(rows.every((r) => r.hgNum !== undefined || r.queueSeconds === 0)).toBe(true);
  });

  it('prints cost with at most two decimals when the row text is read', () => {
    // Act
    const text = [
      ...generator.rowBatches(MONDAY, MONDAY + DAY, 1_000_000, emptyTally(), undefined, { details: true }),
    ].join(',');
    const costs = [...text.matchAll(/"cost":([^,]+),/g)].map((m) => m[1] as string);
    // Assess
    expect(costs.length).toBeGreaterThan(0);
    for (const cost of costs) expect(cost).toMatch(/^\d+(\.\d{1,2})?$/);
  });

  it('draws the same details when the seed is the same', () => {
    // Prepare
    const twin = new CallGenerator({ seed: 7, rowsPerDay: 400, timeZone: LONDON });
    const other = new CallGenerator({ seed: 8, rowsPerDay: 400, timeZone: LONDON });
    // Act
    const a = rowsOf(generator, MONDAY, MONDAY + DAY, true);
    const b = rowsOf(twin, MONDAY, MONDAY + DAY, true);
    const c = rowsOf(other, MONDAY, MONDAY + DAY, true);
    // Assess
    expect(b).toEqual(a);
    expect(c.map((r) => r.accountCode)).not.toEqual(a.map((r) => r.accountCode));
  });
});

describe('CallGenerator.userTotalsAsync', () => {
  const generator = new CallGenerator({ seed: 7, rowsPerDay: 400, timeZone: LONDON });

  it('sums per user exactly the rows CallListByUser lists when the window cuts days at odd times', async () => {
    // Prepare
    const start = MONDAY + 9.25 * 3600_000;
    const end = MONDAY + 3 * DAY + 13.5 * 3600_000;
    const byUser = REPORT_TEMPLATES.CallListByUser.includes;
    const tally = emptyTally();
    const batches = [...generator.rowBatches(start, end, 1_000_000, tally, byUser)].filter(
      (b) => b.length > 0,
    );
    const rows = JSON.parse(`[${batches.join(',')}]`) as Required<
      Pick<ResultRow, 'userNum' | 'ans' | 'ref' | 'lost' | 'ring' | 'duration'>
    >[];
    const expected = new Map<
      string,
      { calls: number; ans: number; ref: number; lost: number; ring: number; duration: number }
    >();
    for (const row of rows) {
      const sum = expected.get(row.userNum) ?? { calls: 0, ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 };
      expected.set(row.userNum, {
        calls: sum.calls + 1,
        ans: sum.ans + row.ans,
        ref: sum.ref + row.ref,
        lost: sum.lost + row.lost,
        ring: sum.ring + row.ring,
        duration: sum.duration + row.duration,
      });
    }
    // Act
    const users = await generator.userTotalsAsync(start, end, byUser);
    // Assess
    expect(users.map((u) => u.agent.extension)).toEqual([...expected.keys()].sort());
    for (const { agent, tally: t } of users) {
      expect({
        calls: t.rows,
        ans: t.ans,
        ref: t.ref,
        lost: t.lost,
        ring: t.ring,
        duration: t.duration,
      }).toEqual(expected.get(agent.extension));
    }
    expect(users.reduce((n, u) => n + u.tally.rows, 0)).toBe(rows.length);
  });

  it('sums every call by user when the work is done in several slices', async () => {
    // Prepare
    const busy = new CallGenerator({ seed: 7, rowsPerDay: 3 * CALLS_PER_SLICE, timeZone: LONDON });
    const byUser = REPORT_TEMPLATES.SummaryByUser.includes;
    // Act
    const users = await busy.userTotalsAsync(MONDAY, MONDAY + 2 * DAY, byUser);
    // Assess
    expect(users).toHaveLength(24);
    expect(users.reduce((n, u) => n + u.tally.rows, 0)).toBe(
      busy.countInWindow(MONDAY, MONDAY + 2 * DAY, byUser),
    );
  });

  it('has no users when the window holds no calls', async () => {
    // Act
    const users = await generator.userTotalsAsync(MONDAY, MONDAY, REPORT_TEMPLATES.SummaryByUser.includes);
    // Assess
    expect(users).toEqual([]);
  });

  it('lists users with the fields of USER_TOTAL_FIELD_NAMES when rendered', async () => {
    // Prepare
    const [first] = await generator.userTotalsAsync(
      MONDAY,
      MONDAY + DAY,
      REPORT_TEMPLATES.SummaryByUser.includes,
    );
    // Act
    const row = JSON.parse(renderUserTotals(first as NonNullable<typeof first>)) as Record<string, unknown>;
    // Assess
    expect(Object.keys(row)).toEqual([...USER_TOTAL_FIELD_NAMES]);
    expect(row.userNum).toBe('2001');
  });
});
