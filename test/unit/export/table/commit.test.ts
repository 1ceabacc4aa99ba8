import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { icebergManifests, icebergRead } from 'icebird';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CommitResult,
  commitOverwrite,
  ensureTable,
  type IcebergTable,
  liveFiles,
  loadTable,
  type NewDataFile,
} from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import { CommitConflictError, CommitStateUnknownError, listAll } from '../../../../lib/stores';
import { useStoreFetch } from '../../../support/store-fetch';
import {
  alwaysConflicting,
  catalogWith,
  fileTable,
  readBack,
  type TestRow,
  testRows,
  unknownOnce,
  writeDataFile,
} from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const D1 = '2026-11-23';
const D2 = '2026-11-24';
const D3 = '2026-11-25';

describe('commitOverwrite', () => {
  let root: string;
  let table: IcebergTable;
  const useFetch = useStoreFetch();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-commit-'));
    table = fileTable(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Writes one file per day of `days` and commits them as report `reportId`'s days `dts`. */
  async function publish(
    t: IcebergTable,
    reportId: string,
    dts: string[],
    files: Record<string, TestRow[]>,
    options: Parameters<typeof commitOverwrite>[2] = {},
  ): Promise<{ result: CommitResult; files: NewDataFile[] }> {
    const loaded = await ensureTable(t, CALLS);
    const written: NewDataFile[] = [];
    for (const [dt, rows] of Object.entries(files))
      written.push(await writeDataFile(t, loaded, reportId, dt, rows));
    const result = await commitOverwrite(
      t,
      { reportId, dts, files: written, summary: { 'report-export.run-id': `run-${reportId}` } },
      options,
    );
    return { result, files: written };
  }

  /** What icebird reads of the table (the current snapshot, or the metadata file given). */
  async function icebird(metadataFileName?: string) {
    useFetch(table.location.store);
    const rows = await icebergRead({
      tableUrl: table.location.uri,
      ...(metadataFileName === undefined ? {} : { metadataFileName }),
    });
    return rows.map(readBack).sort((a, b) => a.conn_id.localeCompare(b.conn_id));
  }

  const expected = (reportId: string, dt: string, rows: TestRow[]) =>
    rows.map((r) => ({ ...r, report_id: reportId, dt }));
  const byConnId = <T extends { conn_id: string }>(rows: T[]) =>
    rows.sort((a, b) => a.conn_id.localeCompare(b.conn_id));

  it('creates the table and adds the files in one overwrite snapshot when the table is new', async () => {
    // Prepare
    const first = { [D1]: testRows('a1', 3), [D2]: testRows('a2', 2) };

    // Act
    const { result, files } = await publish(table, 'r1', [D1, D2], first);

    // Assess
    const loaded = await loadTable(table);
    expect(loaded?.base.version).toBe('2');
    const snapshot = loaded?.metadata.snapshots[0];
    expect(snapshot?.summary).toMatchObject({
      operation: 'overwrite',
      'added-data-files': '2',
      'deleted-data-files': '0',
      'added-records': '5',
      'total-records': '5',
      'total-data-files': '2',
      'report-export.run-id': 'run-r1',
    });
    expect(result).toMatchObject({
      sequenceNumber: 1,
      attempts: 1,
      conflicts: 0,
      addedFiles: 2,
      addedRows: 5,
    });
    expect(result.snapshotId).toBe(snapshot?.['snapshot-id']);
    expect(Number.isSafeInteger(result.snapshotId) && result.snapshotId > 0).toBe(true);
    expect((await liveFiles(table)).files.map((f) => f.key).sort()).toEqual(files.map((f) => f.key).sort());
    expect(await icebird()).toEqual(
      byConnId([...expected('r1', D1, first[D1]), ...expected('r1', D2, first[D2])]),
    );
  });

  it('deletes the replaced days and keeps the rest when a second run overwrites some days', async () => {
    // Prepare
    const first = await publish(table, 'r1', [D1, D2], { [D1]: testRows('a1', 2), [D2]: testRows('a2', 2) });
    const other = await publish(table, 'r2', [D1], { [D1]: testRows('b1', 1) });
    useFetch(table.location.store);
    const before = await icebergManifests((await loadTable(table))?.metadata as never);

    // Act
    const second = await publish(table, 'r1', [D1], { [D1]: testRows('c1', 4) });

    // Assess
    const manifests = await icebergManifests((await loadTable(table))?.metadata as never);
    const entries = manifests.flatMap((m) => m.entries.map((e) => ({ url: m.url, ...e })));
    const of = (key: string) => entries.filter((e) => e.data_file.file_path.endsWith(key));
    const [oldD1, oldD2] = first.files.map((f) => f.key);
    expect(of(oldD1 as string).map((e) => [e.status, e.snapshot_id])).toEqual([
      [2, BigInt(second.result.snapshotId)],
    ]);
    expect(of(oldD2 as string).map((e) => [e.status, e.snapshot_id, e.sequence_number])).toEqual([
      [0, BigInt(first.result.snapshotId), 1n],
    ]);
    expect(of(second.files[0]?.key as string).map((e) => e.status)).toEqual([1]);
    // The other report's manifest is carried over as it was (same file).
    const otherUrl = before.find((m) =>
      m.entries.some((e) => e.data_file.file_path.endsWith(other.files[0]?.key as string)),
    )?.url;
    expect(manifests.map((m) => m.url)).toContain(otherUrl);
    expect(second.result).toMatchObject({ addedFiles: 1, deletedFiles: 1, addedRows: 4, deletedRows: 2 });
    expect(await icebird()).toEqual(
      byConnId([
        ...expected('r1', D2, testRows('a2', 2)),
        ...expected('r2', D1, testRows('b1', 1)),
        ...expected('r1', D1, testRows('c1', 4)),
      ]),
    );
  });

  it("deletes an empty day's files and adds none when the run has no rows for it", async () => {
    // Prepare
    await publish(table, 'r1', [D1, D2], { [D1]: testRows('a1', 2), [D2]: testRows('a2', 2) });

    // Act
    const { result } = await publish(table, 'r1', [D1, D2], { [D2]: testRows('c2', 1) });

    // Assess
    expect(result).toMatchObject({ addedFiles: 1, deletedFiles: 2, deletedRows: 4 });
    expect((await liveFiles(table)).files.map((f) => f.dt)).toEqual([D2]);
    expect(await icebird()).toEqual(expected('r1', D2, testRows('c2', 1)));
  });

  it('deletes every file of the days and adds no manifest when the run has no rows at all', async () => {
    // Prepare
    await publish(table, 'r1', [D1], { [D1]: testRows('a1', 2) });
    await publish(table, 'r2', [D1], { [D1]: testRows('b1', 1) });

    // Act
    const { result } = await publish(table, 'r1', [D1], {});

    // Assess
    expect(result).toMatchObject({ addedFiles: 0, deletedFiles: 1 });
    expect((await liveFiles(table)).files.map((f) => f.reportId)).toEqual(['r2']);
    expect(await icebird()).toEqual(expected('r2', D1, testRows('b1', 1)));
  });

  it.each([
    { name: 'different days: both land', second: D2, live: ['a1', 'b2'] },
    { name: 'the same day: the later replaces the earlier', second: D1, live: ['b1'] },
  ])(
    're-applies a commit onto the table as it then is when another landed first from the same base ($name)',
    async ({ second, live }) => {
      // Prepare: the second commit meets the first one, committed between its read and its swap.
      const loaded = await ensureTable(table, CALLS);
      const fileA = await writeDataFile(table, loaded, 'r1', D1, testRows('a1', 2));
      const fileB = await writeDataFile(
        table,
        loaded,
        'r1',
        second,
        testRows(second === D1 ? 'b1' : 'b2', 3),
      );
      const racing = {
        ...table,
        catalog: catalogWith(table.catalog, async (real, { n }) => {
          if (n === 1)
            await commitOverwrite(table, { reportId: 'r1', dts: [D1], files: [fileA], summary: {} });
          return await real();
        }),
      };

      // Act
      const result = await commitOverwrite(
        racing,
        { reportId: 'r1', dts: [second], files: [fileB], summary: {} },
        { baseDelayMs: 1 },
      );

      // Assess
      expect(result).toMatchObject({ attempts: 2, conflicts: 1 });
      const loadedAfter = await loadTable(table);
      expect(loadedAfter?.metadata.snapshots).toHaveLength(2);
      expect(loadedAfter?.metadata.snapshots[1]?.['parent-snapshot-id']).toBe(
        loadedAfter?.metadata.snapshots[0]?.['snapshot-id'],
      );
      expect((await icebird()).map((r) => r.conn_id.split('-')[0])).toEqual(
        live.flatMap((tag) => Array.from({ length: tag.startsWith('a') ? 2 : 3 }, () => tag)),
      );
    },
  );

  it('fails with EXPORT_TABLE_COMMIT_FAILED after the attempts and deletes what they wrote when every commit conflicts', async () => {
    // Prepare
    const loaded = await ensureTable(table, CALLS);
    const file = await writeDataFile(table, loaded, 'r1', D1, testRows('a1', 1));
    const catalog = alwaysConflicting(table.catalog);
    const before = await listAll(table.location.store, `${table.location.key}/metadata/`);

    // Act
    const commit = commitOverwrite(
      { ...table, catalog },
      { reportId: 'r1', dts: [D1], files: [file], summary: {} },
      {
        maxAttempts: 3,
        baseDelayMs: 1,
      },
    );

    // Assess
    await expect(commit).rejects.toMatchObject({
      code: 'EXPORT_TABLE_COMMIT_FAILED',
      name: 'TableCommitFailedError',
      attempts: 3,
      conflicts: 3,
      message: expect.stringMatching(
        /report r1 on 2026-11-23 in table calls did not land after 3 attempts \(3 met/,
      ),
    });
    expect(catalog.commits).toBe(3);
    expect(await listAll(table.location.store, `${table.location.key}/metadata/`)).toEqual(before);
  });

  it.each([
    { name: 'a day that is not a calendar date', dts: ['2026-13-01'], fileDay: D1 },
    { name: 'a file dated outside the days replaced', dts: [D2], fileDay: D1 },
  ])('refuses the change before committing when it has $name', async ({ dts, fileDay }) => {
    // Prepare
    const loaded = await ensureTable(table, CALLS);
    const file = await writeDataFile(table, loaded, 'r1', fileDay, testRows('a1', 1));

    // Act
    const commit = commitOverwrite(table, { reportId: 'r1', dts, files: [file], summary: {} });

    // Assess
    await expect(commit).rejects.toMatchObject({ code: 'EXPORT_CONFIG_INVALID' });
    expect((await loadTable(table))?.base.version).toBe('1');
  });

  it('stops with EXPORT_ABORTED between attempts when the signal fires', async () => {
    // Prepare
    const loaded = await ensureTable(table, CALLS);
    const file = await writeDataFile(table, loaded, 'r1', D1, testRows('a1', 1));
    const controller = new AbortController();
    const catalog = catalogWith(table.catalog, async (_real, { table: id }) => {
      controller.abort();
      throw new CommitConflictError(id, 'test');
    });

    // Act
    const commit = commitOverwrite(
      { ...table, catalog },
      { reportId: 'r1', dts: [D1], files: [file], summary: {} },
      {
        signal: controller.signal,
      },
    );

    // Assess
    await expect(commit).rejects.toMatchObject({ code: 'EXPORT_ABORTED' });
    expect(catalog.commits).toBe(1);
  });

  it.each([
    { lands: true, commits: 1 },
    { lands: false, commits: 2 },
  ])('lands once when a commit outcome is unknown (it landed: $lands)', async ({ lands, commits }) => {
    // Prepare
    const loaded = await ensureTable(table, CALLS);
    const file = await writeDataFile(table, loaded, 'r1', D1, testRows('a1', 2));
    const catalog = unknownOnce(table.catalog, lands);

    // Act
    const result = await commitOverwrite(
      { ...table, catalog },
      { reportId: 'r1', dts: [D1], files: [file], summary: {} },
      {
        baseDelayMs: 1,
      },
    );

    // Assess
    const after = await loadTable(table);
    expect(after?.metadata.snapshots.map((s) => s['snapshot-id'])).toEqual([result.snapshotId]);
    expect(catalog.commits).toBe(commits);
    expect(result).toMatchObject({ attempts: 2, conflicts: 0, addedFiles: 1 });
    expect(await icebird()).toEqual(expected('r1', D1, testRows('a1', 2)));
  });

  it('does not land twice when a commit with an unknown outcome lands late, after the next attempt read the table', async () => {
    // Prepare: the first commit is answered "unknown" and lands only while the second is sent.
    const loaded = await ensureTable(table, CALLS);
    const file = await writeDataFile(table, loaded, 'r1', D1, testRows('a1', 2));
    let late: (() => Promise<unknown>) | undefined;
    const catalog = catalogWith(table.catalog, async (real, { n }) => {
      if (n === 1) {
        late = real;
        throw new CommitStateUnknownError('no reply yet (test)');
      }
      await late?.();
      return await real();
    });

    // Act
    const result = await commitOverwrite(
      { ...table, catalog },
      { reportId: 'r1', dts: [D1], files: [file], summary: {} },
      {
        baseDelayMs: 1,
      },
    );

    // Assess
    const after = await loadTable(table);
    expect(after?.metadata.snapshots.map((s) => s['snapshot-id'])).toEqual([result.snapshotId]);
    expect(result).toMatchObject({ attempts: 3, conflicts: 1, addedFiles: 1, deletedFiles: 0, addedRows: 2 });
    expect(catalog.commits).toBe(2);
  });

  it('reads an earlier snapshot through its metadata file when icebird is given v<N>', async () => {
    // Prepare
    await publish(table, 'r1', [D1, D3], { [D1]: testRows('a1', 2), [D3]: testRows('a3', 1) });
    await publish(table, 'r1', [D1], { [D1]: testRows('c1', 3) });

    // Act
    const earlier = await icebird('v2.metadata.json');
    const current = await icebird();

    // Assess
    expect(earlier).toEqual(
      byConnId([...expected('r1', D1, testRows('a1', 2)), ...expected('r1', D3, testRows('a3', 1))]),
    );
    expect(current).toEqual(
      byConnId([...expected('r1', D1, testRows('c1', 3)), ...expected('r1', D3, testRows('a3', 1))]),
    );
  });
});
