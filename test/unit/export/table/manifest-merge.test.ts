import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { icebergRead } from 'icebird';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableSchema } from '../../../../lib/export/schema';
import {
  type CommitResult,
  commitOverwrite,
  ensureTable,
  type IcebergTable,
  type LoadedTable,
  liveFiles,
  loadTable,
  type ManifestFile,
  rollbackTo,
  type Snapshot,
  stringifyMetadata,
  uriOf,
} from '../../../../lib/export/table';
import { readManifestList, tableIo } from '../../../../lib/export/table/manifest/manifest-io';
import {
  MANIFEST_MERGE_DEFAULTS,
  MANIFEST_MERGE_ENABLED,
  MANIFEST_MIN_COUNT_TO_MERGE,
  MANIFEST_TARGET_SIZE_BYTES,
  manifestMergePolicy,
  mergeGroups,
} from '../../../../lib/export/table/manifest/manifest-merge';
import {
  dateToDays,
  daysToDate,
  singleValueBytes,
} from '../../../../lib/export/table/manifest/partition-values';
import { keyOf } from '../../../../lib/export/table/metadata/location';
import { listAll, readObject } from '../../../../lib/stores';
import { useStoreFetch } from '../../../support/store-fetch';
import { icebirdRead } from './icebird-avro';
import { fileTable, readBack, type TestRow, testRows, writeDataFile } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const FIRST_DAY = dateToDays('2024-01-01');
const day = (i: number) => daysToDate(FIRST_DAY + i);

/** A day's live file in our model of the table: its key, rows, and the commit that added it. */
interface ModelFile {
  key: string;
  rows: TestRow[];
  snapshotId: number;
  sequenceNumber: number;
}
type Model = Map<string, ModelFile>;

async function snapshotOf(table: IcebergTable, snapshotId: number): Promise<Snapshot> {
  const metadata = (await loadTable(table))?.metadata;
  const snapshot = metadata?.snapshots.find((s) => s['snapshot-id'] === snapshotId);
  if (snapshot === undefined) throw new Error(`No snapshot ${snapshotId}`);
  return snapshot;
}

async function manifestsOf(table: IcebergTable, snapshotId: number): Promise<ManifestFile[]> {
  return await readManifestList(tableIo(table.location), await snapshotOf(table, snapshotId));
}

const summaryOf = async (table: IcebergTable, snapshotId: number) =>
  (await snapshotOf(table, snapshotId)).summary;

/** Sets table properties (as an operator or the stack would) with a metadata-only commit. */
async function setProperties(table: IcebergTable, properties: Record<string, string>): Promise<void> {
  const loaded = (await ensureTable(table, CALLS)) as LoadedTable;
  await table.catalog.commit(table.id, loaded.base, {
    metadata: stringifyMetadata({
      ...loaded.metadata,
      properties: { ...loaded.metadata.properties, ...properties },
    }),
    location: table.location.uri,
    columns: [],
  });
}

/** Commits report r1's `dts`, one file of one row each, tagged by commit; updates `model`. */
async function nightly(table: IcebergTable, model: Model, n: number, dts: string[]): Promise<CommitResult> {
  const loaded = await ensureTable(table, CALLS);
  const files = [];
  for (const dt of dts) files.push(await writeDataFile(table, loaded, 'r1', dt, testRows(`c${n}-${dt}`, 1)));
  const result = await commitOverwrite(table, { reportId: 'r1', dts, files, summary: {} });
  for (const [i, file] of files.entries()) {
    model.set(dts[i] as string, {
      key: file.key,
      rows: testRows(`c${n}-${dts[i]}`, 1),
      snapshotId: result.snapshotId,
      sequenceNumber: result.sequenceNumber,
    });
  }
  return result;
}

