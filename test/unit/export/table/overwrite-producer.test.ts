import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commitOverwrite,
  ensureTable,
  type IcebergTable,
  type LoadedTable,
  loadTable,
  type NewDataFile,
} from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import {
  forEachManifest,
  readManifestList,
  tableIo,
} from '../../../../lib/export/table/manifest/manifest-io';
import { ENTRY_STATUS, type ManifestEntry } from '../../../../lib/export/table/metadata/types';
import { produceOverwrite } from '../../../../lib/export/table/snapshot/overwrite';
import { changePlan } from '../../../../lib/export/table/snapshot/replace-partitions';
import { restoreFiles } from '../../../../lib/export/table/snapshot/restore';
import { fileTable, testRows, writeDataFile } from './table-fixture';

const CALLS = tableSchema({ dataset: 'calls' });
const D1 = '2026-11-23';
const D2 = '2026-11-24';
// After every snapshot the fixture commits (they take the clock): the producer stamps it as it is.
const NOW = Date.UTC(2030, 0, 1);

describe('produceOverwrite', () => {
  let root: string;
  let table: IcebergTable;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-producer-'));
    table = fileTable(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A table whose current snapshot holds report r1 on D1 and D2, one file a day. */
  async function published(): Promise<{ loaded: LoadedTable; files: NewDataFile[] }> {
    const created = await ensureTable(table, CALLS);
    const files = [
      await writeDataFile(table, created, 'r1', D1, testRows('a', 2)),
      await writeDataFile(table, created, 'r1', D2, testRows('b', 3)),
    ];
    await commitOverwrite(table, { reportId: 'r1', dts: [D1, D2], files, summary: {} });
    return { loaded: (await loadTable(table)) as LoadedTable, files };
  }

  /** Every entry of the snapshot's manifests, by file key, with its status. */
  async function entriesOf(snapshot: Parameters<typeof readManifestList>[1]) {
    const io = tableIo(table.location);
    const entries: ManifestEntry[] = [];
    await forEachManifest(io, await readManifestList(io, snapshot), (e) => {
      entries.push(...e);
    });
    return entries
      .map((e) => ({
        path: e.data_file.file_path.split('/').pop(),
        status: e.status,
        snapshot: e.snapshot_id,
      }))
      .sort((a, b) => `${a.path}`.localeCompare(`${b.path}`));
  }

  it('writes a snapshot that replaces the partitions planned, and commits nothing', async () => {
    // Prepare
    const { loaded, files } = await published();
    const parent = loaded.metadata['current-snapshot-id'];
    const replacement = await writeDataFile(table, loaded, 'r1', D2, testRows('c', 4));
    const plan = changePlan(table.location, { reportId: 'r1', dts: [D2], files: [replacement], summary: {} });
    const io = tableIo(table.location);

    // Act
    const { snapshot, metadata, counts } = await produceOverwrite(
      io,
      loaded,
      {
        mayDelete: plan.mayHold,
        deletes: (e) => plan.replaces(e.data_file.partition),
        adds: plan.adds,
        summary: { 'report-export.run-id': 'run-2' },
      },
      NOW,
    );

    // Assess: the snapshot and its counts, the manifests it wrote, and the catalog untouched.
    expect(counts).toEqual({ addedFiles: 1, deletedFiles: 1, addedRows: 4, deletedRows: 3 });
    expect(snapshot).toMatchObject({
      'parent-snapshot-id': parent,
      'sequence-number': loaded.metadata['last-sequence-number'] + 1,
      'timestamp-ms': NOW,
    });
    expect(snapshot.summary).toMatchObject({
      operation: 'overwrite',
      'added-data-files': '1',
      'deleted-data-files': '1',
      'total-data-files': '2',
      'total-records': '6',
      'report-export.run-id': 'run-2',
    });
    expect(metadata['current-snapshot-id']).toBe(snapshot['snapshot-id']);
    const id = BigInt(snapshot['snapshot-id']);
    const name = (f: NewDataFile) => f.key.split('/').pop();
    expect(await entriesOf(snapshot)).toEqual(
      [
        { path: name(files[0] as NewDataFile), status: ENTRY_STATUS.existing },
        { path: name(files[1] as NewDataFile), status: ENTRY_STATUS.deleted, snapshot: id },
        { path: name(replacement), status: ENTRY_STATUS.added, snapshot: id },
      ]
        .map((e) => ({ snapshot: expect.anything(), ...e }))
        .sort((a, b) => `${a.path}`.localeCompare(`${b.path}`)),
    );
    expect(io.written.some((k) => k.endsWith(snapshot['manifest-list'].split('/').pop() as string))).toBe(
      true,
    );
    expect((await loadTable(table))?.metadata['current-snapshot-id']).toBe(parent);
  });

  it('restores a file set: files of the scope not in it deleted, files of it not live added', async () => {
    // Prepare: the first snapshot holds D1 and D2; a second replaces D2.
    const { loaded: first, files } = await published();
    const firstSnapshot = first.metadata.snapshots.at(-1);
    if (firstSnapshot === undefined) throw new Error('the table has no snapshot');
    const replacement = await writeDataFile(table, first, 'r1', D2, testRows('c', 4));
    await commitOverwrite(table, { reportId: 'r1', dts: [D2], files: [replacement], summary: {} });
    const second = (await loadTable(table)) as LoadedTable;
    const io = tableIo(table.location);
    const restore: ManifestEntry['data_file'][] = [];
    await forEachManifest(io, await readManifestList(io, firstSnapshot), (entries) => {
      for (const e of entries) if (e.status !== ENTRY_STATUS.deleted) restore.push(e.data_file);
    });

    // Act
    const change = await restoreFiles(io, second.metadata, () => true, restore);
    const { counts } = await produceOverwrite(io, second, { ...change, summary: {} }, NOW);

    // Assess: the first snapshot's D2 file added again, its replacement deleted.
    const name = (uri: string) => uri.split('/').pop();
    expect(change.adds.map((f) => name(f.file_path))).toEqual([name(files[1]?.key ?? '')]);
    expect(counts).toEqual({ addedFiles: 1, deletedFiles: 1, addedRows: 3, deletedRows: 4 });
  });

  it('keeps every file out of the scope when restoring a scope', async () => {
    // Prepare
    const { loaded } = await published();
    const io = tableIo(table.location);

    // Act: restore no file of a scope that holds none of the table's partitions.
    const change = await restoreFiles(
      io,
      loaded.metadata,
      (p) => 'report_id' in p && p.report_id === 'r2',
      [],
    );
    const { counts } = await produceOverwrite(io, loaded, { ...change, summary: {} }, NOW);

    // Assess
    expect(change.adds).toEqual([]);
    expect(counts).toEqual({ addedFiles: 0, deletedFiles: 0, addedRows: 0, deletedRows: 0 });
  });
});
