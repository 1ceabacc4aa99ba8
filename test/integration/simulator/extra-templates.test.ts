import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CALL_FIELD_NAMES } from '../../../lib/simulator/reporting/display-fields';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import type {
  Envelope,
  ReportListEntry,
  ReportRequest,
  ReportResult,
  ResultRow,
} from '../../../lib/spec/types';
import { startTestSim, type TestSim } from './sim-harness';

const START = '2026-03-23T00:00:00+00:00';
const END = '2026-03-26T00:00:00+00:00';
const SEED = createSeed(DEFAULT_SEED, { extraTemplates: true });

type Totals = Record<'ans' | 'ref' | 'lost' | 'ring' | 'duration', number>;
type UserTotalsRow = Totals & { userName: string; userNum: string; calls: number };
type DetailRow = ResultRow & {
  accountCode: string;
  queueSeconds: number;
  cost: number;
  recorded: boolean;
  trunk: { id: string; name: string };
};

/** The id of the default workspace's report of a template. */
function reportIdOf(templateName: string): string {
  const report = SEED.workspaces[0]?.reports.find((r) => r.templateName === templateName);
  if (!report) throw new Error(`no seeded ${templateName} report`);
  return report.id;
}

/** Requests the report over [start, end) and reads its whole result. */
async function runReport(t: TestSim, templateName: string, start = START, end = END): Promise<ReportResult> {
  const reportId = reportIdOf(templateName);
  const base = `/workspaces/${t.sim.workspaceId}/reports/${reportId}`;
  const created = (await (
    await t.api(`${base}/requests`, { method: 'POST', body: { reportId, dateFilter: { start, end } } })
  ).json()) as Envelope<ReportRequest>;
  const response = await t.api(`${base}/results/${created.data.requestId}/data`);
  if (response.status !== 200) throw new Error(`data answered ${response.status}`);
  return (await response.json()) as ReportResult;
}

function totalsOf(rows: readonly Partial<Totals>[]): Totals {
  const sum = (key: keyof Totals) => rows.reduce((s, r) => s + Number(r[key] ?? 0), 0);
  return {
    ans: sum('ans'),
    ref: sum('ref'),
    lost: sum('lost'),
    ring: sum('ring'),
    duration: sum('duration'),
  };
}

const fieldNames = (result: ReportResult) => result.request.displayFields.map((f) => f.fieldName);

