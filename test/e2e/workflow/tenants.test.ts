import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalWorkflowResult } from '../../../lib/local/run-workflow';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { exportedRows, startHarness, type WorkflowHarness } from './harness';

/**
 * 02:00 UTC on Thursday 2026-11-19: 02:00 in London, 21:00 the evening before in New York,
 * 13:00 in Sydney. Each tenant's schedule fires at 02:00 of its own today, so the three
 * nights export different days in different zones: a run that took any other zone than
 * its tenant's would export another day.
 */
const NOW = new Date('2026-11-19T02:00:00Z');

/** Each zone's scheduled time at NOW (its 02:00 today) and the local yesterday of it. */
const NIGHTS: Record<string, { scheduledTime: string; day: string }> = {
  'Europe/London': { scheduledTime: '2026-11-19T02:00:00.000Z', day: '2026-11-18' },
  'America/New_York': { scheduledTime: '2026-11-18T07:00:00.000Z', day: '2026-11-17' },
  'Australia/Sydney': { scheduledTime: '2026-11-18T15:00:00.000Z', day: '2026-11-18' },
};

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startHarness({ tenancy: 'multi', simulator: { rowsPerDay: 60 } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Every tenant's nightly input at NOW, run at once; the results by tenant id. */
async function runNights(): Promise<Map<string, LocalWorkflowResult>> {
  const tenants = h.deployment.tenants;
  const results = await Promise.all(
    tenants.map((t) => h.deployment.run(h.deployment.nightlyInput(t.id, NOW))),
  );
  return new Map(tenants.map((t, i) => [t.id, results[i] as LocalWorkflowResult]));
}

/** `tenant|dt|rows` of a dataset's table at its current snapshot, read with icebird. */
async function icebirdCounts(dataset: 'calls' | 'summaries'): Promise<string[]> {
  const counts = new Map<string, number>();
  for (const row of await h.tableRows(dataset)) {
    const key = `${String(row.tenant)}|${(row.dt as Date).toISOString().slice(0, 10)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key}|${n}`).sort();
}

describe('export workflow with three tenants in three zones (one lake, local engine, S3 on fauxqs)', () => {
  it("exports each tenant's own local yesterday from its nightly input, its rows only in its own partitions", async () => {
    // Prepare: the registry the deployment wrote, one tenant per zone.
    const tenants = h.deployment.tenants;
    expect(tenants.map((t) => t.entry.timeZone).sort()).toEqual(Object.keys(NIGHTS).sort());
    for (const t of tenants) {
      expect(h.deployment.nightlyInput(t.id, NOW)).toEqual({
        tenant: t.id,
        scheduledTime: NIGHTS[t.entry.timeZone]?.scheduledTime,
      });
    }

    // Act
    const results = await runNights();

    // Assess: every night succeeded and published its tenant's local yesterday, nothing else.
    const expected: string[] = [];
    for (const t of tenants) {
      const result = results.get(t.id) as LocalWorkflowResult;
      expect(result.status, t.id).toBe('SUCCEEDED');
      expect(exportedRows(result), t.id).toBeGreaterThan(0);
      expected.push(`${t.id}|${NIGHTS[t.entry.timeZone]?.day}|${exportedRows(result)}`);
    }
    // icebird (an independent Iceberg reader): each tenant's rows are its night's, on its day.
    expect(await icebirdCounts('calls')).toEqual(expected.sort());
    expect(await icebirdCounts('summaries')).toEqual([]);

    // DuckDB over the same files: the tenant column of every row is the tenant of the
    // partition its data file is in (tables), and every CSV row is a row of its tenant's.
    const lake = `${await h.download()}/lake`;
    const data = sqlString(`${lake}/tables/calls/data/**/*.parquet`);
    const [tables] = await duckdbQuery(
      `SELECT count(*)::INTEGER AS n,
              count(*) FILTER (WHERE tenant <> regexp_extract(filename, '/tenant=([^/]+)/', 1))::INTEGER AS misplaced
       FROM read_parquet(${data}, filename = true, hive_partitioning = false, union_by_name = true)`,
    );
    expect(tables).toEqual({ n: expected.reduce((n, e) => n + Number(e.split('|')[2]), 0), misplaced: 0 });
    const csv = sqlString(`${lake}/calls/format=csv/tenant=*/report_id=*/dt=*/*.csv`);
    const [csvRows] = await duckdbQuery(
      `WITH t AS (SELECT tenant, report_id, conn_id FROM read_parquet(${data}, hive_partitioning = false, union_by_name = true)),
            c AS (SELECT tenant, report_id, conn_id FROM read_csv(${csv}, hive_partitioning = true, header = true, all_varchar = true, union_by_name = true))
       SELECT count(*)::INTEGER AS n,
              count(*) FILTER (WHERE NOT EXISTS (
                SELECT 1 FROM t WHERE t.tenant = c.tenant AND t.report_id = c.report_id AND t.conn_id = c.conn_id))::INTEGER AS foreign_rows
       FROM c`,
    );
    expect(csvRows).toEqual({ n: (tables as { n: number }).n, foreign_rows: 0 });
    // The tenants' calls are their own (the check above could not tell otherwise).
    const [shared] = await duckdbQuery(
      `SELECT count(*)::INTEGER AS n FROM (
         SELECT conn_id FROM read_parquet(${data}, hive_partitioning = false)
         GROUP BY conn_id HAVING count(DISTINCT tenant) > 1)`,
    );
    expect(shared?.n).toBe(0);
    // Each run record is under its tenant's prefix and names it.
    const records = await h.runRecords();
    expect(records.map((r) => r.tenant).sort()).toEqual(tenants.map((t) => t.id).sort());
  }, 240_000);
});

describe('export workflow with a tenant whose grant was revoked', () => {
  it('fails that tenant alone, with a notice and a run record naming it, while the others publish', async () => {
    // Prepare: the service revokes every grant of one tenant (its access and refresh tokens).
    const [revoked, ...others] = h.deployment.tenants;
    if (revoked === undefined) throw new Error('no tenant');
    h.deployment.sim.revokeTenantGrants(revoked.serviceTenantId);

    // Act: every tenant's night at once.
    const results = await runNights();

    // Assess: the revoked tenant's night failed on its login, and told someone, naming it.
    const failed = results.get(revoked.id) as LocalWorkflowResult;
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toBe('LoginRequiredError');
    expect(failed.notifications).toHaveLength(1);
    expect(JSON.stringify(failed.notifications)).toContain(revoked.id);
    const records = await h.runRecords();
    const record = records.find((r) => r.tenant === revoked.id && r.status === 'FAILED');
    expect(record?.runId).toBe(failed.summaries[0]?.runId);
    // The others published their nights, and sent nothing.
    for (const t of others) {
      const result = results.get(t.id) as LocalWorkflowResult;
      expect(result.status, t.id).toBe('SUCCEEDED');
      expect(result.notifications, t.id).toEqual([]);
      expect(exportedRows(result), t.id).toBeGreaterThan(0);
    }
    const counts = await icebirdCounts('calls');
    for (const t of others) {
      const n = exportedRows(results.get(t.id) as LocalWorkflowResult);
      expect(counts).toContain(`${t.id}|${NIGHTS[t.entry.timeZone]?.day}|${n}`);
    }
  }, 240_000);
});
