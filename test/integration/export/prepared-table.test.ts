import { describe, expect, it } from 'vitest';
import {
  EXPORT_ERROR_CODES,
  ensureTable,
  exportReportResult,
  lakeTable,
  loadTable,
  tableSchema,
} from '../../../lib/export';
import { fileCatalogOf, type LocalDirectoryStore, listAll } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { useServedLakes } from './served-lakes';

const DAYS = ['2026-11-20', '2026-11-21'];
const TENANT = 'acme';
const PROMOTED = { calls: [{ name: 'queueName', type: 'string' as const }] };

describe("a deferred export (a tenant's session) and its table", () => {
  const lake = useServedLakes('prepared-table-');

  const tablesOf = (store: LocalDirectoryStore) => ({
    catalog: fileCatalogOf({ store, prefix: '' }),
    namespace: '',
  });
  const calls = (store: LocalDirectoryStore) => lakeTable({ store, prefix: '', ...tablesOf(store) }, 'calls');
  const keys = async (store: LocalDirectoryStore, prefix: string) =>
    (await listAll(store, prefix)).map((o) => o.key).sort();

  function deferred(store: LocalDirectoryStore, commit: 'defer' | 'now' = 'defer') {
    return exportReportResult({
      source: resultStreamOf(callsOn(DAYS, 2, 'r1'), { requestId: 'req-1' }),
      store,
      reportId: 'r1',
      tenant: TENANT,
      windowDates: DAYS,
      encodeWorker: false,
      promotedColumns: PROMOTED,
      tables: tablesOf(store),
      commit,
    });
  }

  it('refuses a table that lacks a column the run writes, naming both, and writes no metadata or data file', async () => {
    // Prepare: the table as the committer made it before queueName was promoted.
    const store = await lake();
    await ensureTable(calls(store), tableSchema(), { tenant: TENANT });
    const metadata = await keys(store, 'tables/calls/metadata/');

    // Act
    const refused = await deferred(store).catch((e: unknown) => e);

    // Assess
    expect(refused).toMatchObject({ code: EXPORT_ERROR_CODES.tableNotPrepared });
    expect((refused as Error).message).toMatch(/^Table calls lacks column queue_name: /);
    expect(await keys(store, 'tables/calls/metadata/')).toEqual(metadata);
    expect(await keys(store, 'tables/calls/data/')).toEqual([]);
    expect(await keys(store, '_staging/')).toEqual([]);
  });

  it('refuses a table that does not exist, and creates none', async () => {
    // Prepare
    const store = await lake();

    // Act
    const refused = await deferred(store).catch((e: unknown) => e);

    // Assess
    expect(refused).toMatchObject({ code: EXPORT_ERROR_CODES.tableNotPrepared });
    expect((refused as Error).message).toMatch(/^Table calls does not exist: /);
    expect(await keys(store, 'tables/')).toEqual([]);
    expect(await loadTable(calls(store))).toBeUndefined();
  });

  it('stages into a table the committer prepared, leaving its metadata as it was', async () => {
    // Prepare
    const store = await lake();
    await ensureTable(calls(store), tableSchema({ promoted: PROMOTED.calls }), { tenant: TENANT });
    const metadata = await keys(store, 'tables/calls/metadata/');

    // Act
    const summary = await deferred(store);

    // Assess
    expect(summary.staged?.dts).toEqual(DAYS);
    expect(await keys(store, 'tables/calls/metadata/')).toEqual(metadata);
  });

  it('still creates and evolves the table itself when it commits now (the CLI)', async () => {
    // Prepare
    const store = await lake();
    await ensureTable(calls(store), tableSchema(), { tenant: TENANT });

    // Act
    const summary = await deferred(store, 'now');

    // Assess
    expect(summary.table?.table).toBe('calls');
    const fields = (await loadTable(calls(store)))?.metadata.schemas.at(-1)?.fields ?? [];
    expect(fields.map((f) => f.name)).toContain('queue_name');
  });
});
