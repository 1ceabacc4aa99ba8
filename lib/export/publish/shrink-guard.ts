import { type ObjectStore, readObjectIfPresent } from '../../stores/object-store';
import { manifestKey, type OutputLayout } from '../layout';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';

/**
 * The shrink guard: splits the partitions a run would publish into those it replaces and
 * those it holds. A partition is held when one is already published with rows and the run
 * has fewer than `minShare` of them: an empty result over a published day, a service that
 * lost half a day's calls. The look-back re-export of earlier days is where this guards
 * most: a day that was complete is never silently replaced by a poorer copy. `force` (or
 * `minShare` 0) replaces anyway. What is published is read from the partition's Parquet
 * manifest (the one commit marker promotion writes last of each format); a partition
 * without one, or whose manifest does not parse, is not guarded (and the latter logged).
 */
export async function guardShrink(
  run: {
    store: ObjectStore;
    layout: OutputLayout;
    minShare: number;
    force: boolean;
    logger: ExportLogger | undefined;
  },
  partitions: readonly PartitionOutput[],
): Promise<{ replace: PartitionOutput[]; held: HeldPartition[] }> {
  if (run.minShare === 0 && !run.force) return { replace: [...partitions], held: [] };
  const replace: PartitionOutput[] = [];
  const held: HeldPartition[] = [];
  for (const p of partitions) {
    const publishedRows = await publishedRowsOf(
      run.store,
      manifestKey(run.layout, 'parquet', p.dt),
      run.logger,
    );
    if (publishedRows !== undefined && publishedRows > 0 && p.rows < run.minShare * publishedRows) {
      if (run.force) {
        run.logger?.warn('Replacing a published partition with fewer rows (forceReplace)', {
          dt: p.dt,
          publishedRows,
          rows: p.rows,
        });
      } else {
        held.push({ dt: p.dt, basis: 'rows', publishedRows, rows: p.rows });
        continue;
      }
    }
    replace.push(p);
  }
  if (held.length > 0) {
    run.logger?.warn(
      'Partitions held by the shrink guard: the published ones stay (forceReplace replaces them)',
      {
        held,
        minShareOfPublished: run.minShare,
      },
    );
  }
  return { replace, held };
}

async function publishedRowsOf(
  store: ObjectStore,
  key: string,
  logger: ExportLogger | undefined,
): Promise<number | undefined> {
  const bytes = await readObjectIfPresent(store, key);
  if (bytes === undefined) return undefined;
  try {
    const rows = (JSON.parse(Buffer.from(bytes).toString('utf8')) as { rows?: unknown }).rows;
    if (typeof rows === 'number' && Number.isInteger(rows) && rows >= 0) return rows;
  } catch {
    // reported below
  }
  logger?.warn('A published manifest does not say its rows; the shrink guard does not apply to it', { key });
  return undefined;
}
