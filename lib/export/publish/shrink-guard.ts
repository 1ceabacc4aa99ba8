import { DATASETS, type Dataset } from '../schema';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';
import type { PublishedLookup, PublishedPartition } from './published-partition';

/** A partition whose rows fall below this share of the published ones is held (ExportOptions.minShareOfPublished). */
export const DEFAULT_MIN_SHARE_OF_PUBLISHED = 0.5;

/**
 * The shrink guard: splits the partitions a run would publish into those it replaces and
 * those it holds. A partition is held when one is already published and the run has fewer
 * than `minShare` of its calls: an empty result over a published day, a service that lost
 * half a day's calls. The look-back re-export of earlier days is where this guards most: a
 * day that was complete is never silently replaced by a poorer copy. `force` (or `minShare`
 * 0) replaces anyway.
 *
 * What counts the calls depends on the dataset (HeldBasis): a call list's rows (one per
 * call), a summary's call totals (the sums of its rows' `ans`, `ref` and `lost`: a summary
 * keeps about one row per user however few calls they count). Both count a day's calls, and
 * both compare with the same share, so a shrinkage of the day's calls decides the same for
 * a day's call list and its summary. A summary whose published day counts no calls (no
 * `ans`, `ref`, `lost` among its fields) is judged by its rows. What is published is read
 * through `published`: the partition's Parquet manifest in the Hive layout (a partition
 * without one, or whose manifest does not parse, is not guarded, the latter logged), the
 * table's current snapshot for a table.
 */
export async function guardShrink(
  run: {
    published: PublishedLookup;
    dataset: Dataset;
    minShare: number;
    force: boolean;
    logger: ExportLogger | undefined;
  },
  partitions: readonly PartitionOutput[],
): Promise<{ replace: PartitionOutput[]; held: HeldPartition[] }> {
  if (run.minShare === 0 && !run.force) return { replace: [...partitions], held: [] };
  const replace: PartitionOutput[] = [];
  const held: HeldPartition[] = [];
  const calls = run.dataset === DATASETS.summaries;
  for (const p of partitions) {
    const published = await run.published(p.dt, { calls });
    const shrunk = published === undefined ? undefined : shrinkage(p, published, run.minShare);
    if (shrunk !== undefined) {
      if (run.force) {
        run.logger?.warn('Replacing a published partition with fewer calls (forceReplace)', { ...shrunk });
      } else {
        held.push(shrunk);
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

/**
 * The shrink guard's rule, for every kind of count (a day's calls or rows, a directory's
 * live items): what is published is replaced by fewer than `minShare` of it. Nothing
 * published (0) is never guarded.
 */
export function shrunkBelowShare(count: number, published: number, minShare: number): boolean {
  return published > 0 && count < minShare * published;
}

/** The partition as held when it has fewer than `minShare` of what is published; else undefined. */
function shrinkage(
  p: PartitionOutput,
  published: PublishedPartition,
  minShare: number,
): HeldPartition | undefined {
  const counts = { dt: p.dt, publishedRows: published.rows, rows: p.rows };
  if (published.calls !== undefined && published.calls > 0) {
    const t = p.callTotals;
    const calls = t === undefined ? 0 : t.ans + t.ref + t.lost;
    if (!shrunkBelowShare(calls, published.calls, minShare)) return undefined;
    return { ...counts, basis: 'calls', publishedCalls: published.calls, calls };
  }
  if (!shrunkBelowShare(p.rows, published.rows, minShare)) return undefined;
  return { ...counts, basis: 'rows' };
}
