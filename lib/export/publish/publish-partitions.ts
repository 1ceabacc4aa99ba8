import { EXPORT_ERROR_CODES, ExportError, throwIfAborted } from '../errors';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';
import { cleanStaging, type PublishContext, promote, stage } from './publish';
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
  run.phase('write', { partitions: partitions.length, held: held.length });
  let keepStaging = false;
  try {
    throwIfAborted(run.signal, run.requestId);
    await testPause('publish');
    await stage(run, partitions);
    run.phase('stage');
    throwIfAborted(run.signal, run.requestId);
    try {
      await promote(run, partitions);
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
