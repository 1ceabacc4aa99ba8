import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { icebergRead } from 'icebird';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commitOverwrite,
  ensureTable,
  expireSnapshots,
  type IcebergTable,
  type LoadedTable,
  listSnapshots,
  liveFiles,
  loadTable,
  resolveSnapshot,
  rollbackTo,
  type Snapshot,
  type TableMetadata,
} from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import { MAX_SNAPSHOT_AGE_MS, MIN_SNAPSHOTS_TO_KEEP, stringifyMetadata } from '../../../../lib/export/table';
import { useStoreFetch } from '../../../support/store-fetch';
import { fileTable, readBack, type TestRow, testRows, writeDataFile } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const D1 = '2026-11-23';
const D2 = '2026-11-24';

describe('table history', () => {
  let root: string;
  let table: IcebergTable;
  let clock: number;
  const useFetch = useStoreFetch();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-history-'));
    table = fileTable(root);
    clock = Date.UTC(2026, 10, 25, 6);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** One run of report r1 at the test clock, an hour after the previous one. */
  async function run(files: Record<string, TestRow[]>, dts = Object.keys(files)) {
    clock += 3_600_000;
    const now = () => clock;
    const loaded = await ensureTable(table, CALLS, { now });
    const written = [];
    for (const [dt, rows] of Object.entries(files))
      written.push(await writeDataFile(table, loaded, 'r1', dt, rows));
    return await commitOverwrite(table, { reportId: 'r1', dts, files: written, summary: {} }, { now });
  }

  const tags = (files: { key: string }[]) => files.map((f) => f.key).sort();

  it('lists the files of an earlier snapshot when asked by its id or by a time it was current', async () => {
    // Prepare
    const first = await run({ [D1]: testRows('a1', 2), [D2]: testRows('a2', 1) });
    const firstFiles = (await liveFiles(table)).files;
    const firstAt = clock;
    await run({ [D1]: testRows('b1', 3) });

    // Act
    const byId = await liveFiles(table, { snapshotId: first.snapshotId });
    const byTime = await liveFiles(table, { timestampMs: firstAt + 1_000 });
    const current = await liveFiles(table);

    // Assess
    expect(byId.snapshot?.['snapshot-id']).toBe(first.snapshotId);
    expect(tags(byId.files)).toEqual(tags(firstFiles));
    expect(tags(byTime.files)).toEqual(tags(firstFiles));
    expect(tags(current.files)).not.toEqual(tags(firstFiles));
    expect(current.files.map((f) => [f.reportId, f.dt, f.rows]).sort()).toEqual([
      ['r1', D1, 3],
      ['r1', D2, 1],
    ]);
  });

  it.each([
    { name: 'an unknown id', asOf: { snapshotId: 42 } },
    { name: 'a time before the first snapshot', asOf: { timestampMs: 0 } },
  ])('refuses a point the table has no snapshot for ($name)', async ({ asOf }) => {
    // Prepare
    await run({ [D1]: testRows('a1', 1) });
    const metadata = (await loadTable(table))?.metadata as TableMetadata;

    // Act
    const resolve = () => resolveSnapshot(metadata, asOf);

    // Assess
    expect(resolve).toThrow(expect.objectContaining({ code: 'EXPORT_CONFIG_INVALID' }));
  });

  it('rolls back with a new snapshot whose live files are the target snapshot files', async () => {
    // Prepare
    const first = await run({ [D1]: testRows('a1', 2), [D2]: testRows('a2', 1) });
    const firstFiles = (await liveFiles(table)).files;
    useFetch(table.location.store);
    const firstRows = await icebergRead({ tableUrl: table.location.uri });
    await run({ [D1]: testRows('b1', 3) }, [D1, D2]);

    // Act
    const result = await rollbackTo(table, first.snapshotId, { 'report-export.rolled-back-by': 'test' });

    // Assess
    const { snapshots, currentSnapshotId } = await listSnapshots(table);
    expect(snapshots).toHaveLength(3);
    expect(currentSnapshotId).toBe(result.snapshotId);
    expect(snapshots[2]?.summary).toMatchObject({
      operation: 'overwrite',
      'report-export.rollback-to': String(first.snapshotId),
      'report-export.rolled-back-by': 'test',
    });
    expect(result).toMatchObject({ addedFiles: 2, deletedFiles: 1 });
    expect(tags((await liveFiles(table)).files)).toEqual(tags(firstFiles));
    const sort = (rows: Record<string, unknown>[]) =>
      rows.map(readBack).sort((a, b) => a.conn_id.localeCompare(b.conn_id));
    expect(sort(await icebergRead({ tableUrl: table.location.uri }))).toEqual(sort(firstRows));
  });

  it("drops the snapshots the table's retention properties expire when a commit is asked to", async () => {
    // Prepare: keep 2 snapshots, those of the last 90 minutes (the runs are an hour apart).
    await run({ [D1]: testRows('a1', 1) });
    await run({ [D1]: testRows('a2', 1) });
    const loaded = (await loadTable(table)) as LoadedTable;
    const retention = {
      ...loaded.metadata.properties,
      [MAX_SNAPSHOT_AGE_MS]: '5400000',
      [MIN_SNAPSHOTS_TO_KEEP]: '2',
    };
    await table.catalog.commit(table.id, loaded.base, {
      metadata: stringifyMetadata({ ...loaded.metadata, properties: retention }),
      location: table.location.uri,
      columns: [],
    });
    const third = await run({ [D1]: testRows('a3', 1) });

    // Act
    clock += 3_600_000;
    const file = await writeDataFile(
      table,
      (await loadTable(table)) as LoadedTable,
      'r1',
      D2,
      testRows('b', 1),
    );
    const fourth = await commitOverwrite(
      table,
      { reportId: 'r1', dts: [D2], files: [file], summary: {} },
      {
        now: () => clock,
        expire: true,
      },
    );

    // Assess
    const { snapshots } = await listSnapshots(table);
    expect(snapshots.map((s) => s['snapshot-id'])).toEqual([third.snapshotId, fourth.snapshotId]);
    expect((await loadTable(table))?.metadata['snapshot-log'].map((e) => e['snapshot-id'])).toEqual([
      third.snapshotId,
      fourth.snapshotId,
    ]);
    expect((await liveFiles(table)).files.map((f) => f.dt).sort()).toEqual([D1, D2]);
  });

  it('appends a promoted column with the next field id in a schema-only commit when the table lacks it', async () => {
    // Prepare
    await run({ [D1]: testRows('a1', 1) });
    const before = (await loadTable(table))?.metadata as TableMetadata;
    const promoted = tableSchema({ dataset: 'calls', promoted: [{ name: 'queue', type: 'string' }] });

    // Act
    const loaded = await ensureTable(table, promoted);

    // Assess
    const schema = loaded.metadata.schemas.at(-1);
    expect(loaded.base.version).toBe('3');
    expect(loaded.metadata['current-schema-id']).toBe(1);
    expect(loaded.metadata['last-column-id']).toBe(before['last-column-id'] + 1);
    expect(schema?.fields.at(-1)).toMatchObject({
      id: before['last-column-id'] + 1,
      name: 'queue',
      required: false,
      type: 'string',
    });
    expect(schema?.fields.slice(0, -1)).toEqual(before.schemas[0]?.fields);
    expect(loaded.metadata.snapshots).toEqual(before.snapshots);
    expect(loaded.metadata['metadata-log'].at(-1)?.['metadata-file']).toMatch(/\/v2\.metadata\.json$/);
    expect((await ensureTable(table, promoted)).base.version).toBe('3');
  });

  it("refuses a column whose type differs from the table's with a message naming it", async () => {
    // Prepare
    await ensureTable(
      table,
      tableSchema({ dataset: 'calls', promoted: [{ name: 'queue', type: 'string' }] }),
    );

    // Act
    const ensure = ensureTable(
      table,
      tableSchema({ dataset: 'calls', promoted: [{ name: 'queue', type: 'int' }] }),
    );

    // Assess
    await expect(ensure).rejects.toMatchObject({
      code: 'EXPORT_CONFIG_INVALID',
      message: expect.stringMatching(/column queue is int in the export but string in the table/),
    });
  });
});

