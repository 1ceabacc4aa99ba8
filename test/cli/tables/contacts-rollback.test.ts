import { mkdir, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { acquireOutDirLock } from '../../../lib/cli/shared/out-dir-lock';
import { type ContactRow, contactsColumns, encodeContactsParquet } from '../../../lib/export/contacts';
import {
  commitDirectoriesOverwrite,
  directoryDataPrefix,
  ensureTable,
  fileSchema,
  type IcebergTable,
  listSnapshots,
  tableLocation,
} from '../../../lib/export/table';
import { fileCatalogOf, LocalDirectoryStore } from '../../../lib/stores';
import { runInProcess } from '../../support/cli-in-process';
import { useStoreFetch } from '../../support/store-fetch';
import { useTempDir } from '../../support/test-scope';
import { forcedRollback, writeTenantLake } from './tenant-lake';

/**
 * `tables rollback` of the contact tables (issue 29 on issue 28's rollback): a contacts
 * snapshot id moves the tenant's directory partitions back and nothing of the report
 * tables; a calls snapshot id moves the report tables and leaves the contact history.
 */

const COLUMNS = contactsColumns();

function contact(tenant: string, itemId: string, fullName: string): ContactRow {
  return {
    tenant,
    directoryId: 'd1',
    directoryName: 'Company contacts',
    itemId,
    fields: { fullName },
    extra: null,
    validFrom: 1_764_000_000_000,
    validTo: null,
    isCurrent: true,
    isDeleted: false,
    contentHash: `h-${itemId}-${fullName}`,
  };
}

describe('report-export tables rollback of the contact tables (a multi-tenant lake)', () => {
  const dir = useTempDir('contacts-rollback-');
  const serve = useStoreFetch();
  let lakes = 0;

  /** The report history of writeTenantLake, then acme's directory synced, bruin's, and acme's again. */
  async function lake() {
    const root = path.join(dir(), `lake-${++lakes}`);
    await mkdir(root);
    const store = new LocalDirectoryStore(root);
    serve(store);
    const reports = await writeTenantLake(store);
    const table: IcebergTable = {
      catalog: fileCatalogOf({ store, prefix: '' }),
      id: { namespace: '', name: 'contacts' },
      location: tableLocation(store, '', 'contacts'),
    };
    const sync = async (tenant: string, rows: ContactRow[], run: string) => {
      const loaded = await ensureTable(table, COLUMNS, { tenant });
      const bytes = encodeContactsParquet(COLUMNS, rows, { iceberg: fileSchema(loaded) });
      const key = `${directoryDataPrefix(table.location.key, tenant, 'd1')}/${run}.parquet`;
      await store.putIfAbsent(key, bytes);
      const done = await commitDirectoriesOverwrite(table, {
        tenant,
        directories: [{ directoryId: 'd1', files: [{ key, rows: rows.length, bytes: bytes.length }] }],
        summary: { 'report-export.run-id': run },
      });
      return done.snapshotId;
    };
    const contactsTarget = await sync('acme', [contact('acme', 'i1', 'Ann')], 'sync-a1');
    await sync('bruin', [contact('bruin', 'i3', 'Cy')], 'sync-b1');
    const contactsNow = await sync(
      'acme',
      [contact('acme', 'i1', 'Anne'), contact('acme', 'i4', 'Dee')],
      'sync-a2',
    );
    return { root, table, reports, contactsTarget, contactsNow };
  }

  const current = async (t: IcebergTable) => (await listSnapshots(t)).currentSnapshotId;
  const contactsOf = async (t: IcebergTable) =>
    (await icebergRead({ tableUrl: t.location.uri }))
      .map((r) => `${r.tenant}/${r.item_id}=${r.full_name}`)
      .sort();
  const reportSnapshots = async (root: string) =>
    (
      JSON.parse((await runInProcess(['tables', 'snapshots', '--dir', root, '--json'])).stdout) as {
        table: string;
        snapshotId: number;
        current: boolean;
      }[]
    )
      .filter((s) => s.current)
      .map((s) => [s.table, s.snapshotId]);

  it("rolls the tenant's directory partitions back to a contacts snapshot, in one snapshot, and leaves the report tables", async () => {
    // Prepare
    const { root, table, reports, contactsTarget, contactsNow } = await lake();

    // Act
    const run = await runInProcess(forcedRollback(root, contactsTarget, 'acme', '--json'));

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { tables: { table: string; csv?: unknown }[] };
    expect(out.tables.map((t) => t.table)).toEqual(['contacts']);
    expect(await contactsOf(table)).toEqual(['acme/i1=Ann', 'bruin/i3=Cy']);
    const { snapshots } = await listSnapshots(table);
    expect(snapshots).toHaveLength(4);
    expect(snapshots.at(-1)?.['parent-snapshot-id']).toBe(contactsNow);
    // The report tables' current snapshots are the history's, untouched; no CSV of contacts
    // (a dataset's CSV is <lake>/<dataset>/format=csv).
    const currents = await reportSnapshots(root);
    expect(currents).toContainEqual(['calls', reports.calls]);
    expect(currents).toContainEqual(['summaries', reports.summaries]);
    expect(await readdir(root)).not.toContain('contacts');
  });

  it('refuses while another report-export holds the local lake, naming it, and rolls nothing back', async () => {
    // Prepare: the lake held as an npm start running into it holds it.
    const { root, table, contactsNow, contactsTarget } = await lake();
    const held = await acquireOutDirLock(root);

    // Act
    let run: Awaited<ReturnType<typeof runInProcess>>;
    try {
      run = await runInProcess(forcedRollback(root, contactsTarget, 'acme'));
    } finally {
      await held.release();
    }

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`another report-export is writing ${root}`);
    expect(await current(table)).toBe(contactsNow);
  });

  it('leaves the contact history when a report snapshot is the target, and names all four tables for an unknown one', async () => {
    // Prepare
    const { root, table, reports, contactsNow } = await lake();

    // Act
    const run = await runInProcess(forcedRollback(root, reports.target, 'acme', '--json'));
    const unknown = await runInProcess(['tables', 'rollback', 'contact', '1', '--dir', root]);

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { tables: { table: string }[] };
    expect(out.tables.map((t) => t.table).sort()).toEqual(['calls', 'summaries']);
    expect(await current(table)).toBe(contactsNow);
    expect(await contactsOf(table)).toEqual(['acme/i1=Anne', 'acme/i4=Dee', 'bruin/i3=Cy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "unknown table 'contact'; tables: calls, summaries, contacts, contact_phones",
    );
  });
});
