import { forEachLimited } from '../concurrency';
import type { OutputLayout } from '../layout';
import { DATASETS } from '../schema';
import type { PublishedLookup } from './published-partition';

/**
 * The layout of the report's other dataset (`summaries` for `calls` and back), where a report
 * that changed shape left its earlier days; undefined for a dataset of another name.
 */
export function otherDatasetLayout(layout: OutputLayout): OutputLayout | undefined {
  const other =
    layout.dataset === DATASETS.calls
      ? DATASETS.summaries
      : layout.dataset === DATASETS.summaries
        ? DATASETS.calls
        : undefined;
  return other === undefined ? undefined : { ...layout, dataset: other };
}

/**
 * The days among `dts` that the report has published with rows in its other dataset (read
 * through `other`, as the shrink guard reads its own), in date order. A day emptied there (a
 * 0-row manifest, no live file) is not listed: no reader sees rows of it.
 */
export async function daysPublishedIn(other: PublishedLookup, dts: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  await forEachLimited(dts, 4, async (dt) => {
    const published = await other(dt, { calls: false });
    if (published !== undefined && published.rows > 0) found.push(dt);
  });
  return found.sort();
}
