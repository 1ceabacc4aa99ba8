import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { tableSchema } from '../../../../lib/export/schema';
import {
  commitOverwriteGrouped,
  ensureTable,
  type IcebergTable,
  type LoadedTable,
  listSnapshots,
  type NewDataFile,
  type OverwriteChange,
} from '../../../../lib/export/table';
import {
  type CommitRequest,
  INVALID_REQUESTS_FOLDER,
  newRequest,
  requestKey,
  requestsPrefix,
  timeOrderedId,
} from '../../../../lib/export/table/commit/commit-requests';
import { listAll, type ObjectStore } from '../../../../lib/stores';
import { overriding } from '../../../support/overriding-store';
import { useStoreFetch } from '../../../support/store-fetch';
import { useTempDir } from '../../../support/test-scope';
import { fileTable, testRows, writeDataFile } from './table-fixture';

// Replays of issue 28's defects: a committer carries another committer's pending request only
// once the objects confirm it; an invalid one is set aside, costs no later writer, and never
// breaks the table for the other tenants.

const CALLS = tableSchema({ dataset: 'calls' });
const DAYS = ['2026-11-24', '2026-11-25'];

async function tenantFile(
  t: IcebergTable,
  loaded: LoadedTable,
  tenant: string,
  dt: string,
  tag: string,
): Promise<NewDataFile> {
  const file = await writeDataFile(t, loaded, 'r1', dt, testRows(`${tenant}/${dt}/${tag}`, 3), tenant);
  const key = `${t.location.key}/data/tenant=${tenant}/report_id=r1/dt=${dt}/${tag}.parquet`;
  await t.location.store.copy(file.key, key);
  await t.location.store.deleteMany([file.key]);
  return { ...file, key };
}

async function change(
  t: IcebergTable,
  loaded: LoadedTable,
  tenant: string,
): Promise<OverwriteChange & { tenant: string }> {
  const files = await Promise.all(DAYS.map((dt) => tenantFile(t, loaded, tenant, dt, 'run')));
  return { tenant, reportId: 'r1', dts: DAYS, files, summary: { 'report-export.run-id': `${tenant}-run` } };
}