describe('manifest merging over 150 nightly commits (default properties)', () => {
  let root: string;
  let table: IcebergTable;
  const useFetch = useStoreFetch();
  const model: Model = new Map();
  const results: CommitResult[] = [];
  let atCommit20: Model;
  let atCommit99: Model;
  let atCommit100: Model;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-merge-'));
    table = fileTable(root);
    // Commit k replaces the days k-1 and k (a new day each night, the previous one re-exported):
    // each commit deletes the file the one before added.
    for (let k = 1; k <= 150; k++) {
      results[k] = await nightly(table, model, k, [day(k - 1), day(k)]);
      if (k === 20) atCommit20 = new Map(model);
      if (k === 99) atCommit99 = new Map(model);
      if (k === 100) atCommit100 = new Map(model);
    }
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const commit = (k: number) => results[k] as CommitResult;
  const metadataFileName = (k: number) => commit(k).metadataLocation.split('/').at(-1) as string;
  const expectedRows = (m: Model) =>
    [...m].flatMap(([dt, f]) => f.rows.map((r) => ({ ...r, report_id: 'r1', dt }))).sort(byConnId);
  const byConnId = (a: { conn_id: string }, b: { conn_id: string }) => a.conn_id.localeCompare(b.conn_id);
  async function icebird(fileName?: string) {
    useFetch(table.location.store);
    const rows = await icebergRead({
      tableUrl: table.location.uri,
      ...(fileName === undefined ? {} : { metadataFileName: fileName }),
    });
    return rows.map(readBack).sort(byConnId);
  }

  it('lists far fewer manifests than commits, merging once the snapshot lists 100', async () => {
    // Act
    const before = await manifestsOf(table, commit(99).snapshotId);
    const merged = await manifestsOf(table, commit(100).snapshotId);
    const current = await manifestsOf(table, commit(150).snapshotId);

    // Assess: one manifest a commit until 100, then one merged and one a commit since.
    expect(before).toHaveLength(99);
    expect(merged).toHaveLength(1);
    expect(current).toHaveLength(51);
    expect(await summaryOf(table, commit(100).snapshotId)).toMatchObject({
      'manifests-created': '1',
      'manifests-kept': '0',
      'manifests-replaced': '99',
      'added-data-files': '2',
      'deleted-data-files': '1',
      'total-data-files': '101',
      'total-records': '101',
    });
    expect(await summaryOf(table, commit(150).snapshotId)).toMatchObject({
      'total-data-files': '151',
      'total-records': '151',
    });
  });

  it('reads exactly the live rows at the current snapshot, at the merge and at an early one (icebird)', async () => {
    // Act
    const current = await icebird();
    const atMerge = await icebird(metadataFileName(100));
    const early = await icebird(metadataFileName(20));

    // Assess
    expect(current).toEqual(expectedRows(model));
    expect(atMerge).toEqual(expectedRows(atCommit100));
    expect(early).toEqual(expectedRows(atCommit20));
    expect((await liveFiles(table, { snapshotId: commit(20).snapshotId })).files).toHaveLength(21);
  });

  it("writes a merged manifest icebird's Avro decoder reads, each entry with its original snapshot id and sequence numbers", async () => {
    // Prepare
    const [manifest] = await manifestsOf(table, commit(100).snapshotId);
    const bytes = await readObject(
      table.location.store,
      keyOf(table.location, (manifest as ManifestFile).manifest_path),
    );
    const ours = BigInt(commit(100).snapshotId);
    const uri = (f: ModelFile | undefined) => uriOf(table.location, (f as ModelFile).key);

    // Act
    const { records } = icebirdRead(bytes);

    // Assess
    const entries = records.map((r) => ({
      status: r.status,
      snapshot_id: r.snapshot_id,
      sequence_number: r.sequence_number,
      file_sequence_number: r.file_sequence_number,
      path: (r.data_file as { file_path: string }).file_path,
    }));
    const expected = [
      ...[...atCommit100.values()].map((f) =>
        f.snapshotId === commit(100).snapshotId
          ? // icebird decodes a null as undefined: these inherit the manifest's sequence number.
            {
              status: 1,
              snapshot_id: ours,
              sequence_number: undefined,
              file_sequence_number: undefined,
              path: uri(f),
            }
          : {
              status: 0,
              snapshot_id: BigInt(f.snapshotId),
              sequence_number: BigInt(f.sequenceNumber),
              file_sequence_number: BigInt(f.sequenceNumber),
              path: uri(f),
            },
      ),
      // The file of day 99 commit 99 added, deleted by commit 100; earlier deletions are dropped.
      {
        status: 2,
        snapshot_id: ours,
        sequence_number: BigInt(commit(99).sequenceNumber),
        file_sequence_number: BigInt(commit(99).sequenceNumber),
        path: uri(atCommit99.get(day(99))),
      },
    ];
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(entries.sort(byPath)).toEqual(expected.sort(byPath));
    expect(manifest).toMatchObject({
      sequence_number: BigInt(commit(100).sequenceNumber),
      min_sequence_number: BigInt(commit(1).sequenceNumber),
      added_snapshot_id: ours,
      added_files_count: 2,
      existing_files_count: 99,
      deleted_files_count: 1,
      added_rows_count: 2n,
      existing_rows_count: 99n,
      deleted_rows_count: 1n,
    });
    expect(manifest?.partitions?.map((p) => [p.lower_bound, p.upper_bound])).toEqual([
      [singleValueBytes('string', 'r1'), singleValueBytes('string', 'r1')],
      [singleValueBytes('date', FIRST_DAY), singleValueBytes('date', FIRST_DAY + 100)],
    ]);
  });

  // Last: it commits a rollback onto the history the other tests read.
  it('rolls back to a snapshot from before the merge', async () => {
    // Act
    const result = await rollbackTo(table, commit(20).snapshotId, { 'report-export.rolled-back-by': 'test' });

    // Assess
    // Days 0-19 hold the same files as then; day 20 was re-exported and days 21-150 are new.
    expect(result).toMatchObject({ addedFiles: 1, deletedFiles: 131 });
    expect((await liveFiles(table)).files.map((f) => f.key).sort()).toEqual(
      [...atCommit20.values()].map((f) => f.key).sort(),
    );
    expect(await icebird()).toEqual(expectedRows(atCommit20));
    expect(await summaryOf(table, result.snapshotId)).toMatchObject({
      'total-data-files': '21',
      'total-records': '21',
    });
  });
});

