import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES } from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import {
  COMMIT_REQUESTS_KEY,
  commitOverwrite,
  commitOverwriteGrouped,
  ensureTable,
  type IcebergTable,
  type LoadedTable,
  listSnapshots,
  liveFiles,
  type NewDataFile,
  type OverwriteChange,
} from '../../../../lib/export/table';
import { newRequest, requestKey, requestsPrefix } from '../../../../lib/export/table/commit/commit-requests';
import { listAll, type ObjectStore } from '../../../../lib/stores';
import { useStoreFetch } from '../../../support/store-fetch';
import { useTempDir } from '../../../support/test-scope';
import { catalogWith, fileTable, readBack, testRows, unknownOnce, writeDataFile } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const DAYS = ['2026-11-24', '2026-11-25'];
const TENANTS = Array.from({ length: 12 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);

/** A tenant's data file of report r1 on `dt`, at the key a tenant's run writes (`data/tenant=<t>/...`). */
async function tenantFile(
  table: IcebergTable,
  loaded: LoadedTable,
  tenant: string,
  dt: string,
  tag: string,
): Promise<NewDataFile> {
  const file = await writeDataFile(table, loaded, 'r1', dt, testRows(`${tenant}/${dt}/${tag}`, 3), tenant);
  const key = `${table.location.key}/data/tenant=${tenant}/report_id=r1/dt=${dt}/${tag}.parquet`;
  await table.location.store.copy(file.key, key);
  await table.location.store.deleteMany([file.key]);
  return { ...file, key };
}

async function tenantChange(
  table: IcebergTable,
  loaded: LoadedTable,
  tenant: string,
  tag = 'run',
): Promise<OverwriteChange & { tenant: string }> {
  const files = await Promise.all(DAYS.map((dt) => tenantFile(table, loaded, tenant, dt, tag)));
  return {
    tenant,
    reportId: 'r1',
    dts: DAYS,
    files,
    summary: { 'report-export.run-id': `${tenant}-${tag}` },
  };
}

async function tenantTable(root: string): Promise<{ table: IcebergTable; loaded: LoadedTable }> {
  const table = fileTable(root);
  return { table, loaded: await ensureTable(table, CALLS, { tenant: 'tenant-00' }) };
}

const requestKeys = async (table: IcebergTable) =>
  (await listAll(table.location.store, requestsPrefix(table.location))).map((o) => o.key);

describe('commitOverwriteGrouped', () => {
  const dir = useTempDir('iceberg-group-');
  const useFetch = useStoreFetch();

  it('lands every one of 12 concurrent tenant writers in far fewer snapshots and conflicts than ungrouped commits', async () => {
    // Prepare
    const grouped = await tenantTable(`${dir()}/grouped`);
    const ungrouped = await tenantTable(`${dir()}/ungrouped`);
    const changes = await Promise.all(TENANTS.map((t) => tenantChange(grouped.table, grouped.loaded, t)));
    const baseline = await Promise.all(
      TENANTS.map((t) => tenantChange(ungrouped.table, ungrouped.loaded, t)),
    );

    // Act
    const results = await Promise.all(
      changes.map((c) => commitOverwriteGrouped(grouped.table, c, { followerWaitMs: 100 })),
    );
    const before = await Promise.all(
      baseline.map((c) => commitOverwrite(ungrouped.table, c, { maxAttempts: 40, baseDelayMs: 5 })),
    );

    // Assess: each writer's own counts; the snapshots carry every request once.
    for (const r of results) expect(r).toMatchObject({ addedFiles: 2, addedRows: 6, deletedFiles: 0 });
    const { snapshots } = await listSnapshots(grouped.table);
    expect(snapshots.length).toBeLessThanOrEqual(TENANTS.length / 2);
    expect(new Set(results.map((r) => r.snapshotId))).toEqual(
      new Set(snapshots.map((s) => s['snapshot-id'])),
    );
    const carried = snapshots.flatMap((s) => s.summary[COMMIT_REQUESTS_KEY]?.split(',') ?? []);
    expect(carried).toHaveLength(TENANTS.length);
    const conflicts = (rs: { conflicts: number }[]) => rs.reduce((n, r) => n + r.conflicts, 0);
    expect(conflicts(results)).toBeLessThan(conflicts(before));
    expect(conflicts(results)).toBeLessThan(TENANTS.length / 2);
    // Every writer's rows read back; no request object is left.
    useFetch(grouped.table.location.store);
    const rows = (await icebergRead({ tableUrl: grouped.table.location.uri })).map(readBack);
    expect(rows.map((r) => r.conn_id).sort()).toEqual(
      TENANTS.flatMap((t) =>
        DAYS.flatMap((dt) => testRows(`${t}/${dt}/run`, 3).map((r) => r.conn_id)),
      ).sort(),
    );
    expect(await requestKeys(grouped.table)).toEqual([]);
  });

  it('never carries two requests of one tenant partition in one snapshot: the later replaces the earlier', async () => {
    // Prepare: an older request of acme's partitions, its writer gone quiet (not yet expired).
    const { table, loaded } = await tenantTable(`${dir()}/same-partition`);
    const older = newRequest(await tenantChange(table, loaded, 'acme', 'older'), Date.now() - 1_000, 300_000);
    await table.location.store.put(requestKey(table.location, older), JSON.stringify(older));
    const newer = await tenantChange(table, loaded, 'acme', 'newer');

    // Act
    const result = await commitOverwriteGrouped(table, newer, { followerWaitMs: 1, followerWaits: 1 });

    // Assess: two snapshots, the older request's first; the newer one's files are what is live.
    const { snapshots } = await listSnapshots(table);
    expect(snapshots.map((s) => s.summary[COMMIT_REQUESTS_KEY]?.split(',').length)).toEqual([1, 1]);
    expect(snapshots[0]?.summary[COMMIT_REQUESTS_KEY]).toBe(older.requestId);
    expect(snapshots[1]?.summary['report-export.run-id']).toBe('acme-newer');
    expect(result).toMatchObject({
      snapshotId: snapshots[1]?.['snapshot-id'],
      deletedFiles: 2,
      addedFiles: 2,
    });
    const { files } = await liveFiles(table);
    expect(files.map((f) => f.key).sort()).toEqual(newer.files.map((f) => f.key).sort());
    expect(await requestKeys(table)).toEqual([]);
  });

  it("skips an expired request of a dead writer and another writer's invalid request, deletes the expired one and sets the invalid one aside", async () => {
    // Prepare
    const { table, loaded } = await tenantTable(`${dir()}/expired`);
    const store = table.location.store;
    const dead = newRequest(
      await tenantChange(table, loaded, 'globex', 'dead'),
      Date.now() - 600_000,
      300_000,
    );
    await store.put(requestKey(table.location, dead), JSON.stringify(dead));
    // A body naming another tenant than its key (a tenant's session writes only its own keys).
    const forged = newRequest(
      await tenantChange(table, loaded, 'initech', 'forged'),
      Date.now() - 1_000,
      300_000,
    );
    const forgedKey = requestKey(table.location, { ...forged, tenant: 'umbrella' });
    await store.put(forgedKey, JSON.stringify(forged));

    // Act
    const result = await commitOverwriteGrouped(table, await tenantChange(table, loaded, 'acme'), {
      followerWaitMs: 1,
      followerWaits: 1,
    });

    // Assess
    const { files } = await liveFiles(table);
    expect(new Set(files.map((f) => f.tenant))).toEqual(new Set(['acme']));
    const { snapshots } = await listSnapshots(table);
    expect(snapshots).toHaveLength(1);
    expect(result.snapshotId).toBe(snapshots[0]?.['snapshot-id']);
    // The invalid one is set aside (named, so it costs no later writer); the expired one deleted.
    expect(await requestKeys(table)).toEqual([]);
    expect(result).toMatchObject({
      setAside: [
        { key: forgedKey, tenant: 'umbrella', reason: expect.stringMatching(/not the one its key names/) },
      ],
    });
  });

  it('returns the snapshot of another writer that committed its request, finding it on its next attempt', async () => {
    // Prepare: acme's commit meets globex's, which carried acme's pending request.
    const { table, loaded } = await tenantTable(`${dir()}/carried`);
    const acme = await tenantChange(table, loaded, 'acme');
    const globex = await tenantChange(table, loaded, 'globex');
    let theirs: Awaited<ReturnType<typeof commitOverwriteGrouped>> | undefined;
    const racing = {
      ...table,
      catalog: catalogWith(table.catalog, async (real, { n }) => {
        if (n === 1) theirs = await commitOverwriteGrouped(table, globex, { followerWaits: 0 });
        return await real();
      }),
    };

    // Act
    const mine = await commitOverwriteGrouped(racing, acme, { baseDelayMs: 1, followerWaits: 0 });

    // Assess: one snapshot, globex's, carrying both; acme's own counts.
    const { snapshots } = await listSnapshots(table);
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]?.summary[COMMIT_REQUESTS_KEY]?.split(',')).toHaveLength(2);
    expect(mine).toMatchObject({
      snapshotId: theirs?.snapshotId,
      attempts: 2,
      conflicts: 1,
      addedFiles: 2,
      addedRows: 6,
    });
    expect(racing.catalog.commits).toBe(1);
    expect(await requestKeys(table)).toEqual([]);
  });

  it("tries a listing of the requests again when it fails (one that met another writer's deletion)", async () => {
    // Prepare: the store's first two listings of the requests fail.
    const { table, loaded } = await tenantTable(`${dir()}/listing`);
    const store = table.location.store;
    let failures = 2;
    const flaky: ObjectStore = {
      rootUri: store.rootUri,
      put: (...a) => store.put(...a),
      putIfAbsent: (...a) => store.putIfAbsent(...a),
      putFile: (...a) => store.putFile(...a),
      putFileIfAbsent: (...a) => store.putFileIfAbsent(...a),
      get: (key) => store.get(key),
      head: (key) => store.head(key),
      deleteMany: (keys) => store.deleteMany(keys),
      copy: (from, to) => store.copy(from, to),
      list: (prefix) =>
        prefix.includes('/commit-requests/') && failures-- > 0
          ? (async function* () {
              yield* [];
              throw new Error("ENOENT: no such file or directory, stat '...json' (test)");
            })()
          : store.list(prefix),
    };
    const change = await tenantChange(table, loaded, 'acme');

    // Act
    const result = await commitOverwriteGrouped(
      { ...table, location: { ...table.location, store: flaky } },
      change,
    );

    // Assess
    expect(failures).toBeLessThan(0);
    expect(result).toMatchObject({ attempts: 1, conflicts: 0, addedFiles: 2 });
    expect((await liveFiles(table)).files).toHaveLength(2);
  });

  it('deletes its request but keeps its data files when it gives up (another commit may name them)', async () => {
    // Prepare
    const { table, loaded } = await tenantTable(`${dir()}/aborted`);
    const change = await tenantChange(table, loaded, 'acme');
    const aborted = AbortSignal.abort(new Error('deadline (test)'));

    // Act
    const failure = commitOverwriteGrouped(table, change, { signal: aborted });

    // Assess
    await expect(failure).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.aborted });
    expect(await requestKeys(table)).toEqual([]);
    for (const f of change.files) expect(await table.location.store.head(f.key)).toBeDefined();
    expect((await listSnapshots(table)).snapshots).toEqual([]);
  });

  it('finds its batch by its request id after a commit whose outcome was unknown, and lands it once', async () => {
    // Prepare: the first commit lands but its reply is lost.
    const { table, loaded } = await tenantTable(`${dir()}/unknown`);
    const change = await tenantChange(table, loaded, 'acme');
    const lost = { ...table, catalog: unknownOnce(table.catalog, true) };

    // Act
    const result = await commitOverwriteGrouped(lost, change, { baseDelayMs: 1 });

    // Assess
    const { snapshots } = await listSnapshots(table);
    expect(snapshots).toHaveLength(1);
    expect(result).toMatchObject({ snapshotId: snapshots[0]?.['snapshot-id'], addedFiles: 2, addedRows: 6 });
    expect(lost.catalog.commits).toBe(1);
    expect(await requestKeys(table)).toEqual([]);
  });
});
