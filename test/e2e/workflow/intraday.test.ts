import * as fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSnapshots } from '../../../lib/export/table';
import type { LocalTenant } from '../../../lib/local/local-tenants';
import type { LocalWorkflowResult } from '../../../lib/local/run-workflow';
import { ManualClock } from '../../../lib/simulator/clock';
import { startHarness, type WorkflowHarness } from './harness';
import { dayOf, expectServiceRows, lakeTable, runRecordAt } from './lake';

/**
 * One service clock for three tenants in three zones, moved by the test: the local service
 * answers a run with the calls started before the run was created, and stamps the run's
 * `dateCreated` with its clock, which is what the export judges a day provisional by.
 *
 * In November London is UTC, New York UTC-5, Sydney UTC+11: at 20:00Z it is 20:00 on the 19th
 * in London, 15:00 on the 19th in New York and 07:00 on the 20th in Sydney (its today is the
 * others' tomorrow). Each tenant's night settles its own day at 02:00 of its own next day.
 */
const FIRST = '2026-11-19T20:00:00.000Z';
const SECOND = '2026-11-19T23:00:00.000Z';
/** 02:00 in London on the 20th: London's night; 21:00 on the 19th in New York, 13:00 on the 20th in Sydney. */
const LONDON_NIGHT = '2026-11-20T02:00:00.000Z';
/** 02:00 in New York on the 20th. */
const NEW_YORK_NIGHT = '2026-11-20T07:00:00.000Z';
/** 02:00 in Sydney on the 21st. */
const SYDNEY_NIGHT = '2026-11-20T15:00:00.000Z';

/** Each zone's today at FIRST and SECOND: the day its refreshes write. */
const TODAY: Record<string, string> = {
  'Europe/London': '2026-11-19',
  'America/New_York': '2026-11-19',
  'Australia/Sydney': '2026-11-20',
};

