import { describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES } from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import {
  commitOverwrite,
  ensureTable,
  initialSchema,
  liveFiles,
  loadTable,
} from '../../../../lib/export/table';
import { useTempDir } from '../../../support/test-scope';
import { catalogWith, fileTable } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });

describe('tables of a multi-tenant lake', () => {
  const dir = useTempDir('iceberg-tenancy-');

  it('creates a table for tenants with tenant first, the other columns in their order and the (tenant, report_id, dt) spec', async () => {
    const table = fileTable(dir());
    const loaded = await ensureTable(table, CALLS, { tenant: 'acme' });
    const [schema] = loaded.metadata.schemas;
    const single = initialSchema(CALLS).fields;
    expect(schema?.fields[0]).toMatchObject({ id: 1, name: 'tenant', type: 'string', required: true });
    // The single-tenant table's columns, each one id further on.
    expect(schema?.fields.slice(1)).toEqual(single.map((f) => ({ ...f, id: f.id + 1 })));
    const id = (name: string) => schema?.fields.find((f) => f.name === name)?.id;
    expect(loaded.metadata['partition-specs']).toEqual([
      {
        'spec-id': 0,
        fields: [
          { 'source-id': 1, 'field-id': 1000, name: 'tenant', transform: 'identity' },
          { 'source-id': id('report_id'), 'field-id': 1001, name: 'report_id', transform: 'identity' },
          { 'source-id': id('dt'), 'field-id': 1002, name: 'dt', transform: 'identity' },
        ],
      },
    ]);
    expect(loaded.metadata['last-partition-id']).toBe(1002);

    // Another tenant's run finds the table ready: no schema change (tenant stays required).
    await ensureTable(table, CALLS, { tenant: 'globex' });
    expect((await loadTable(table))?.metadata.schemas).toHaveLength(1);
  });

  it('refuses a change of the other tenancy in ensureTable and in a commit (EXPORT_TABLE_INVALID)', async () => {
    const tenants = fileTable(`${dir()}/a`);
    await ensureTable(tenants, CALLS, { tenant: 'acme' });
    const change = { reportId: 'r1', dts: ['2026-11-25'], files: [], summary: {} };
    await expect(ensureTable(tenants, CALLS)).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.tableInvalid,
    });
    await expect(commitOverwrite(tenants, change)).rejects.toThrow(/partitioned by tenant.*names no tenant/);

    const single = fileTable(`${dir()}/b`);
    await ensureTable(single, CALLS);
    await expect(ensureTable(single, CALLS, { tenant: 'acme' })).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.tableInvalid,
    });
    await expect(commitOverwrite(single, { ...change, tenant: 'acme' })).rejects.toThrow(
      /has no tenant partition.*tenant 'acme'/,
    );
  });

  it("re-applies a tenant's commit that met another tenant's on the same report and day: both land", async () => {
    const table = fileTable(`${dir()}/c`);
    await ensureTable(table, CALLS, { tenant: 'acme' });
    const day = '2026-11-25';
    const file = (tenant: string) => ({
      key: `${table.location.key}/data/tenant=${tenant}/report_id=r1/dt=${day}/${tenant}.parquet`,
      dt: day,
      rows: 2,
      bytes: 100,
    });
    const change = (tenant: string) => ({
      tenant,
      reportId: 'r1',
      dts: [day],
      files: [file(tenant)],
      summary: {},
    });
    // globex's commit meets acme's, committed between its read and its swap.
    const racing = {
      ...table,
      catalog: catalogWith(table.catalog, async (real, { n }) => {
        if (n === 1) await commitOverwrite(table, change('acme'));
        return await real();
      }),
    };

    const result = await commitOverwrite(racing, change('globex'), { baseDelayMs: 1 });

    expect(result).toMatchObject({ attempts: 2, conflicts: 1, deletedFiles: 0 });
    const { files } = await liveFiles(table);
    expect(files.map((f) => `${f.tenant} ${f.reportId} ${f.dt}`).sort()).toEqual([
      `acme r1 ${day}`,
      `globex r1 ${day}`,
    ]);
    // A re-run of acme's day replaces acme's file only.
    await commitOverwrite(table, { ...change('acme'), files: [] });
    expect((await liveFiles(table)).files.map((f) => f.tenant)).toEqual(['globex']);
  });
});
