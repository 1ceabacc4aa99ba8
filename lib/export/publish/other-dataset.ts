import type { ObjectStore } from '../../stores';
import type { OutputLayout } from '../layout';
import { DATASETS } from '../schema';
import type { ExportLogger } from '../types';
import { forEachLimited } from './concurrency';
import { readPublishedPartition } from './published-partition';

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
 * The days among `dts` that the report has published with rows in `other` (by its Parquet
 * manifests, as the shrink guard reads them), in date order. A day emptied there (a 0-row
 * manifest) is not listed: no reader sees rows of it.
 */
export async function daysPublishedIn(
  store: ObjectStore,
  other: OutputLayout,
  dts: readonly string[],
  logger: ExportLogger | undefined,
): Promise<string[]> {
  const found: string[] = [];
  await forEachLimited(dts, 4, async (dt) => {
    const published = await readPublishedPartition(store, other, dt, { calls: false, logger });
    if (published !== undefined && published.rows > 0) found.push(dt);
  });
  return found.sort();
}
