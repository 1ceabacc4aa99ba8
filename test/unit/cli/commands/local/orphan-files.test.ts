import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeOrphanDataFiles } from '../../../../../lib/cli/commands/local/orphan-files';
import { TABLE_RETENTION } from '../../../../../lib/export';
import { writeTableLake } from '../../../../cli/tables/table-lake';
import { runInProcess } from '../../../../support/cli-in-process';

const DAY_MS = 86_400_000;

describe('removeOrphanDataFiles (the local run maintenance)', () => {
  let lake: string;
  beforeEach(async () => {
    lake = await mkdtemp(path.join(tmpdir(), 'orphans-'));
  });
  afterEach(async () => {
    await rm(lake, { recursive: true, force: true });
  });

  it('removes the data files no snapshot names once past the orphan age, and keeps every file a snapshot lists', async () => {
    // Prepare: two snapshots (the second replaced a day: its old file is the first's only),
    // every file old; an old orphan and a fresh one (a run's file not committed yet).
    const { first } = await writeTableLake(lake);
    const dataDir = path.join(lake, 'tables', 'calls', 'data');
    const files = async () =>
      (await readdir(dataDir, { recursive: true })).map(String).filter((f) => f.endsWith('.parquet'));
    const written = await files();
    const partition = path.dirname(path.join(dataDir, written[0] as string));
    const oldOrphan = path.join(partition, 'orphan-old.parquet');
    const freshOrphan = path.join(partition, 'orphan-fresh.parquet');
    await mkdir(partition, { recursive: true });
    await writeFile(oldOrphan, 'PAR1');
    await writeFile(freshOrphan, 'PAR1');
    const now = Date.now();
    const old = new Date(now - (TABLE_RETENTION.orphanFileRetentionDays + 1) * DAY_MS);
    for (const f of [...written.map((w) => path.join(dataDir, w)), oldOrphan]) await utimes(f, old, old);

    // Act
    const removed = await removeOrphanDataFiles(lake, { nowMs: now });
    const current = await runInProcess(['query', '--dir', lake, '--json', 'SELECT count(*) AS n FROM calls']);
    const asOfFirst = await runInProcess([
      'query',
      '--dir',
      lake,
      '--as-of',
      String(first),
      '--json',
      'SELECT count(*) AS n FROM calls',
    ]);

    // Assess: only the old orphan went; both snapshots still read whole.
    expect(removed).toEqual([
      { table: 'calls', removed: [path.relative(lake, oldOrphan).split(path.sep).join('/')] },
    ]);
    expect((await files()).sort()).toEqual([...written, path.relative(dataDir, freshOrphan)].sort());
    expect(JSON.parse(current.stdout)).toEqual([{ n: 11 }]);
    expect(JSON.parse(asOfFirst.stdout)).toEqual([{ n: 9 }]);
  });
});
