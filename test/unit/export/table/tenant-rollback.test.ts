import { describe, expect, it } from 'vitest';
import { tableSchema } from '../../../../lib/export/schema';
import {
  commitOverwrite,
  commitTenantRollback,
  ensureTable,
  type IcebergTable,
  liveFiles,
  planTenantRollback,
  ROLLBACK_REFUSALS,
  RollbackRefusedError,
} from '../../../../lib/export/table';
import { useTempDir } from '../../../support/test-scope';
import { catalogWith, fileTable } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const D1 = '2026-11-24';
const D2 = '2026-11-25';

/** A data file of the tenant's report r1 on `dt` (its bytes are not read here: only its existence). */
async function commitFile(table: IcebergTable, tenant: string, dt: string, name: string): Promise<number> {
  const key = `${table.location.key}/data/tenant=${tenant}/report_id=r1/dt=${dt}/${name}.parquet`;
  await table.location.store.put(key, new Uint8Array([1, 2, 3]));
  const result = await commitOverwrite(table, {
    tenant,
    reportId: 'r1',
    dts: [dt],
    files: [{ key, dt, rows: 2, bytes: 3 }],
    summary: { 'report-export.run-id': name },
  });
  return result.snapshotId;
}

const live = async (table: IcebergTable) =>
  (await liveFiles(table)).files.map((f) => `${f.tenant} ${f.dt} ${f.key.split('/').pop()}`).sort();

describe('a tenant rollback (planTenantRollback, commitTenantRollback)', () => {
  const dir = useTempDir('tenant-rollback-');
  let n = 0;

  async function history(root: string) {
    const table = fileTable(root);
    await ensureTable(table, CALLS, { tenant: 'acme' });
    const target = await commitFile(table, 'acme', D1, 'a1');
    const acmeLater = await commitFile(table, 'acme', D1, 'a2');
    const bruinLater = await commitFile(table, 'bruin', D1, 'b1');
    return { table, target, acmeLater, bruinLater };
  }

  it("keeps another tenant's commit that lands during the rollback (the attempt meets it and re-applies)", async () => {
    // Prepare
    const root = `${dir()}/lake-${++n}`;
    const { table, target, acmeLater } = await history(root);
    const racing: IcebergTable = {
      ...table,
      catalog: catalogWith(table.catalog, async (real, { n }) => {
        if (n === 1) await commitFile(table, 'bruin', D2, 'b2');
        return await real();
      }),
    };
    const plan = await planTenantRollback(racing, 'acme', { snapshotId: target });

    // Act
    const result = await commitTenantRollback(plan, { who: 'test' }, { baseDelayMs: 1 });

    // Assess: acme's later snapshot is the one discarded; bruin's files (before and during) stay.
    expect(plan.discarded.map((s) => s['snapshot-id'])).toEqual([acmeLater]);
    expect(plan.partitions.map((p) => [p.dt, p.now.length, p.target.length])).toEqual([[D1, 1, 1]]);
    expect(result).toMatchObject({ attempts: 2, conflicts: 1, addedFiles: 1, deletedFiles: 1 });
    expect(await live(table)).toEqual([
      `acme ${D1} a1.parquet`,
      `bruin ${D1} b1.parquet`,
      `bruin ${D2} b2.parquet`,
    ]);
  });

  it('refuses when a commit of the same tenant lands during the rollback, naming it, and commits nothing', async () => {
    // Prepare
    const root = `${dir()}/lake-${++n}`;
    const { table, target } = await history(root);
    let landed: number | undefined;
    const racing: IcebergTable = {
      ...table,
      catalog: catalogWith(table.catalog, async (real, { n }) => {
        if (n === 1) landed = await commitFile(table, 'acme', D2, 'a3');
        return await real();
      }),
    };
    const plan = await planTenantRollback(racing, 'acme', { snapshotId: target });
    const before = await live(table);

    // Act
    const refused = await commitTenantRollback(plan, {}, { baseDelayMs: 1 }).catch((e: unknown) => e);

    // Assess
    expect(refused).toBeInstanceOf(RollbackRefusedError);
    expect(refused).toMatchObject({ reason: ROLLBACK_REFUSALS.landed, code: 'EXPORT_CONFIG_INVALID' });
    expect((refused as Error).message).toContain(String(landed));
    // Nothing of the rollback landed; acme's commit that met it stays.
    expect(await live(table)).toEqual([...before, `acme ${D2} a3.parquet`].sort());
  });

  it('refuses a target whose data files are gone, naming them; to before any snapshot empties the tenant only', async () => {
    // Prepare
    const root = `${dir()}/lake-${++n}`;
    const { table, target } = await history(root);
    const gone = (await liveFiles(table, { snapshotId: target })).files[0]?.key as string;
    await table.location.store.deleteMany([gone]);

    // Act
    const missing = await planTenantRollback(table, 'acme', { snapshotId: target }).catch((e: unknown) => e);
    const removal = await planTenantRollback(table, 'acme', undefined);
    await commitTenantRollback(removal, {});

    // Assess
    expect(missing).toMatchObject({ reason: ROLLBACK_REFUSALS.missingFiles });
    expect((missing as Error).message).toContain('a1.parquet');
    expect(await live(table)).toEqual([`bruin ${D1} b1.parquet`]);
  });
});
