import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { lakeTable, liveFiles, loadTable, TABLE_RETENTION } from '../../../export';
import { hasLocalTable, LAKE_DATASETS, localLakeTables } from '../../shared/lake-tables';

/** What the local maintenance removed from one table. */
export interface OrphanRemoval {
  table: string;
  /** Keys of the data files removed, relative to the lake. */
  removed: string[];
}

/**
 * The local run's orphan-file deletion, as Glue's optimizer does it for a deployed table: a
 * data file under a table's `data/` that no retained snapshot names (a commit that lost its
 * race, a run killed between writing and committing, a snapshot expired) is removed once it
 * is older than TABLE_RETENTION's orphan age. Never a file any snapshot of the metadata lists
 * (time travel reads those); a table whose snapshots cannot all be read is left as it is.
 * Run under the lake's lock, after the run (npm start's end): no writer of this lake is live.
 */
export async function removeOrphanDataFiles(
  lakeDir: string,
  options: { nowMs?: number; olderThanDays?: number } = {},
): Promise<OrphanRemoval[]> {
  const nowMs = options.nowMs ?? Date.now();
  const cutoff = nowMs - (options.olderThanDays ?? TABLE_RETENTION.orphanFileRetentionDays) * 86_400_000;
  const lake = localLakeTables(lakeDir);
  const results: OrphanRemoval[] = [];
  for (const dataset of LAKE_DATASETS) {
    if (!(await hasLocalTable(lakeDir, dataset))) continue;
    const table = lakeTable(lake, dataset);
    const state = await loadTable(table);
    if (state === undefined) continue;
    const named = new Set<string>();
    try {
      for (const s of state.metadata.snapshots) {
        for (const f of (await liveFiles(table, { snapshotId: s['snapshot-id'] })).files) named.add(f.key);
      }
    } catch {
      continue; // a snapshot not read whole: nothing is known to be unreferenced
    }
    const orphans: string[] = [];
    for await (const info of lake.store.list(`${table.location.key}/data/`)) {
      if (named.has(info.key)) continue;
      const stat = await fs.stat(path.join(lakeDir, ...info.key.split('/'))).catch(() => undefined);
      if (stat !== undefined && stat.mtimeMs < cutoff) orphans.push(info.key);
    }
    if (orphans.length > 0) await lake.store.deleteMany(orphans);
    results.push({ table: dataset, removed: orphans });
  }
  return results;
}
