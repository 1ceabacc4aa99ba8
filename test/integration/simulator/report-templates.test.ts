import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import type { Envelope, ReportRequest, ReportResult, ResultRow } from '../../../lib/spec/types';
import { startTestSim, type TestSim } from './sim-harness';

const START = '2026-03-23T00:00:00+00:00';
const END = '2026-03-26T00:00:00+00:00';

interface Report {
  workspaceId: string;
  reportId: string;
}

/** Requests the report over [START, END) and reads its whole result. */
async function runReport(t: TestSim, { workspaceId, reportId }: Report): Promise<ReportResult> {
  const base = `/workspaces/${workspaceId}/reports/${reportId}`;
  const created = (await (
    await t.api(`${base}/requests`, {
      method: 'POST',
      body: { reportId, dateFilter: { start: START, end: END } },
    })
  ).json()) as Envelope<ReportRequest>;
  return (await (await t.api(`${base}/results/${created.data.requestId}/data`)).json()) as ReportResult;
}

describe('report templates over HTTP', () => {
  let t: TestSim;
  const seed = createSeed(DEFAULT_SEED);
  const reportOf = (templateName: string, workspaceIndex = 0): Report => {
    const ws = seed.workspaces[workspaceIndex];
    const report = ws?.reports.find((r) => r.templateName === templateName);
    if (!ws || !report) throw new Error(`no seeded ${templateName} report`);
    return { workspaceId: ws.id, reportId: report.id };
  };
  let results: Record<'user' | 'huntGroup' | 'lost' | 'support', ReportResult>;

  beforeAll(async () => {
    t = await startTestSim();
    results = {
      user: await runReport(t, reportOf('CallListByUser')),
      huntGroup: await runReport(t, reportOf('CallListByHuntGroup')),
      lost: await runReport(t, reportOf('LostCalls')),
      support: await runReport(t, reportOf('CallListByUser', 1)),
    };
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    { report: 'user', template: 'CallListByUser', keeps: (r: ResultRow) => r.userName !== undefined },
    { report: 'huntGroup', template: 'CallListByHuntGroup', keeps: (r: ResultRow) => r.hgNum !== undefined },
    { report: 'lost', template: 'LostCalls', keeps: (r: ResultRow) => r.lost === 1 },
    { report: 'support', template: 'CallListByUser', keeps: (r: ResultRow) => r.userName !== undefined },
  ] as const)(
    'serves only rows the $template template keeps, with totalCount and summary of those rows',
    ({ report, template, keeps }) => {
      // Prepare
      const result = results[report];
      const rows = result.data as ResultRow[];
      const sum = (key: 'ans' | 'ref' | 'lost' | 'ring' | 'duration') =>
        rows.reduce((s, r) => s + Number(r[key] ?? 0), 0);
      // Assess
      expect(result.request.reportTemplateName).toBe(template);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every(keeps)).toBe(true);
      expect(Number(result.totalCount)).toBe(rows.length);
      expect(result.summary).toEqual([
        { ans: sum('ans'), ref: sum('ref'), lost: sum('lost'), ring: sum('ring'), duration: sum('duration') },
      ]);
    },
  );

  it('gives each template different rows when run over the same window', () => {
    // Prepare
    const ids = (r: ReportResult) => new Set((r.data as ResultRow[]).map((row) => row.connId));
    const [user, huntGroup, lost] = [ids(results.user), ids(results.huntGroup), ids(results.lost)];
    const lostHuntGroupCalls = (results.lost.data as ResultRow[]).filter((r) => r.hgNum !== undefined);
    // Assess
    expect(new Set([user.size, huntGroup.size, lost.size]).size).toBe(3);
    // A lost hunt-group call reached no user: listed as lost and by hunt group, not by user.
    expect(lostHuntGroupCalls.length).toBeGreaterThan(0);
    for (const row of lostHuntGroupCalls) {
      expect(huntGroup.has(row.connId)).toBe(true);
      expect(user.has(row.connId)).toBe(false);
    }
    // Same calls in the second workspace's report of the same template.
    expect(ids(results.support)).toEqual(user);
  });
});
