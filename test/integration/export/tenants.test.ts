import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES, type ExportSummary, exportReportResult } from '../../../lib/export';
import { liveFiles, loadTable, tableLocation } from '../../../lib/export/table';
import type { ResultRow } from '../../../lib/spec/types';
import { fileCatalogOf, type LocalDirectoryStore, listAll } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { useServedLakes } from './served-lakes';

const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];
const REPORT = 'report-1';

describe('two tenants in one lake (the tenant a column and the first partition of every table)', () => {
  /** A lake of its own for each test. */
  const lake = useServedLakes('tenants-export-');

  function run(
    store: LocalDirectoryStore,
    tenant: string | undefined,
    rows: ResultRow[],
    requestId: string,
    options: { dates?: string[]; tables?: boolean } = {},
  ): Promise<ExportSummary> {
    return exportReportResult({
      source: resultStreamOf(rows, { requestId }),
      store,
      reportId: REPORT,
      ...(tenant === undefined ? {} : { tenant }),
      windowDates: options.dates ?? DAYS,
      encodeWorker: false,
      ...(options.tables === false
        ? {}
        : { tables: { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' } }),
    });
  }

  const table = (store: LocalDirectoryStore) => ({
    catalog: fileCatalogOf({ store, prefix: '' }),
    id: { namespace: '', name: 'calls' },
    location: tableLocation(store, '', 'calls'),
  });

  /** `tenant conn_id` of every row icebird reads from the calls table. */
  async function tableRows(store: LocalDirectoryStore): Promise<string[]> {
    const rows = await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` });
    return rows.map((r) => `${String(r.tenant)} ${String(r.conn_id)}`).sort();
  }

  const tagged = (tenant: string, rows: ResultRow[]) => rows.map((r) => `${tenant} ${String(r.connId)}`);

  it("keeps each tenant's rows in its own partitions of the one table and of the CSV; a re-run replaces only its own", async () => {
    const store = await lake();
    const acme = callsOn(DAYS, 3, 'acme');
    const globex = callsOn(DAYS, 2, 'globex');

    const one = await run(store, 'acme', acme, 'req-acme-1');
    const two = await run(store, 'globex', globex, 'req-globex-1');

    // The summary names the tenant.
    expect(one).toMatchObject({ tenant: 'acme', rows: 9, table: { table: 'calls' } });
    expect(two).toMatchObject({ tenant: 'globex', rows: 6 });
    // icebird reads the one table: each row with its tenant's value in the tenant column.
    expect(await tableRows(store)).toEqual([...tagged('acme', acme), ...tagged('globex', globex)].sort());
    // The table: tenant the first column (required string), spec tenant 1000, report_id 1001, dt 1002.
    const loaded = await loadTable(table(store));
    const schema = loaded?.metadata.schemas.at(-1);
    expect(schema?.fields[0]).toMatchObject({ id: 1, name: 'tenant', type: 'string', required: true });
    expect(schema?.fields.at(-1)).toMatchObject({ name: 'dt', type: 'date', required: true });
    expect(loaded?.metadata['partition-specs'][0]?.fields).toEqual([
      { 'source-id': 1, 'field-id': 1000, name: 'tenant', transform: 'identity' },
      { 'source-id': expect.any(Number), 'field-id': 1001, name: 'report_id', transform: 'identity' },
      { 'source-id': schema?.fields.at(-1)?.id, 'field-id': 1002, name: 'dt', transform: 'identity' },
    ]);
    // Every data file lies under its tenant's partition, which the manifests name.
    const { files } = await liveFiles(table(store));
    expect(files).toHaveLength(6);
    for (const f of files) {
      expect(f.key).toMatch(
        new RegExp(`^tables/calls/data/tenant=${f.tenant}/report_id=${REPORT}/dt=${f.dt}/[^/]+\\.parquet$`),
      );
    }

    // DuckDB over the data files: the tenant column of each file is the tenant of its path.
    const data = await duckdbQuery(
      `SELECT DISTINCT tenant, regexp_extract(filename, 'tenant=([a-z0-9-]+)/', 1) AS path_tenant FROM read_parquet(${sqlString(
        `${store.root}/tables/calls/data/*/*/*/*.parquet`,
      )}, filename = true, hive_partitioning = false) ORDER BY tenant`,
    );
    expect(data).toEqual([
      { tenant: 'acme', path_tenant: 'acme' },
      { tenant: 'globex', path_tenant: 'globex' },
    ]);
    // DuckDB over the CSV: each tenant's partitions hold exactly its rows.
    const csvRows = async () =>
      (
        await duckdbQuery(
          `SELECT tenant, conn_id FROM read_csv(${sqlString(`${store.root}/calls/format=csv/*/*/*/*.csv`)}, hive_partitioning = true, all_varchar = true)`,
        )
      )
        .map((r) => `${String(r.tenant)} ${String(r.conn_id)}`)
        .sort();
    expect(await csvRows()).toEqual([...tagged('acme', acme), ...tagged('globex', globex)].sort());
    expect((await listAll(store, '_staging/')).map((o) => o.key)).toEqual([]);

    // A re-run of acme's middle day: its partition replaced; globex's of the same day untouched.
    const again = callsOn(['2026-11-21'], 4, 'acme-again');
    await run(store, 'acme', again, 'req-acme-2', { dates: ['2026-11-21'] });
    const acmeNow = [...acme.filter((r) => !String(r.start).startsWith('2026-11-21')), ...again];
    const want = [...tagged('acme', acmeNow), ...tagged('globex', globex)].sort();
    expect(await tableRows(store)).toEqual(want);
    expect(await csvRows()).toEqual(want);
  });

  it("two tenants' concurrent exports both land (the commit loop re-applies the other's)", async () => {
    const store = await lake();
    const acme = callsOn(DAYS, 2, 'acme');
    const globex = callsOn(DAYS, 2, 'globex');
    const [a, b] = await Promise.all([
      run(store, 'acme', acme, 'req-acme'),
      run(store, 'globex', globex, 'req-globex'),
    ]);
    expect([a.tenant, b.tenant]).toEqual(['acme', 'globex']);
    expect(await tableRows(store)).toEqual([...tagged('acme', acme), ...tagged('globex', globex)].sort());
  });

  it("the shrink guard compares with the tenant's own partitions only (table and Hive layout)", async () => {
    for (const tables of [true, false]) {
      const store = await lake();
      await run(store, 'acme', callsOn(DAYS, 4, 'acme'), 'req-1', { tables });
      // globex's first run over days acme filled: nothing of globex's is published, nothing held.
      const first = await run(store, 'globex', callsOn(DAYS, 1, 'globex'), 'req-2', { tables });
      expect(first.held).toEqual([]);
      // acme shrinking to a quarter is held against acme's 4 calls a day.
      const shrunk = await run(store, 'acme', callsOn(DAYS, 1, 'acme-less'), 'req-3', { tables });
      expect(shrunk.held.map((h) => h.dt)).toEqual(DAYS);
      if (!tables) {
        const keys = (await listAll(store, 'calls/format=parquet/')).map((o) => o.key);
        expect(
          keys.filter((k) => !/^calls\/format=parquet\/tenant=(acme|globex)\/report_id=/.test(k)),
        ).toEqual([]);
      }
    }
  });

  it('refuses a tenant export to a table without the tenant partition, and a tenant-less export to one with it', async () => {
    const single = await lake();
    await run(single, undefined, callsOn(DAYS, 1, 's'), 'req-1');
    const refused = run(single, 'acme', callsOn(DAYS, 1, 'a'), 'req-2');
    await expect(refused).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.tableInvalid });
    await expect(refused).rejects.toThrow(/calls has no tenant partition.*tenant 'acme'/);

    const multi = await lake();
    await run(multi, 'acme', callsOn(DAYS, 1, 'a'), 'req-1');
    const without = run(multi, undefined, callsOn(DAYS, 1, 's'), 'req-2');
    await expect(without).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.tableInvalid });
    await expect(without).rejects.toThrow(/calls is partitioned by tenant.*names no tenant/);
    // Nothing of the refused runs is in either lake.
    expect(await tableRows(multi)).toEqual(tagged('acme', callsOn(DAYS, 1, 'a')).sort());
    expect((await listAll(single, 'calls/format=csv/tenant=')).length).toBe(0);
  });
});