describe('expireSnapshots', () => {
  const HOUR = 3_600_000;
  const snapshot = (id: number, parent: number | undefined, at: number): Snapshot => ({
    'snapshot-id': id,
    ...(parent === undefined ? {} : { 'parent-snapshot-id': parent }),
    'sequence-number': id,
    'timestamp-ms': at * HOUR,
    'manifest-list': `file:///lake/tables/calls/metadata/snap-${id}.avro`,
    summary: { operation: 'overwrite' },
    'schema-id': 0,
  });
  const metadata = (count: number): TableMetadata => {
    const snapshots = Array.from({ length: count }, (_, i) =>
      snapshot(i + 1, i === 0 ? undefined : i, i + 1),
    );
    return {
      'format-version': 2,
      'table-uuid': 'u',
      location: 'file:///lake/tables/calls',
      'last-sequence-number': count,
      'last-updated-ms': count * HOUR,
      'last-column-id': 1,
      'current-schema-id': 0,
      schemas: [],
      'default-spec-id': 0,
      'partition-specs': [],
      'last-partition-id': 1001,
      'default-sort-order-id': 0,
      'sort-orders': [],
      properties: {},
      'current-snapshot-id': count,
      snapshots,
      'snapshot-log': snapshots.map((s) => ({
        'snapshot-id': s['snapshot-id'],
        'timestamp-ms': s['timestamp-ms'],
      })),
      'metadata-log': [],
      refs: { main: { 'snapshot-id': count, type: 'branch' }, audit: { 'snapshot-id': 2, type: 'tag' } },
    };
  };

  it.each([
    { name: 'older than the cut, beyond the last 2', olderThan: 4, retainLast: 2, kept: [4, 5, 6] },
    { name: 'older than the cut, the last 4 kept', olderThan: 4, retainLast: 4, kept: [3, 4, 5, 6] },
    { name: 'all older, the current one kept', olderThan: 99, retainLast: 0, kept: [6] },
  ])('removes the snapshots $name', ({ olderThan, retainLast, kept }) => {
    // Prepare
    const before = metadata(6);

    // Act
    const after = expireSnapshots(before, { olderThanMs: olderThan * HOUR, retainLast });

    // Assess
    expect(after.snapshots.map((s) => s['snapshot-id'])).toEqual(kept);
    expect(after['snapshot-log'].map((e) => e['snapshot-id'])).toEqual(kept);
    expect(Object.keys(after.refs)).toEqual(kept.includes(2) ? ['main', 'audit'] : ['main']);
    expect(before.snapshots).toHaveLength(6);
  });
});