describe('grouped commit requests, validated by every committer that reads them', () => {
  const dir = useTempDir('iceberg-requests-');
  const useFetch = useStoreFetch();

  async function lake(name: string) {
    const table = fileTable(`${dir()}/${name}`);
    const loaded = await ensureTable(table, CALLS, { tenant: 'acme' });
    return { table, loaded, store: table.location.store };
  }
  const put = (store: ObjectStore, t: IcebergTable, r: CommitRequest, key = requestKey(t.location, r)) =>
    store.put(key, JSON.stringify(r)).then(() => key);
  const pending = async (t: IcebergTable) =>
    (await listAll(t.location.store, requestsPrefix(t.location))).map((o) => o.key);
  const setAside = async (t: IcebergTable) =>
    (await listAll(t.location.store, `${t.location.key}/${INVALID_REQUESTS_FOLDER}/`)).map((o) => o.key);
  /** Honest tenants' commits at once, then what a reader gets. */
  async function honestCommits(t: IcebergTable, loaded: LoadedTable, options = {}) {
    const changes = await Promise.all(['acme', 'globex'].map((tenant) => change(t, loaded, tenant)));
    const results = await Promise.all(
      changes.map((c) => commitOverwriteGrouped(t, c, { followerWaitMs: 20, ...options })),
    );
    useFetch(t.location.store);
    const rows = await icebergRead({ tableUrl: t.location.uri });
    const { snapshots, currentSnapshotId } = await listSnapshots(t);
    const current = snapshots.find((s) => s['snapshot-id'] === currentSnapshotId);
    return { results, rows, snapshots, current };
  }

  it('sets aside a forged request (a missing data file, rows 999999) and keeps every other commit and reader exact', async () => {
    // Prepare: mallory's requests: one names a file that does not exist, one claims 999999 rows of a real file.
    const { table, loaded, store } = await lake('forged');
    const real = await change(table, loaded, 'mallory');
    const ghost = newRequest(
      {
        ...real,
        files: [
          {
            ...(real.files[0] as NewDataFile),
            key: real.files[0]?.key.replace(/run\.parquet$/, 'ghost.parquet') as string,
            rows: 999_999,
          },
        ],
      },
      Date.now() - 2_000,
      300_000,
    );
    const inflated = newRequest(
      { ...real, files: real.files.map((f) => ({ ...f, rows: 999_999 })) },
      Date.now() - 1_000,
      300_000,
    );
    const keys = [await put(store, table, ghost), await put(store, table, inflated)];

    // Act
    const { results, rows, current } = await honestCommits(table, loaded);

    // Assess: exact totals (2 tenants x 2 days x 3 rows), every row readable, both requests named and gone.
    expect(current?.summary['total-records']).toBe('12');
    expect(rows).toHaveLength(12);
    expect(await pending(table)).toEqual([]);
    expect((await setAside(table)).sort()).toEqual(
      keys.map((k) => k.replace('/commit-requests/', `/${INVALID_REQUESTS_FOLDER}/`)).sort(),
    );
    const reasons = results.flatMap((r) => r.setAside.map((s) => s.reason)).join('\n');
    expect(reasons).toMatch(/ghost\.parquet does not exist/);
    expect(reasons).toMatch(/holds 3 rows by its footer, not the 999999 claimed/);
    expect(results.flatMap((r) => r.setAside.map((s) => s.tenant))).toEqual(
      expect.arrayContaining(['mallory']),
    );
  });

  it('never reads a 1.5 GB request (its HEAD says so), sets it aside, and commits the others', async () => {
    // Prepare: a request whose object the store reports as 1.5 GB (no such file is written: a read is counted instead).
    const { table, loaded, store } = await lake('huge');
    const huge = newRequest(await change(table, loaded, 'mallory'), Date.now() - 1_000, 300_000);
    const key = await put(store, table, huge);
    let reads = 0;
    const size = 1_500_000_000;
    const lying = overriding(store, {
      head: async (k) => (k === key ? { key: k, size } : await store.head(k)),
      list: (prefix) =>
        (async function* () {
          for await (const info of store.list(prefix)) yield info.key === key ? { ...info, size } : info;
        })(),
      get: async (k) => {
        if (k === key) reads++;
        return await store.get(k);
      },
    });
    const t = { ...table, location: { ...table.location, store: lying } };

    // Act
    const { results, rows, current } = await honestCommits(t, loaded);

    // Assess
    expect(reads).toBe(0);
    expect(current?.summary['total-records']).toBe('12');
    expect(rows).toHaveLength(12);
    expect(await pending(table)).toEqual([]);
    expect(results.flatMap((r) => r.setAside.map((s) => s.reason)).join('\n')).toMatch(
      /1500000000 bytes, larger than/,
    );
  });

  it('does not wait on a request dated in 2255 as on a live leader: it is set aside and the commit leads at once', async () => {
    // Prepare: createdAt in 2255 under a key of a second ago (it would lead forever), and one whose key itself is of 2255.
    const { table, loaded, store } = await lake('future');
    const in2255 = Date.UTC(2255, 0, 1);
    const body = newRequest(await change(table, loaded, 'mallory'), Date.now() - 1_000, 300_000);
    const stalled = { ...body, createdAt: in2255, expiresAt: in2255 + 300_000 };
    const later = {
      ...body,
      requestId: timeOrderedId(in2255),
      createdAt: in2255,
      expiresAt: in2255 + 300_000,
    };
    const keys = [await put(store, table, stalled), await put(store, table, later)];
    let looks = 0;
    const counting = overriding(store, {
      list: (prefix) => {
        if (prefix === requestsPrefix(table.location)) looks++;
        return store.list(prefix);
      },
    });
    const t = { ...table, location: { ...table.location, store: counting } };

    // Act: followers would look 50 times, 200 ms apart, before committing past a live leader.
    const acme = await commitOverwriteGrouped(t, await change(table, loaded, 'acme'));

    // Assess: it led at its first look (one look, then its commit's listing), and set both aside.
    expect(looks).toBeLessThanOrEqual(3);
    expect(acme).toMatchObject({ attempts: 1, addedRows: 6 });
    expect((await listSnapshots(table)).snapshots.at(-1)?.summary['total-records']).toBe('6');
    expect(await pending(table)).toEqual([]);
    expect(acme.setAside.map((s) => s.key).sort()).toEqual(keys.sort());
    expect(acme.setAside.map((s) => s.reason).join('\n')).toMatch(
      /not the time of its key|dated in the future/,
    );
  });

  it('commits alone, writing no request, a change whose request others would refuse as too large', async () => {
    // Prepare: 8,000 files (their keys alone pass MAX_REQUEST_BYTES).
    const { table, loaded, store } = await lake('large');
    const base = await change(table, loaded, 'acme');
    const file = base.files[0] as NewDataFile;
    const files = Array.from({ length: 8_000 }, (_, i) => ({
      ...file,
      key: file.key.replace(/run\.parquet$/, `run-${String(i).padStart(5, '0')}-${'x'.repeat(100)}.parquet`),
    }));
    let requestPuts = 0;
    const counting = overriding(store, {
      put: (key, body, options) => {
        if (key.startsWith(requestsPrefix(table.location))) requestPuts++;
        return store.put(key, body, options);
      },
    });

    // Act
    const result = await commitOverwriteGrouped(
      { ...table, location: { ...table.location, store: counting } },
      { ...base, files },
    );

    // Assess
    expect(requestPuts).toBe(0);
    expect(result).toMatchObject({ addedFiles: 8_000, setAside: [] });
    expect((await listSnapshots(table)).snapshots).toHaveLength(1);
  });
});
