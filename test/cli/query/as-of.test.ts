import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { summarizeCalls } from '../../../lib/cli/commands/local/call-summary';
import { openLake } from '../../../lib/cli/shared/lake-database';
import { runInProcess } from '../../support/cli-in-process';
import { useTempDir } from '../../support/test-scope';
import { writeTableLake } from '../tables/table-lake';

const PER_DAY = 'SELECT dt, count(*)::INTEGER AS n, typeof(dt) AS t FROM calls GROUP BY dt ORDER BY dt';

const rows = (counts: number[]) =>
  ['2026-11-20', '2026-11-21', '2026-11-22'].map((dt, i) => ({ dt, n: counts[i], t: 'DATE' }));

describe('report-export query over Iceberg tables', () => {
  const dir = useTempDir('query-tables-');
  let lake: string;
  let snapshots: { first: number; second: number };

  beforeAll(async () => {
    lake = path.join(dir(), 'lake');
    await mkdir(lake);
    snapshots = await writeTableLake(lake);
  });

  it('reads the current snapshot of the table, dt a DATE as in the table, when given no --as-of', async () => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, '--json', PER_DAY]);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(rows([3, 5, 3]));
  });

  it('reads the earlier snapshot, and says which, when --as-of names its id', async () => {
    // Act
    const run = await runInProcess([
      'query',
      '--dir',
      lake,
      '--as-of',
      String(snapshots.first),
      '--json',
      PER_DAY,
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(rows([3, 3, 3]));
    expect(run.stderr).toMatch(
      new RegExp(`^calls: snapshot ${snapshots.first} of \\d{4}-\\d{2}-\\d{2}T`, 'm'),
    );
  });

  it('reads the snapshot current at a time, and nothing before the first, when --as-of is a timestamp', async () => {
    // Prepare: the first snapshot's commit time, as tables snapshots lists it.
    const listed = await runInProcess(['tables', 'snapshots', 'calls', '--dir', lake, '--json']);
    const [first] = JSON.parse(listed.stdout) as { snapshotId: number; committedAt: string }[];
    const at = Date.parse(first?.committedAt ?? '');

    // Act
    const then = await runInProcess([
      'query',
      '--dir',
      lake,
      '--as-of',
      new Date(at).toISOString(),
      '--json',
      PER_DAY,
    ]);
    const before = await runInProcess([
      'query',
      '--dir',
      lake,
      '--as-of',
      new Date(at - 1).toISOString().replace('Z', '+00:00'),
      '--json',
      'SELECT count(*)::INTEGER AS n FROM calls',
    ]);

    // Assess
    expect(first?.snapshotId).toBe(snapshots.first);
    expect(then.code).toBe(0);
    expect(JSON.parse(then.stdout)).toEqual(rows([3, 3, 3]));
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual([{ n: 0 }]);
    expect(before.stderr).toContain('calls: no snapshot then (empty)');
  });

  it.each([
    [
      ['--as-of', 'yesterday'],
      /--as-of must be a snapshot id .* or an ISO 8601 timestamp with its offset.*got 'yesterday'/,
    ],
    [['--as-of', '2026-11-21T10:00:00'], /--as-of must be a snapshot id/],
    [['--as-of', '2026-02-30T10:00:00Z'], /--as-of must be a snapshot id/],
    [
      ['--as-of', '42'],
      /--as-of: no table has snapshot 42 \(calls has 2[^)]*\); list them: report-export tables snapshots --dir /,
    ],
  ])('exits 2 naming --as-of when it is %j', async (args, message) => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, ...args, 'SELECT 1']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('exits 2 when --as-of is given for a lake of the Hive layout (no history)', async () => {
    // Prepare
    const hive = path.join(dir(), 'hive');
    await mkdir(path.join(hive, 'calls', 'format=parquet'), { recursive: true });

    // Act
    const run = await runInProcess(['query', '--dir', hive, '--as-of', '1', 'SELECT 1']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--as-of: the lake at .* has no Iceberg table/);
  });

  it("summarizes the window's calls per day from the table (the summary page's query, dt a DATE)", async () => {
    // Prepare
    const db = await openLake(lake);

    // Act
    let summary: Awaited<ReturnType<typeof summarizeCalls>>;
    try {
      summary = await summarizeCalls(db, { from: '2026-11-19', to: '2026-11-22' });
    } finally {
      db.close();
    }

    // Assess
    expect(summary.days.map((d) => [d.dt, d.calls])).toEqual([
      ['2026-11-19', 0],
      ['2026-11-20', 3],
      ['2026-11-21', 5],
      ['2026-11-22', 3],
    ]);
    expect(summary.calls).toBe(11);
  });
});
