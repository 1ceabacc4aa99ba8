import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { type CommitResult, ensureTable, listSnapshots } from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import { useStoreFetch } from '../../../support/store-fetch';
import { useCliProcesses, useTempDir } from '../../../support/test-scope';
import { fileTable, readBack, testRows } from './table-fixture';

const DAYS = ['2026-11-24', '2026-11-25'];
const COMMITS = 4;

describe('commitOverwrite across processes', () => {
  const dir = useTempDir('iceberg-concurrent-');
  const processes = useCliProcesses();
  const useFetch = useStoreFetch();

  it('lands every commit of two processes committing different days of one table at the same moment', async () => {
    // Prepare
    const table = fileTable(dir());
    await ensureTable(table, tableSchema({ dataset: 'calls' }));
    const committers = DAYS.map((day) =>
      processes.start([dir(), day, String(COMMITS)], {
        script: 'test/unit/export/table/concurrent-committer.ts',
      }),
    );
    await Promise.all(committers.map((c) => c.waitFor(/^ready$/m, { stream: 'stdout', timeoutMs: 60_000 })));

    // Act
    await writeFile(join(dir(), 'go'), '');
    const outputs = await Promise.all(
      committers.map(async (c) => {
        const [line = ''] = await c.waitFor(/^\{.*\}$/m, { stream: 'stdout', timeoutMs: 60_000 });
        return JSON.parse(line) as { day: string; results: CommitResult[] };
      }),
    );

    // Assess: every commit is a snapshot of the table, and the last run of each day is what it holds.
    const committed = outputs.flatMap((o) => o.results.map((r) => r.snapshotId));
    const { snapshots } = await listSnapshots(table);
    expect(snapshots.map((s) => s['snapshot-id']).sort()).toEqual([...committed].sort());
    expect(snapshots.map((s) => s['sequence-number'])).toEqual(snapshots.map((_, i) => i + 1));
    useFetch(table.location.store);
    const rows = (await icebergRead({ tableUrl: table.location.uri })).map(readBack);
    const last = DAYS.flatMap((day) =>
      testRows(`${day}/${COMMITS - 1}`, COMMITS).map((r) => ({ ...r, report_id: 'r1', dt: day })),
    );
    const byConnId = (a: { conn_id: string }, b: { conn_id: string }) => a.conn_id.localeCompare(b.conn_id);
    expect(rows.sort(byConnId)).toEqual(last.sort(byConnId));
    expect(await Promise.all(committers.map((c) => c.exited))).toEqual([0, 0]);
  });
});