describe('manifest merging by the table properties', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-merge-props-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { name: 'from 3 manifests', properties: { [MANIFEST_MIN_COUNT_TO_MERGE]: '3' }, listed: 2 },
    {
      name: 'never when disabled',
      properties: { [MANIFEST_MIN_COUNT_TO_MERGE]: '3', [MANIFEST_MERGE_ENABLED]: 'false' },
      listed: 6,
    },
    {
      name: 'never when every manifest reaches the target size',
      properties: { [MANIFEST_MIN_COUNT_TO_MERGE]: '3', [MANIFEST_TARGET_SIZE_BYTES]: '100' },
      listed: 6,
    },
  ])('merges $name, leaving no unlisted manifest behind', async ({ name, properties, listed }) => {
    // Prepare
    const table = fileTable(join(root, name.replaceAll(' ', '-')));
    await setProperties(table, properties);
    const model: Model = new Map();

    // Act: six nights of one new day each; with 3, commits 3 and 5 merge.
    const results = [];
    for (let k = 1; k <= 6; k++) results.push(await nightly(table, model, k, [day(k)]));

    // Assess
    const last = results.at(-1) as CommitResult;
    expect(await manifestsOf(table, last.snapshotId)).toHaveLength(listed);
    expect((await liveFiles(table)).files.map((f) => f.key).sort()).toEqual(
      [...model.values()].map((f) => f.key).sort(),
    );
    const named = new Set<string>();
    for (const r of results) {
      for (const m of await manifestsOf(table, r.snapshotId))
        named.add(keyOf(table.location, m.manifest_path));
    }
    const written = (await listAll(table.location.store, `${table.location.key}/metadata/`))
      .map((o) => o.key)
      .filter((key) => key.endsWith('.avro') && !key.split('/').at(-1)?.startsWith('snap-'));
    expect(written.sort()).toEqual([...named].sort());
  });
});

describe('mergeGroups', () => {
  const manifest = (name: string, length: number) =>
    ({ manifest_path: name, manifest_length: BigInt(length) }) as ManifestFile;
  const policy = { enabled: true, minCountToMerge: 3, targetSizeBytes: 10 };
  const names = (groups: ManifestFile[][]) => groups.map((g) => g.map((m) => m.manifest_path));

  it.each([
    {
      name: 'packs the small ones first-fit, largest first, each group within the target',
      sizes: [4, 6, 3, 5, 2],
      groups: [
        ['a', 'b'],
        ['c', 'd', 'e'],
      ],
    },
    { name: 'leaves a manifest of the target size and one alone', sizes: [10, 9, 4], groups: [] },
    { name: 'merges nothing below the minimum count', sizes: [1, 1], groups: [] },
  ])('$name', ({ sizes, groups }) => {
    // Prepare
    const manifests = sizes.map((s, i) => manifest(String.fromCharCode(97 + i), s));

    // Act
    const merged = mergeGroups(manifests, policy);

    // Assess
    expect(names(merged)).toEqual(groups);
  });

  it('merges nothing when disabled', () => {
    const manifests = [1, 1, 1].map((s, i) => manifest(String(i), s));
    expect(mergeGroups(manifests, { ...policy, enabled: false })).toEqual([]);
  });
});

describe('manifestMergePolicy', () => {
  it.each([
    { name: "Iceberg's defaults when unset", properties: {}, policy: MANIFEST_MERGE_DEFAULTS },
    {
      name: 'the values set',
      properties: {
        [MANIFEST_MERGE_ENABLED]: 'FALSE',
        [MANIFEST_MIN_COUNT_TO_MERGE]: '5',
        [MANIFEST_TARGET_SIZE_BYTES]: '1024',
      },
      policy: { enabled: false, minCountToMerge: 5, targetSizeBytes: 1024 },
    },
    {
      name: 'the defaults for values that are not counts',
      properties: {
        [MANIFEST_MERGE_ENABLED]: 'yes',
        [MANIFEST_MIN_COUNT_TO_MERGE]: '-1',
        [MANIFEST_TARGET_SIZE_BYTES]: '8MB',
      },
      policy: MANIFEST_MERGE_DEFAULTS,
    },
  ])('reads $name', ({ properties, policy }) => {
    expect(manifestMergePolicy(properties)).toEqual(policy);
  });
});
