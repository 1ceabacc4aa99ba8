import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { icebergRead } from 'icebird';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContactRow, contactsColumns, encodeContactsParquet } from '../../../../lib/export/contacts';
import {
  commitDirectoriesOverwrite,
  commitOverwrite,
  type DirectoryDataFile,
  directoryDataPrefix,
  directoryLiveFiles,
  ensureTable,
  fileSchema,
  type IcebergTable,
  listSnapshots,
  loadTable,
  tableLocation,
} from '../../../../lib/export/table';
import { directoriesPlan } from '../../../../lib/export/table/snapshot/replace-directories';
import { fileCatalogOf, LocalDirectoryStore } from '../../../../lib/stores';
import { duckdbQuery, sqlString } from '../../../support/duckdb';
import { useStoreFetch } from '../../../support/store-fetch';

const PREFIX = 'lake';
const COLUMNS = contactsColumns();

function row(tenant: string, directoryId: string, itemId: string, fullName: string): ContactRow {
  return {
    tenant,
    directoryId,
    directoryName: `Directory ${directoryId}`,
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

describe('directoriesPlan', () => {
  const location = tableLocation(new LocalDirectoryStore(tmpdir()), PREFIX, 'contacts');
  const file = (tenant: string, d: string, name: string): DirectoryDataFile => ({
    key: `${directoryDataPrefix(location.key, tenant, d)}/${name}.parquet`,
    rows: 1,
    bytes: 10,
  });

  it("replaces only the tenant's listed directories, never another tenant's or directory's", () => {
    // Act
    const plan = directoriesPlan(location, {
      tenant: 'acme',
      directories: [{ directoryId: 'd1', files: [file('acme', 'd1', 'a')] }],
      summary: {},
    });

    // Assess
    expect(plan.replaces({ tenant: 'acme', directory_id: 'd1' })).toBe(true);
    expect(plan.replaces({ tenant: 'acme', directory_id: 'd2' })).toBe(false);
    expect(plan.replaces({ tenant: 'globex', directory_id: 'd1' })).toBe(false);
    expect(plan.replaces({ tenant: 'acme', report_id: 'd1', dt: 1 })).toBe(false);
    expect(plan.adds.map((f) => f.partition)).toEqual([{ tenant: 'acme', directory_id: 'd1' }]);
  });

  it('refuses a file outside its partition prefix, naming it', () => {
    const stray = file('globex', 'd1', 'x');
    expect(() =>
      directoriesPlan(location, {
        tenant: 'acme',
        directories: [{ directoryId: 'd1', files: [stray] }],
        summary: {},
      }),
    ).toThrow(stray.key);
  });
});

describe('commitDirectoriesOverwrite', () => {
  let root: string;
  let table: IcebergTable;
  const useFetch = useStoreFetch();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-contacts-'));
    const store = new LocalDirectoryStore(root);
    table = {
      catalog: fileCatalogOf({ store, prefix: PREFIX }),
      id: { namespace: '', name: 'contacts' },
      location: tableLocation(store, PREFIX, 'contacts'),
    };
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function sync(tenant: string, directoryId: string, rows: ContactRow[], name: string) {
    const loaded = await ensureTable(table, COLUMNS, { tenant });
    const bytes = encodeContactsParquet(COLUMNS, rows, { iceberg: fileSchema(loaded) });
    const key = `${directoryDataPrefix(table.location.key, tenant, directoryId)}/${name}.parquet`;
    await table.location.store.putIfAbsent(key, bytes);
    return await commitDirectoriesOverwrite(table, {
      tenant,
      directories: [{ directoryId, files: [{ key, rows: rows.length, bytes: bytes.length }] }],
      summary: { 'report-export.run-id': name },
    });
  }

  async function read(snapshotId?: number) {
    useFetch(table.location.store);
    const loaded = await ensureTable(table, COLUMNS, { tenant: 'acme' });
    const log = loaded.metadata.snapshots.findIndex((s) => s['snapshot-id'] === snapshotId);
    const rows = await icebergRead({
      tableUrl: table.location.uri,
      ...(snapshotId === undefined ? {} : { metadataFileName: `v${log + 2}.metadata.json` }),
    });
    return rows.map((r) => `${r.tenant}/${r.directory_id}/${r.item_id}=${r.full_name}`).sort();
  }

  it("replaces one directory's partition per commit, one snapshot each, others untouched", async () => {
    // Prepare: two tenants, two directories of acme.
    const first = await sync('acme', 'd1', [row('acme', 'd1', 'i1', 'Ann')], 'run-1');
    await sync('acme', 'd2', [row('acme', 'd2', 'i2', 'Bob')], 'run-2');
    await sync('globex', 'd1', [row('globex', 'd1', 'i3', 'Cy')], 'run-3');

    // Act: acme's d1 synced again.
    const second = await sync(
      'acme',
      'd1',
      [row('acme', 'd1', 'i1', 'Anne'), row('acme', 'd1', 'i4', 'Dee')],
      'run-4',
    );

    // Assess
    expect(second).toMatchObject({ addedFiles: 1, deletedFiles: 1, addedRows: 2, deletedRows: 1 });
    expect((await listSnapshots(table)).snapshots).toHaveLength(4);
    expect(await read()).toEqual(['acme/d1/i1=Anne', 'acme/d1/i4=Dee', 'acme/d2/i2=Bob', 'globex/d1/i3=Cy']);
    expect(await read(first.snapshotId)).toEqual(['acme/d1/i1=Ann']);
    // DuckDB reads the live files of the partitions by their keys, independently of icebird.
    const live = await directoryLiveFiles(
      (await loadTable(table)) as NonNullable<Awaited<ReturnType<typeof loadTable>>>,
      'acme',
      'd1',
    );
    const paths = live.map((f) => sqlString(f.file_path.replace(/^file:\/\//, ''))).join(', ');
    const duck = await duckdbQuery(
      `select item_id, full_name from read_parquet([${paths}]) order by item_id`,
    );
    expect(duck).toEqual([
      { item_id: 'i1', full_name: 'Anne' },
      { item_id: 'i4', full_name: 'Dee' },
    ]);
    const loaded = await ensureTable(table, COLUMNS, { tenant: 'globex' });
    expect(loaded.metadata['partition-specs'][0]?.fields.map((f) => [f.name, f['field-id']])).toEqual([
      ['tenant', 1000],
      ['directory_id', 1001],
    ]);
    expect((await directoryLiveFiles(loaded, 'globex', 'd1')).map((f) => Number(f.record_count))).toEqual([
      1,
    ]);
  });

  it('creates a single-tenant contacts table partitioned by directory_id alone, and refuses a report commit to it', async () => {
    // Act
    const loaded = await ensureTable(table, contactsColumns({ tenanted: false }));

    // Assess
    expect(loaded.metadata['partition-specs'][0]?.fields.map((f) => [f.name, f['field-id']])).toEqual([
      ['directory_id', 1000],
    ]);
    await expect(
      commitOverwrite(table, { reportId: 'r1', dts: ['2026-11-24'], files: [], summary: {} }),
    ).rejects.toThrow(/partitioned by directory_id/);
  });
});
