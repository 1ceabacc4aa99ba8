import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSnapshots } from '../../../lib/export/table';
import { startLocalDeployment } from '../../../lib/local/local-deployment';
import { listAll, type ObjectStore } from '../../../lib/stores';
import { startHarness, type WorkflowHarness } from './harness';
import { lakeTable, runRecordAt } from './lake';

let h: WorkflowHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The snapshots each table lists now (none before its first commit). */
async function snapshotIds(store: ObjectStore): Promise<Record<'calls' | 'summaries', number[]>> {
  const ids = async (dataset: 'calls' | 'summaries') =>
    (await listSnapshots(lakeTable(store, dataset))).snapshots.map((s) => s['snapshot-id']);
  return { calls: await ids('calls'), summaries: await ids('summaries') };
}

describe('the Commit task (synthesized state machine, the bundled functions, S3 on fauxqs)', () => {
  it('lands one execution of five reports over two days as exactly one snapshot per table, each job naming it', async () => {
    // Prepare: five reports (a summary among them, run day by day: several staged runs a job).
    h = await startHarness({ simulator: { extraTemplates: true } });
    const store = h.s3.store();
    expect(h.deployment.reports).toHaveLength(5);
    const before = await snapshotIds(store);

    // Act: one execution, every report, two days.
    const run = await h.deployment.run({ from: '2026-11-17', to: '2026-11-18' }, { name: 'two-days' });

    // Assess: one new snapshot in each table, current, the one every job's record names.
    expect(run.status).toBe('SUCCEEDED');
    expect(run.executions).toHaveLength(1);
    const after = await snapshotIds(store);
    const added = {
      calls: after.calls.filter((id) => !before.calls.includes(id)),
      summaries: after.summaries.filter((id) => !before.summaries.includes(id)),
    };
    expect(added.calls).toHaveLength(1);
    expect(added.summaries).toHaveLength(1);
    const record = await runRecordAt(store, run.summaries[0]?.runRecordKey as string);
    expect(record.jobs).toHaveLength(5);
    for (const job of record.jobs) {
      expect(job.status).toBe('SUCCEEDED');
      expect(job.commit?.status).toBe('committed');
      expect(job.commit?.invalidRuns).toBe(0);
      const landed = job.commit?.snapshots.map((s) => s.snapshotId) ?? [];
      expect(landed.length).toBe(1);
      expect([...added.calls, ...added.summaries]).toContain(landed[0]);
    }
    // Both formats agree on the table's current snapshot (icebird and DuckDB read back).
    const counts = await h.countRows();
    expect(counts.parquet).toBe(counts.csv);
    expect(Object.keys(counts.byDay)).toEqual(['2026-11-17', '2026-11-18']);
    // Nothing of the run's staging is left once it landed.
    expect(await listAll(store, 'lake/_staging/')).toEqual([]);
  }, 240_000);

  it('creates both tables on an empty lake in PrepareTables, before the jobs, and lands the rows in them', async () => {
    // Prepare: a lake with no table yet.
    h = await startHarness({ simulator: { extraTemplates: true } });
    const store = h.s3.store();
    expect(await listAll(store, 'lake/tables/')).toEqual([]);

    // Act
    const run = await h.deployment.run({ date: '2026-11-18' }, { name: 'empty-lake' });

    // Assess: PrepareTables ran after Plan and before the Map; both tables hold the run's rows.
    expect(run.status).toBe('SUCCEEDED');
    const entered = (run.executions[0]?.events ?? [])
      .filter((e) => e.type === 'StateEntered' && e.parentState === undefined)
      .map((e) => e.state?.name);
    const at = (name: string) => entered.indexOf(name);
    expect(at('PrepareTables')).toBeGreaterThan(at('Plan'));
    expect(at('ExportJobs')).toBeGreaterThan(at('PrepareTables'));
    const ids = await snapshotIds(store);
    expect(ids.calls).toHaveLength(1);
    expect(ids.summaries).toHaveLength(1);
    expect((await h.countRows()).parquet).toBeGreaterThan(0);
    expect((await h.tableRows('summaries')).length).toBeGreaterThan(0);
  }, 240_000);

  it('adds no snapshot when every partition of the run is held, and records no commit for it', async () => {
    // Prepare: a day published with 120 calls.
    h = await startHarness();
    const store = h.s3.store();
    const report = h.deployment.reports[0]?.name as string;
    const first = await h.deployment.run({ date: '2026-11-18', reports: [report] }, { name: 'first' });
    expect(first.status).toBe('SUCCEEDED');
    const before = await snapshotIds(store);

    // Act: the same lake, exported by a deployment whose service now has a tenth of the calls:
    // the shrink guard holds the day.
    const other = await startLocalDeployment({
      workDir: path.join(h.workDir, 'second-deployment'),
      objectStoreUri: h.deployment.env.OBJECT_STORE_URI as string,
      s3: () => h?.s3.client as WorkflowHarness['s3']['client'],
      s3Endpoint: h.s3.endpoint,
      simulator: { reportLatencyMs: 50, rowsPerDay: 12 },
    });
    let held: Awaited<ReturnType<typeof other.run>>;
    try {
      held = await other.run({ date: '2026-11-18', reports: [report] }, { name: 'held' });
    } finally {
      await other.close();
    }

    // Assess
    expect(held.status).toBe('SUCCEEDED');
    expect(held.summaries[0]?.heldPartitions).toBe(1);
    expect(await snapshotIds(store)).toEqual(before);
    const record = await runRecordAt(store, held.summaries[0]?.runRecordKey as string);
    expect(record.jobs[0]?.commit).toBeNull();
    expect(record.jobs[0]?.heldCount).toBe(1);
  }, 240_000);
});

describe('a failure inside Plan (synthesized state machine, multi-tenant)', () => {
  it('is recorded under the tenant its input names, and without a tenant when the input names none the registry has, notified at once neither', async () => {
    // Prepare
    h = await startHarness({ tenancy: 'multi' });
    const store = h.s3.store();
    const tenant = h.deployment.tenants[0]?.id as string;

    // Act: an input Plan refuses (no such date), of a registered tenant; and of an unknown one.
    const refused = await h.deployment.run({ tenant, date: '2026-13-45' }, { name: 'refused' });
    const unknown = await h.deployment.run(
      { tenant: 'nobody-here', date: '2026-11-18' },
      { name: 'unknown' },
    );

    // Assess: both failed as InvalidInputError, recorded; not urgent, so no immediate notice (the digest names it).
    expect(refused.status).toBe('FAILED');
    expect(refused.error).toBe('InvalidInputError');
    expect(unknown.error).toBe('InvalidInputError');
    const keys = (await listAll(store, 'lake/runs/')).map((o) => o.key);
    const ofTenant = keys.filter((k) => k.startsWith(`lake/runs/tenant=${tenant}/`));
    expect(ofTenant).toHaveLength(1);
    expect(ofTenant[0]).toMatch(/\.failure\.json$/);
    const record = await runRecordAt(store, ofTenant[0] as string);
    expect(record.tenant).toBe(tenant);
    expect(record.error).toBe('InvalidInputError');
    expect(refused.summaries[0]?.tenant).toBe(tenant);
    expect(refused.notifications).toEqual([]);
    expect(unknown.notifications).toEqual([]);
    // An unregistered tenant's failure is recorded without a tenant (no prefix of its own).
    expect(unknown.summaries[0]?.tenant).toBeNull();
    expect(keys.filter((k) => /^lake\/runs\/dt=/.test(k))).toHaveLength(1);
  });
});