describe("the simulator's own templates over HTTP", () => {
  let t: TestSim;
  let results: Record<'byUser' | 'details' | 'summary', ReportResult>;

  beforeAll(async () => {
    t = await startTestSim({ extraTemplates: true });
    results = {
      byUser: await runReport(t, 'CallListByUser'),
      details: await runReport(t, 'CallListWithDetails'),
      summary: await runReport(t, 'SummaryByUser'),
    };
  });
  afterEach(() => {
    t.sim.faults.clear();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists the extra reports after the others in the default workspace when extraTemplates is set', async () => {
    // Act
    const listed = (await (await t.api(`/workspaces/${t.sim.workspaceId}/reports`)).json()) as Envelope<
      ReportListEntry[]
    >;
    // Assess
    expect(listed.data.map((r) => r.name)).toEqual([
      'Call list by user',
      'Call list by hunt group',
      'Lost calls',
      'Call list with details',
      'Summary by user',
    ]);
    expect(t.sim.reportIds).toEqual(listed.data.map((r) => r.id));
  });

  it('declares the usual members and then the detail members in displayFields when the template is CallListWithDetails', () => {
    // Assess
    expect(results.details.request.reportTemplateName).toBe('CallListWithDetails');
    expect(fieldNames(results.details)).toEqual([
      ...CALL_FIELD_NAMES,
      'accountCode',
      'queueSeconds',
      'cost',
      'recorded',
      'trunk',
    ]);
  });

  it('writes every detail member with its documented type, and the usual members, when the template is CallListWithDetails', () => {
    // Prepare
    const rows = results.details.data as DetailRow[];
    // Assess
    expect(rows.length).toBeGreaterThan(0);
    expect(results.details.totalCount).toBe(rows.length);
    for (const row of rows) {
      expect(row.start).toMatch(/^2026-03-2[345]T\d{2}:\d{2}:\d{2}$/);
      expect(row).toMatchObject({
        connId: expect.any(String),
        callType: expect.any(Number),
        callDir: expect.any(Number),
        ring: expect.any(Number),
        duration: expect.any(Number),
        docId: expect.any(String),
        accountCode: expect.any(String),
        cost: expect.any(Number),
        recorded: expect.any(Boolean),
        trunk: { id: expect.any(String), name: expect.any(String) },
      });
      expect(Number.isInteger(row.queueSeconds)).toBe(true);
      expect(Math.round(row.cost * 100) / 100).toBe(row.cost);
    }
    expect(rows.some((r) => !Number.isInteger(r.cost))).toBe(true);
    expect(results.details.summary).toEqual([totalsOf(rows)]);
  });

  it('lists every call with the same usual members as the call list by user when the template is CallListWithDetails', () => {
    // Prepare
    const details = new Map((results.details.data as DetailRow[]).map((r) => [r.connId, r]));
    // Assess
    for (const row of results.byUser.data as ResultRow[]) {
      const { accountCode, queueSeconds, cost, recorded, trunk, ...usual } = details.get(
        row.connId,
      ) as DetailRow;
      expect(usual).toEqual(row);
    }
    expect(details.size).toBeGreaterThan(results.byUser.data.length);
  });

  it('gives the same detail values when the same report is run again', async () => {
    // Act
    const again = await runReport(t, 'CallListWithDetails');
    // Assess
    expect(again.data).toEqual(results.details.data);
  });

  it('declares no start and no connId when the template is SummaryByUser', () => {
    // Assess
    expect(results.summary.request.reportTemplateName).toBe('SummaryByUser');
    expect(fieldNames(results.summary)).toEqual([
      'userName',
      'userNum',
      'calls',
      'ans',
      'ref',
      'lost',
      'ring',
      'duration',
    ]);
    expect(results.summary.request.sortFields).toEqual([{ fieldName: 'userNum', direction: 0 }]);
    for (const row of results.summary.data as Record<string, unknown>[]) {
      expect(row).not.toHaveProperty('start');
      expect(row).not.toHaveProperty('connId');
    }
  });

  it('sums per user exactly the rows of the call list by user over the same window when the template is SummaryByUser', () => {
    // Prepare
    const byUser = new Map<string, ResultRow[]>();
    for (const row of results.byUser.data as ResultRow[]) {
      const key = row.userNum as string;
      byUser.set(key, [...(byUser.get(key) ?? []), row]);
    }
    const rows = results.summary.data as UserTotalsRow[];
    // Assess
    expect(rows.map((r) => r.userNum)).toEqual([...byUser.keys()].sort());
    expect(results.summary.totalCount).toBe(rows.length);
    for (const row of rows) {
      const calls = byUser.get(row.userNum) ?? [];
      for (const key of ['calls', 'ans', 'ref', 'lost'] as const)
        expect(Number.isInteger(row[key])).toBe(true);
      expect(row).toEqual({
        userName: calls[0]?.userName,
        userNum: row.userNum,
        calls: calls.length,
        ...totalsOf(calls),
      });
    }
  });

  it('has the totals of its rows, which are those of the call list by user, in summary when the template is SummaryByUser', () => {
    // Assess
    const rows = results.summary.data as UserTotalsRow[];
    expect(results.summary.summary).toEqual([totalsOf(rows)]);
    expect(results.summary.summary).toEqual(results.byUser.summary);
  });

  it('has no rows and a zero summary when the window holds no calls', async () => {
    // Act: the first second of the Monday holds no call (with the default seed).
    const result = await runReport(t, 'SummaryByUser', '2026-03-23T00:00:00Z', '2026-03-23T00:00:01Z');
    // Assess
    expect(result.data).toEqual([]);
    expect(result.totalCount).toBe(0);
    expect(result.summary).toEqual([{ ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 }]);
  });

  it.each([
    ['CallListWithDetails', 'details'],
    ['SummaryByUser', 'summary'],
    ['CallListByUser', 'byUser'],
  ] as const)(
    'serves a summary that disagrees with the unchanged rows of %s once when a summary-mismatch fault is posted',
    async (templateName, report) => {
      // Prepare
      const admin = await fetch(`${t.sim.authUrl}/__admin/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ route: 'data', kind: 'summary-mismatch', reportId: reportIdOf(templateName) }),
        signal: AbortSignal.timeout(5000),
      });
      // Act
      const faulted = await runReport(t, templateName);
      const next = await runReport(t, templateName);
      // Assess
      expect(admin.status).toBe(201);
      const honest = results[report];
      expect(faulted.data).toEqual(honest.data);
      const [totals] = honest.summary as [Totals];
      expect(faulted.summary).toEqual([{ ...totals, ans: totals.ans + 1, duration: totals.duration + 60 }]);
      expect(faulted.summary).not.toEqual([totalsOf(faulted.data as Partial<Totals>[])]);
      expect(next.summary).toEqual(honest.summary);
    },
  );

  it('leaves other reports alone when the summary-mismatch fault names a report', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'data', kind: 'summary-mismatch', reportId: reportIdOf('SummaryByUser') });
    // Act
    const other = await runReport(t, 'CallListByUser');
    // Assess
    expect(other.summary).toEqual(results.byUser.summary);
    expect(t.sim.faults.pending()).toHaveLength(1);
  });
});

describe('summaryMismatch and array rows', () => {
  let t: TestSim | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('makes every summary disagree with its rows when the simulator is started with summaryMismatch', async () => {
    // Prepare
    t = await startTestSim({ extraTemplates: true, summaryMismatch: true });
    // Act
    const results = [await runReport(t, 'SummaryByUser'), await runReport(t, 'SummaryByUser')];
    // Assess
    for (const result of results) {
      const totals = totalsOf(result.data as UserTotalsRow[]);
      expect(result.summary).toEqual([{ ...totals, ans: totals.ans + 1, duration: totals.duration + 60 }]);
    }
  });

  it('writes the members of both templates as arrays ordered like displayFields when rowFormat is array', async () => {
    // Prepare
    const objects = await startTestSim({ extraTemplates: true });
    const expected = {
      details: await runReport(objects, 'CallListWithDetails'),
      summary: await runReport(objects, 'SummaryByUser'),
    };
    await objects.close();
    t = await startTestSim({ extraTemplates: true, rowFormat: 'array' });
    // Act
    const details = await runReport(t, 'CallListWithDetails');
    const summary = await runReport(t, 'SummaryByUser');
    // Assess
    for (const [result, objectForm] of [
      [details, expected.details],
      [summary, expected.summary],
    ] as const) {
      const names = fieldNames(result);
      expect(names).toEqual(fieldNames(objectForm));
      expect(result.data.length).toBeGreaterThan(0);
      const asArrays = (objectForm.data as Record<string, unknown>[]).map((row) =>
        names.map((name) => row[name] ?? null),
      );
      expect(result.data).toEqual(asArrays);
      expect(result.summary).toEqual(objectForm.summary);
    }
    const trunk = (details.data[0] as unknown[])[fieldNames(details).indexOf('trunk')];
    expect(trunk).toEqual({ id: expect.any(String), name: expect.any(String) });
  });
});
