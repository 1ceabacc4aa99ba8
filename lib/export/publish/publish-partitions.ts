import { EXPORT_ERROR_CODES, ExportError, ReportShapeChangedError, throwIfAborted } from '../errors';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';
import { daysPublishedIn, otherDatasetLayout } from './other-dataset';
import { cleanStaging, type Emptied, type PublishContext, promote, stage } from './publish';
import { guardShrink } from './shrink-guard';
import { testPause } from './test-pause';
import { verifyPartitions } from './verify';

export interface PublishRun extends PublishContext {
  csvGzip: boolean;
  /** The shrink guard (see shrink-guard.ts). */
  minShareOfPublished: number;
  forceReplace: boolean;
  logger: ExportLogger | undefined;
  /** Dates published even without rows: their earlier parts are deleted. */
  windowDates: readonly string[];
  signal: AbortSignal | undefined;
  /** Progress, one call per step. */
  phase: (name: string, data?: Record<string, unknown>) => void;
}

/**
 * Verifies the part files on local disk, stages them, and promotes them (publish.ts has
 * the protocol and the reader guarantees). Resolves with every partition published,
 * the window's empty dates included. The staging area is deleted afterwards, except
 * when a rollback failed: then it holds the only copy of the overwritten objects.
 */
export async function publishPartitions(
  run: PublishRun,
  withRows: PartitionOutput[],
): Promise<{ published: PartitionOutput[]; held: HeldPartition[] }> {
  await verifyPartitions(withRows, run.requestId, { csvGzip: run.csvGzip, schema: run.schema });
  const { replace: partitions, held } = await guardShrink(
    {
      store: run.store,
      layout: run.layout,
      dataset: run.schema.dataset,
      minShare: run.minShareOfPublished,
      force: run.forceReplace,
      logger: run.logger,
    },
    withEmptyDates(withRows, run.windowDates),
  );
  const also = await shapeChange(run, partitions);
  run.phase('write', { partitions: partitions.length, held: held.length });
  let keepStaging = false;
  try {
    throwIfAborted(run.signal, run.requestId);
    await testPause('publish');
    await stage(run, partitions);
    run.phase('stage');
    throwIfAborted(run.signal, run.requestId);
    try {
      await promote(run, partitions, also === undefined ? {} : { also });
      run.phase('promote');
    } catch (error) {
      keepStaging = error instanceof ExportError && error.code === EXPORT_ERROR_CODES.rollbackFailed;
      throw error;
    }
    return { published: partitions, held };
  } finally {
    if (!keepStaging) await cleanStaging(run.store, run.layout, run.runId);
  }
}

/**
 * A report that changed shape (call list <-> summary) has days of this run published in the
 * other dataset: refused (ReportShapeChangedError), or with forceReplace, those days to empty
 * there in the same promotion.
 */
async function shapeChange(run: PublishRun, partitions: PartitionOutput[]): Promise<Emptied | undefined> {
  const other = otherDatasetLayout(run.layout);
  if (other === undefined) return undefined;
  const days = await daysPublishedIn(
    run.store,
    other,
    partitions.map((p) => p.dt),
    run.logger,
  );
  if (days.length === 0) return undefined;
  if (!run.forceReplace) {
    throw new ReportShapeChangedError(
      { reportId: run.layout.reportId, dataset: run.layout.dataset, publishedIn: other.dataset, days },
      { requestId: run.requestId },
    );
  }
  run.logger?.warn("Removing the report's days from the dataset of its earlier shape (forceReplace)", {
    dataset: other.dataset,
    days,
  });
  return { layout: other, dts: days };
}

/**
 * Adds an empty partition (no files) for each window date without rows: promotion then
 * deletes that date's earlier parts and writes a 0-row manifest, with the same backup and
 * rollback as any partition.
 */
function withEmptyDates(partitions: PartitionOutput[], windowDates: readonly string[]): PartitionOutput[] {
  const withRows = new Set(partitions.map((p) => p.dt));
  const empty = windowDates.filter((dt) => !withRows.has(dt)).map((dt) => ({ dt, rows: 0, files: [] }));
  if (empty.length === 0) return partitions;
  return [...partitions, ...empty].sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0));
}