const clock = new ManualClock(Date.parse(FIRST));
let h: WorkflowHarness;
beforeAll(async () => {
  h = await startHarness({
    tenancy: 'multi',
    // No latency: a run completes at once on a clock that only moves when told. Tokens live
    // longer than the test's day, which the clock crosses in jumps.
    simulator: { rowsPerDay: 400, clock, reportLatencyMs: 0, accessTokenTtlSeconds: 7 * 86_400 },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

function tenantIn(zone: string): LocalTenant {
  const t = h.deployment.tenants.find((x) => x.entry.timeZone === zone);
  if (t === undefined) throw new Error(`no local tenant in ${zone}`);
  return t;
}

/** Runs each input with the service's clock at `at`; every execution must succeed. */
async function runAt(at: string, inputs: Record<string, unknown>[]): Promise<LocalWorkflowResult[]> {
  clock.set(Date.parse(at));
  const results = await Promise.all(inputs.map((input) => h.deployment.run(input)));
  for (const [i, r] of results.entries()) expect([inputs[i], r.status]).toEqual([inputs[i], 'SUCCEEDED']);
  return results;
}

const refresh = (t: LocalTenant, at: string) => ({ tenant: t.id, intraday: true, scheduledTime: at });
const night = (t: LocalTenant, at: string) => ({ tenant: t.id, scheduledTime: at });

/** The calls table's rows of one tenant's day (icebird, current snapshot). */
async function dayRows(t: LocalTenant, dt: string): Promise<Record<string, unknown>[]> {
  return (await h.tableRows('calls')).filter((r) => r.tenant === t.id && dayOf(r) === dt);
}

async function callSnapshots(): Promise<number> {
  return (await listSnapshots(lakeTable(h.s3.store(), 'calls'))).snapshots.length;
}

/**
 * Each execution landed as one snapshot per table (every job's commit names one), and the
 * calls table grew by at least one and at most one per execution (the committer may land
 * executions of several tenants that commit at once in one snapshot).
 */
async function expectOneSnapshotEach(results: LocalWorkflowResult[], before: number): Promise<number> {
  for (const result of results) {
    const record = await runRecordAt(h.s3.store(), result.summaries[0]?.runRecordKey as string);
    for (const job of record.jobs) {
      expect(job.commit?.status).toBe('committed');
      expect(job.commit?.snapshots).toHaveLength(1);
    }
  }
  const after = await callSnapshots();
  expect(after - before).toBeGreaterThanOrEqual(1);
  expect(after - before).toBeLessThanOrEqual(results.length);
  return after;
}

/** The service's rows of a run, read with the tenant's own token (as its functions read them). */
async function serviceRowsOf(t: LocalTenant, report: string, requestId: string) {
  const secret = JSON.parse(await fs.readFile(t.secretFile, 'utf8')) as { service: { accessToken: string } };
  const url = `${h.deployment.sim.baseUrl}/v1.0/workspaces/${t.entry.workspaceId}/reports/${report}/results/${requestId}/data`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${secret.service.accessToken}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

/**
 * Asserts that a tenant's day in the table is exactly what the service sent for the run that
 * wrote it, report by report, every row `provisional` as given, none started after `asOf`.
 */
async function expectDay(t: LocalTenant, dt: string, provisional: boolean, asOf: string): Promise<number> {
  const rows = await dayRows(t, dt);
  expect(rows.length, `${t.id} ${dt}`).toBeGreaterThan(0);
  expect(new Set(rows.map((r) => r.provisional))).toEqual(new Set([provisional]));
  for (const r of rows) expect((r.start_utc as Date).getTime()).toBeLessThan(Date.parse(asOf));
  for (const report of new Set(rows.map((r) => String(r.report_id)))) {
    const ofReport = rows.filter((r) => r.report_id === report);
    const requests = [...new Set(ofReport.map((r) => String(r.request_id)))];
    expect(requests, `${t.id} ${dt} ${report}: one run wrote the day`).toHaveLength(1);
    const sent = await serviceRowsOf(t, report, requests[0] as string);
    expectServiceRows(ofReport, sent, { requestId: requests[0] as string });
  }
  return rows.length;
}

describe('intraday refreshes and the night that settles the day (three zones, one service clock)', () => {
  it("writes today so far as provisional, replaces it with more, and settles it after each tenant's midnight", async () => {
    const [london, newYork, sydney] = ['Europe/London', 'America/New_York', 'Australia/Sydney'].map(
      tenantIn,
    ) as [LocalTenant, LocalTenant, LocalTenant];
    const tenants = [london, newYork, sydney];
    const today = (t: LocalTenant) => TODAY[t.entry.timeZone] as string;
    let snapshots = await callSnapshots();

    // Act 1: a refresh of every tenant at 20:00Z.
    const first = await runAt(
      FIRST,
      tenants.map((t) => refresh(t, FIRST)),
    );

    // Assess 1: each tenant's own today, provisional, as the service had it; one snapshot each.
    expect(first.map((r) => r.executions.length)).toEqual([1, 1, 1]);
    const counts1 = new Map<string, number>();
    for (const t of tenants) counts1.set(t.id, await expectDay(t, today(t), true, FIRST));
    snapshots = await expectOneSnapshotEach(first, snapshots);
    // Sydney's today (the 20th) is the others' tomorrow: nobody else has rows there.
    const all1 = await h.tableRows('calls');
    expect(new Set(all1.map((r) => `${r.tenant}|${dayOf(r)}`))).toEqual(
      new Set(tenants.map((t) => `${t.id}|${today(t)}`)),
    );

    // Act 2: three hours later, a refresh of every tenant.
    const second = await runAt(
      SECOND,
      tenants.map((t) => refresh(t, SECOND)),
    );

    // Assess 2: the days replaced (never held for growing), still provisional, with more calls.
    for (const t of tenants) {
      const n = await expectDay(t, today(t), true, SECOND);
      expect(n, t.id).toBeGreaterThanOrEqual(counts1.get(t.id) as number);
      counts1.set(t.id, n);
    }
    snapshots = await expectOneSnapshotEach(second, snapshots);
    const sum1 = [...counts1.values()].reduce((a, b) => a + b, 0);
    expect(sum1).toBeGreaterThan(all1.length);

    // Act 3: London's night (02:00 there), while New York (21:00 on the 19th) and Sydney
    // (13:00 on the 20th) refresh.
    await runAt(LONDON_NIGHT, [
      night(london, LONDON_NIGHT),
      refresh(newYork, LONDON_NIGHT),
      refresh(sydney, LONDON_NIGHT),
    ]);

    // Assess 3: London's 19th settled, whole; the others still provisional.
    const londonSettled = await expectDay(london, '2026-11-19', false, LONDON_NIGHT);
    expect(londonSettled).toBeGreaterThanOrEqual(counts1.get(london.id) as number);
    await expectDay(newYork, '2026-11-19', true, LONDON_NIGHT);
    await expectDay(sydney, '2026-11-20', true, LONDON_NIGHT);

    // Act 4 and 5: New York's night, then Sydney's.
    await runAt(NEW_YORK_NIGHT, [night(newYork, NEW_YORK_NIGHT)]);
    await runAt(SYDNEY_NIGHT, [night(sydney, SYDNEY_NIGHT)]);

    // Assess: every tenant's day settled, exact, in its own zone's partitions only.
    await expectDay(newYork, '2026-11-19', false, NEW_YORK_NIGHT);
    await expectDay(sydney, '2026-11-20', false, SYDNEY_NIGHT);
    await expectDay(london, '2026-11-19', false, LONDON_NIGHT);
    const all = await h.tableRows('calls');
    expect(new Set(all.map((r) => `${r.tenant}|${dayOf(r)}|${r.provisional}`))).toEqual(
      new Set(tenants.map((t) => `${t.id}|${today(t)}|false`)),
    );
    // The summaries (totals per user) of the same days carry the same marker.
    const summaries = await h.tableRows('summaries');
    if (summaries.length > 0) {
      expect(new Set(summaries.map((r) => `${r.tenant}|${dayOf(r)}|${r.provisional}`))).toEqual(
        new Set(
          tenants
            .filter((t) => summaries.some((r) => r.tenant === t.id))
            .map((t) => `${t.id}|${today(t)}|false`),
        ),
      );
    }
  }, 240_000);
});
