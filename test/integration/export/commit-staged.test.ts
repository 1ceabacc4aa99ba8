import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import {
  type CommitTarget,
  commitStagedRuns,
  EXPORT_ERROR_CODES,
  ensureTable,
  exportReportResult,
  type StagedRunRef,
  tableSchema,
} from '../../../lib/export';
import { listSnapshots, tableLocation } from '../../../lib/export/table';
import type { ResultRow } from '../../../lib/spec/types';
import {
  type Catalog,
  fileCatalogOf,
  type LocalDirectoryStore,
  listAll,
  type ObjectStore,
  readObject,
} from '../../../lib/stores';
import { overriding } from '../../support/overriding-store';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { useServedLakes } from './served-lakes';

const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];
const TENANT = 'acme';
const REPORTS = ['r1', 'r2', 'r3', 'r4', 'r5'];

describe('commitStagedRuns (the committer: one snapshot per table for an execution)', () => {
  const lake = useServedLakes('commit-staged-');

  const catalogOf = (store: ObjectStore) => fileCatalogOf({ store, prefix: '' });

  /** A tenant's deferred run of `reportId` (ExportResults in the tenant's session). */
  async function defer(
    store: LocalDirectoryStore,
    reportId: string,
    rows: ResultRow[],
    requestId: string,
    tenant = TENANT,
  ): Promise<StagedRunRef> {
    await prepare(store, tenant);
    const summary = await exportReportResult({
      source: resultStreamOf(rows, { requestId }),
      store,
      reportId,
      tenant,
      windowDates: DAYS,
      encodeWorker: false,
      tables: { catalog: catalogOf(store), namespace: '' },
      commit: 'defer',
    });
    expect(summary.table).toBeUndefined();
    if (summary.staged === undefined) throw new Error('nothing staged');
    return summary.staged;
  }

  /** The committer's PrepareTables: a deferred run only reads its table. */
  const prepare = (store: ObjectStore, tenant: string) =>
    ensureTable(calls(store), tableSchema(), { tenant });

  const target = (store: ObjectStore, catalog: Catalog = catalogOf(store)): CommitTarget => ({
    store,
    prefix: '',
    tables: { catalog, namespace: '' },
    tenant: TENANT,
  });
  const calls = (store: ObjectStore) => ({
    catalog: catalogOf(store),
    id: { namespace: '', name: 'calls' },
    location: tableLocation(store, '', 'calls'),
  });
  /** `report conn_id` of every row icebird reads from the calls table. */
  const tableRows = async (store: LocalDirectoryStore) =>
    (await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` }))
      .map((r) => `${String(r.report_id)} ${String(r.conn_id)}`)
      .sort();
  const tagged = (reportId: string, rows: ResultRow[]) => rows.map((r) => `${reportId} ${String(r.connId)}`);
  const csvManifest = async (store: ObjectStore, reportId: string, dt: string) =>
    JSON.parse(
      Buffer.from(
        await readObject(
          store,
          `calls/format=csv/tenant=${TENANT}/report_id=${reportId}/dt=${dt}/_manifest.json`,
        ),
      ).toString('utf8'),
    ) as { runId: string; rows: number };
  const staging = async (store: ObjectStore) => (await listAll(store, '_staging/')).map((o) => o.key);

  it('lands five reports of one execution as ONE snapshot, the CSV with it, exactly once under a retry', async () => {
    // Prepare: five deferred runs; nothing is visible yet.
    const store = await lake();
    const rows = REPORTS.map((r) => callsOn(DAYS, 2, r));
    const refs = [];
    for (const [i, r] of REPORTS.entries())
      refs.push(await defer(store, r, rows[i] as ResultRow[], `req-${r}`));
    expect((await listSnapshots(calls(store))).snapshots).toEqual([]);
    expect(await listAll(store, 'calls/format=csv/')).toEqual([]);
    const locked: { reportId: string; dt: string }[][] = [];
    let released = 0;
    const lock = async (partitions: ReadonlyArray<{ reportId: string; dt: string }>) => {
      locked.push([...partitions]);
      return async () => {
        released++;
      };
    };

    // Act
    const result = await commitStagedRuns(target(store), refs, {
      lock,
      summary: { 'report-export.execution': 'e1' },
    });
    const again = await commitStagedRuns(target(store), refs, { lock });

    // Assess: one snapshot of every run, exact totals; icebird and the CSV read every row.
    const { snapshots } = await listSnapshots(calls(store));
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]?.summary).toMatchObject({
      'total-records': '30',
      'added-records': '30',
      'report-export.execution': 'e1',
    });
    expect(result.tables).toEqual([
      expect.objectContaining({
        dataset: 'calls',
        table: 'calls',
        snapshotId: snapshots[0]?.['snapshot-id'],
      }),
    ]);
    expect(result.runs.map((r) => [r.runId, r.status, r.rows, r.partitions])).toEqual(
      refs.map((r) => [r.runId, 'committed', 6, 3]),
    );
    expect(await tableRows(store)).toEqual(
      REPORTS.flatMap((r, i) => tagged(r, rows[i] as ResultRow[])).sort(),
    );
    for (const [i, r] of REPORTS.entries()) {
      expect(await csvManifest(store, r, DAYS[0] as string)).toMatchObject({
        runId: refs[i]?.runId,
        rows: 2,
      });
    }
    expect(locked).toEqual([REPORTS.flatMap((reportId) => DAYS.map((dt) => ({ reportId, dt })))]);
    expect(released).toBe(1);
    // Staging removed; the retry (a lost reply) returned the same result and landed nothing.
    expect(await staging(store)).toEqual([]);
    expect(again).toEqual(result);
  });

  it('sets aside forged, huge and future-dated staged runs, naming each, and commits the others exactly', async () => {
    // Prepare: five runs of five reports; four of them tampered with after staging.
    const store = await lake();
    const rows = REPORTS.map((r) => callsOn(DAYS, 2, r));
    const refs: StagedRunRef[] = [];
    for (const [i, r] of REPORTS.entries())
      refs.push(await defer(store, r, rows[i] as ResultRow[], `req-${r}`));
    const [good, inflated, missing, future, huge] = refs as [
      StagedRunRef,
      StagedRunRef,
      StagedRunRef,
      StagedRunRef,
      StagedRunRef,
    ];
    const edit = async (ref: StagedRunRef, change: (body: Record<string, unknown>) => void) => {
      const body = JSON.parse(Buffer.from(await readObject(store, ref.key)).toString('utf8'));
      change(body);
      await store.put(ref.key, JSON.stringify(body));
    };
    type Files = { key: string; rows: number; dt: string }[];
    await edit(inflated, (b) => {
      (b.files as Files)[0] = { ...(b.files as Files)[0], rows: 999_999 } as Files[0];
      (b.partitions as { rows: number }[])[0] = { ...(b.partitions as { rows: number }[])[0], rows: 999_999 };
    });
    await edit(missing, (b) => {
      const f = (b.files as Files)[0] as Files[0];
      (b.files as Files)[0] = { ...f, key: f.key.replace(/[^/]+$/, 'no-such-file.parquet') };
    });
    await edit(future, (b) => {
      b.createdAt = '2255-01-01T00:00:00.000Z';
    });
    // A 1.5 GB staged run object: its HEAD says so (no such file is written); a read would be counted.
    let hugeReads = 0;
    const committer = overriding(store, {
      head: async (key) => (key === huge.key ? { key, size: 1_500_000_000 } : await store.head(key)),
      get: async (key) => {
        if (key === huge.key) hugeReads++;
        return await store.get(key);
      },
    });

    // Act
    const result = await commitStagedRuns(target(committer), refs);

    // Assess: each invalid run named with what was wrong; only the good one landed, exactly.
    const byRun = new Map(result.runs.map((r) => [r.runId, r]));
    expect(byRun.get(good.runId)).toMatchObject({ status: 'committed', rows: 6 });
    expect(byRun.get(inflated.runId)?.reason).toMatch(/holds 2 rows by its footer, not the 999999 claimed/);
    expect(byRun.get(missing.runId)?.reason).toMatch(/no-such-file\.parquet does not exist/);
    expect(byRun.get(future.runId)?.reason).toMatch(/dated in the future \(2255/);
    expect(byRun.get(huge.runId)?.reason).toMatch(/1500000000 bytes, larger than .*not read/);
    for (const ref of [inflated, missing, future, huge]) {
      expect(byRun.get(ref.runId)).toMatchObject({
        status: 'invalid',
        rows: 0,
        reason: expect.stringContaining(ref.key),
      });
    }
    expect(hugeReads).toBe(0);
    const { snapshots } = await listSnapshots(calls(store));
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]?.summary['total-records']).toBe('6');
    expect(await tableRows(store)).toEqual(tagged('r1', rows[0] as ResultRow[]).sort());
    expect(await listAll(store, 'calls/format=csv/tenant=acme/report_id=r2/')).toEqual([]);
  });

  it('refuses a data file key with %2e%2e, one listed twice, and one another run of the execution names too', async () => {
    // Prepare: four runs; three edited after staging.
    const store = await lake();
    const refs: StagedRunRef[] = [];
    for (const r of ['r1', 'r2', 'r3', 'r4'])
      refs.push(await defer(store, r, callsOn(DAYS, 2, r), `req-${r}`));
    const [encoded, twice, first, copier] = refs as [StagedRunRef, StagedRunRef, StagedRunRef, StagedRunRef];
    type Body = {
      files: { key: string; dt: string; rows: number; bytes: number }[];
      partitions: { rows: number }[];
    };
    const read = async (ref: StagedRunRef) =>
      JSON.parse(Buffer.from(await readObject(store, ref.key)).toString('utf8')) as Body;
    const edit = async (ref: StagedRunRef, change: (body: Body) => void) => {
      const body = await read(ref);
      change(body);
      await store.put(ref.key, JSON.stringify(body));
    };
    await edit(encoded, (b) => {
      const f = b.files[0] as Body['files'][0];
      b.files[0] = { ...f, key: f.key.replace(/[^/]+$/, '%2e%2e/%2e%2e/x.parquet') };
    });
    await edit(twice, (b) => {
      b.files.push(b.files[0] as Body['files'][0]);
      (b.partitions[0] as { rows: number }).rows *= 2;
    });
    const firstFile = (await read(first)).files[0] as Body['files'][0];
    await edit(copier, (b) => {
      // r4 names r1's file: a key outside its report, so refused anyway; the same report's run is the real case.
      b.files[0] = { ...firstFile };
    });

    // Act
    const result = await commitStagedRuns(target(store), refs);

    // Assess
    const reasons = result.runs.map((r) => `${r.status} ${r.reason ?? ''}`);
    expect(reasons[0]).toMatch(/^invalid .*is not a file name under/);
    expect(reasons[1]).toMatch(/^invalid .*lists the data file .* twice/);
    expect(reasons[2]).toMatch(/^committed/);
    expect(reasons[3]).toMatch(/^invalid /);
    expect((await listSnapshots(calls(store))).snapshots.at(-1)?.summary['total-records']).toBe('6');
  });

  it('refuses the later of two runs of an execution that name the same data file', async () => {
    // Prepare: two runs of one report; the second's staged object names the first's file for its first day.
    const store = await lake();
    const one = await defer(store, 'r1', callsOn(DAYS, 2, 'one'), 'req-1');
    const two = await defer(store, 'r1', callsOn(DAYS, 2, 'two'), 'req-2');
    const body = (ref: StagedRunRef) =>
      readObject(store, ref.key).then((b) => JSON.parse(Buffer.from(b).toString('utf8')));
    const [b1, b2] = [await body(one), await body(two)];
    b2.files[0] = b1.files[0];
    await store.put(two.key, JSON.stringify(b2));

    // Act
    const result = await commitStagedRuns(target(store), [one, two]);

    // Assess: the first lands alone; the second is named; its file counted once.
    expect(result.runs.map((r) => r.status)).toEqual(['committed', 'invalid']);
    expect(result.runs[1]?.reason).toMatch(/is the staged run .* too/);
    expect((await listSnapshots(calls(store))).snapshots.at(-1)?.summary['total-records']).toBe('6');
  });

  it("refuses another tenant's staged run and a reference to another run's object", async () => {
    // Prepare
    const store = await lake();
    const own = await defer(store, 'r1', callsOn(DAYS, 1, 'r1'), 'req-1');
    const theirs = await defer(store, 'r2', callsOn(DAYS, 1, 'r2'), 'req-2', 'globex');
    const misnamed = { ...own, runId: 'another-run' };

    // Act
    const result = await commitStagedRuns(target(store), [theirs, misnamed]);

    // Assess: nothing committed, no snapshot, the tenant's staging left alone.
    expect(result.tables).toEqual([]);
    expect(result.runs.map((r) => r.status)).toEqual(['invalid', 'invalid']);
    expect(result.runs[0]?.reason).toMatch(/tenant globex's, not the execution's \(acme\)/);
    expect(result.runs[1]?.reason).toMatch(
      /its key is not _staging\/tenant=acme\/another-run\/_staged-run\.json/,
    );
    expect((await listSnapshots(calls(store))).snapshots).toEqual([]);
    expect(await staging(store)).toContain(own.key);
  });

  it('rolls the CSV back and keeps the staging when the commit fails; the retry lands it once', async () => {
    // Prepare: a first run landed; a second run of the same days staged.
    const store = await lake();
    const first = await defer(store, 'r1', callsOn(DAYS, 2, 'first'), 'req-1');
    await commitStagedRuns(target(store), [first]);
    const second = await defer(store, 'r1', callsOn(DAYS, 3, 'second'), 'req-2');
    let commits = 0;
    const inner = catalogOf(store);
    const failing: Catalog = {
      kind: inner.kind,
      load: (t) => inner.load(t),
      readMetadata: (l) => inner.readMetadata(l),
      commit: async () => {
        commits++;
        throw new Error('connection reset (test)');
      },
    };

    // Act
    const failure = await commitStagedRuns(target(store, failing), [second]).catch((e: unknown) => e);
    const csvAfterFailure = await csvManifest(store, 'r1', DAYS[0] as string);
    const stagingAfterFailure = await staging(store);
    const retried = await commitStagedRuns(target(store), [second]);

    // Assess
    expect(failure).toMatchObject({ code: EXPORT_ERROR_CODES.tableCommitFailed });
    expect(commits).toBe(1);
    expect(csvAfterFailure.runId).toBe(first.runId);
    expect(stagingAfterFailure).toContain(second.key);
    expect(retried.runs[0]).toMatchObject({ status: 'committed', rows: 9 });
    expect((await listSnapshots(calls(store))).snapshots).toHaveLength(2);
    expect(await tableRows(store)).toEqual(tagged('r1', callsOn(DAYS, 3, 'second')).sort());
    expect((await csvManifest(store, 'r1', DAYS[0] as string)).runId).toBe(second.runId);
    expect(await staging(store)).toEqual([]);
  });

  it('finds its snapshot landed on a retry whose first attempt lost its record, and lands nothing twice', async () => {
    // Prepare: the first attempt commits but cannot write its result record (its reply "lost").
    const store = await lake();
    const refs = [
      await defer(store, 'r1', callsOn(DAYS, 2, 'r1'), 'req-1'),
      await defer(store, 'r2', callsOn(DAYS, 1, 'r2'), 'req-2'),
    ];
    const noRecords = overriding(store, {
      put: async (key, body, options) => {
        if (key.startsWith('_commits/')) throw new Error('connection reset (test)');
        return await (store as ObjectStore).put(key, body, options);
      },
    });
    const first = await commitStagedRuns(target(noRecords), refs);
    const stagingKept = await staging(store);

    // Act
    const retried = await commitStagedRuns(target(store), [...refs].reverse());

    // Assess: the same snapshot, found by the commit id (the references, in any order); one snapshot.
    expect(stagingKept).toEqual(expect.arrayContaining(refs.map((r) => r.key)));
    expect(retried.tables).toEqual([
      expect.objectContaining({ snapshotId: first.tables[0]?.snapshotId, attempts: 0 }),
    ]);
    expect(retried.runs.map((r) => r.status)).toEqual(['committed', 'committed']);
    expect((await listSnapshots(calls(store))).snapshots).toHaveLength(1);
    expect(await tableRows(store)).toEqual(
      [...tagged('r1', callsOn(DAYS, 2, 'r1')), ...tagged('r2', callsOn(DAYS, 1, 'r2'))].sort(),
    );
    expect(await staging(store)).toEqual([]);
  });

  it("groups two tenants' executions committing at once, each landing whole, with exact totals", async () => {
    // Prepare: two executions of two reports each.
    const store = await lake();
    const refsOf = async (tenant: string) => [
      await defer(store, 'r1', callsOn(DAYS, 2, `${tenant}-r1`), `req-${tenant}-1`, tenant),
      await defer(store, 'r2', callsOn(DAYS, 1, `${tenant}-r2`), `req-${tenant}-2`, tenant),
    ];
    const acme = await refsOf('acme');
    const globex = await refsOf('globex');

    // Act
    const [a, g] = await Promise.all([
      commitStagedRuns(target(store), acme),
      commitStagedRuns({ ...target(store), tenant: 'globex' }, globex),
    ]);

    // Assess: every run committed; at most one snapshot per execution; 2 x 9 rows in all.
    expect([...(a?.runs ?? []), ...(g?.runs ?? [])].map((r) => r.status)).toEqual(Array(4).fill('committed'));
    const { snapshots } = await listSnapshots(calls(store));
    expect(snapshots.length).toBeLessThanOrEqual(2);
    expect(snapshots.at(-1)?.summary['total-records']).toBe('18');
    expect(await tableRows(store)).toHaveLength(18);
  });

  it("keeps the data files of a deferred run that fails, deleting none (orphans, not the tenant's to delete)", async () => {
    // Prepare: the staged run's write fails, after the data files are written.
    const store = await lake();
    const deleted: string[] = [];
    const failing = overriding(store, {
      put: (key, body) =>
        key.endsWith('_staged-run.json')
          ? Promise.reject(new Error('injected: staged run write refused'))
          : store.put(key, body),
      deleteMany: (keys) => {
        deleted.push(...keys);
        return store.deleteMany(keys);
      },
    });

    await prepare(store, TENANT);

    // Act
    const failure = await exportReportResult({
      source: resultStreamOf(callsOn(DAYS, 2, 'r1'), { requestId: 'req-1' }),
      store: failing,
      reportId: 'r1',
      tenant: TENANT,
      windowDates: DAYS,
      encodeWorker: false,
      tables: { catalog: catalogOf(failing), namespace: '' },
      commit: 'defer',
    }).catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(Error);
    const dataFiles = (await listAll(store, `tables/calls/data/tenant=${TENANT}/`)).map((o) => o.key);
    expect(dataFiles).toHaveLength(DAYS.length);
    expect(deleted.filter((k) => k.includes('/data/'))).toEqual([]);
    expect(await staging(store)).toEqual([]);
  });

  it('stages nothing for a run whose every day is held, and refuses defer without tables', async () => {
    // Prepare: a published run of 3 calls a day; a deferred re-run of 1 a day (below the shrink guard's share).
    const store = await lake();
    await commitStagedRuns(target(store), [await defer(store, 'r1', callsOn(DAYS, 3, 'r1'), 'req-1')]);
    const options = {
      source: resultStreamOf(callsOn(DAYS, 1, 'r1'), { requestId: 'req-2' }),
      store,
      reportId: 'r1',
      tenant: TENANT,
      windowDates: DAYS,
      encodeWorker: false as const,
    };

    // Act
    const held = await exportReportResult({
      ...options,
      tables: { catalog: catalogOf(store), namespace: '' },
      commit: 'defer',
    });
    const refused = await exportReportResult({ ...options, commit: 'defer' }).catch((e: unknown) => e);

    // Assess
    expect(held.held).toHaveLength(3);
    expect(held.staged).toBeUndefined();
    expect(await staging(store)).toEqual([]);
    expect(refused).toMatchObject({ code: EXPORT_ERROR_CODES.configInvalid });
    expect((await listSnapshots(calls(store))).snapshots).toHaveLength(1);
  });

  it('commits nothing, and adds no snapshot, when no staged run is valid or none is given', async () => {
    // Prepare
    const store = await lake();
    const ref = await defer(store, 'r1', callsOn(DAYS, 1, 'r1'), 'req-1');
    await store.deleteMany([ref.key]);
    // A run rewritten to replace no day at all (its reference too): nothing to commit.
    const dayless = await defer(store, 'r2', callsOn(DAYS, 1, 'r2'), 'req-2');
    const body = JSON.parse(Buffer.from(await readObject(store, dayless.key)).toString('utf8'));
    await store.put(dayless.key, JSON.stringify({ ...body, dts: [], partitions: [], files: [] }));

    // Act
    const none = await commitStagedRuns(target(store), []);
    const gone = await commitStagedRuns(target(store), [ref]);
    const empty = await commitStagedRuns(target(store), [{ ...dayless, dts: [] }]);

    // Assess
    expect(none).toEqual({ runs: [], tables: [] });
    expect(gone.runs[0]).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/does not exist/),
    });
    expect(empty.runs[0]).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/dts must be 1 to 400 sorted/),
    });
    expect(empty.tables).toEqual([]);
    expect((await listSnapshots(calls(store))).snapshots).toEqual([]);
  });
});
