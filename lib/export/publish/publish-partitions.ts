import { EXPORT_ERROR_CODES, ExportError, ReportShapeChangedError, throwIfAborted } from '../errors';
import type { CommitResult } from '../table';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';
import { daysPublishedIn, otherDatasetLayout } from './other-dataset';
import { cleanStaging, type Emptied, type PublishContext, promote, stage } from './publish';
import { manifestLookup, type PublishedLookup } from './published-partition';
import { guardShrink } from './shrink-guard';
import { commitRun, deleteDataFiles, type TableTarget, tableLookup, writeDataFiles } from './table-publish';
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
  /**
   * The Iceberg tables of the Parquet datasets (table-publish.ts); undefined: the Hive layout,
   * Parquet promoted with the CSV.
   */
  table: TableTarget | undefined;
}

/** What a publish did: the partitions published, those held, the table's commit (a table). */
export interface Published {
  published: PartitionOutput[];
  held: HeldPartition[];
  commit: CommitResult | undefined;
}

/**
 * Verifies the part files on local disk, stages them, and promotes them (publish.ts has
 * the protocol and the reader guarantees); with a table, the Parquet files are committed to
 * it instead, in one snapshot, as the promotion's last step (table-publish.ts). Resolves with every partition published,
 * the window's empty dates included. The staging area is deleted afterwards, except
 * when a rollback failed: then it holds the only copy of the overwritten objects.
 */
export async function publishPartitions(run: PublishRun, withRows: PartitionOutput[]): Promise<Published> {
  await verifyPartitions(withRows, run.requestId, { csvGzip: run.csvGzip, schema: run.schema });
  const { replace: partitions, held } = await guardShrink(
    {
      published: lookup(run, 'own'),
      dataset: run.schema.dataset,
      minShare: run.minShareOfPublished,
      force: run.forceReplace,
      logger: run.logger,
    },
    withEmptyDates(withRows, run.windowDates),
  );
  const also = await shapeChange(run, partitions);
  run.phase('write', { partitions: partitions.length, held: held.length });
  const table = run.table;
  let keepStaging = false;
  let dataFiles: string[] = [];
  let committing = false;
  let commit: CommitResult | undefined;
  let finish: (() => Promise<void>) | undefined;
  try {
    throwIfAborted(run.signal, run.requestId);
    await testPause('publish');
    if (table === undefined) {
      await stage(run, partitions);
    } else {
      // The CSV is staged and promoted as before; the Parquet goes to the table's data keys.
      await stage(
        run,
        partitions.map((p) => ({ ...p, files: p.files.filter((f) => f.format === 'csv') })),
      );
      const files = await writeDataFiles(
        { ...run, table: table.table, tenant: run.layout.tenant, reportId: run.layout.reportId },
        partitions,
      );
      dataFiles = files.map((f) => f.key);
      const context = { ...run, tenant: run.layout.tenant, reportId: run.layout.reportId };
      const dts = partitions.map((p) => p.dt);
      finish = async () => {
        committing = true;
        commit = await commitRun(table.table, context, dts, files);
        // The report's days in its other table (a report that changed shape): a second
        // commit, since Iceberg commits one table at a time.
        if (also !== undefined && table.other !== undefined)
          await commitRun(table.other, context, also.dts, []);
      };
    }
    run.phase('stage');
    throwIfAborted(run.signal, run.requestId);
    try {
      await promote(run, partitions, {
        ...(also === undefined ? {} : { also }),
        ...(finish === undefined ? {} : { formats: ['csv'] as const, finish }),
      });
      run.phase('promote', commit === undefined ? undefined : { snapshotId: commit.snapshotId });
    } catch (error) {
      keepStaging = error instanceof ExportError && error.code === EXPORT_ERROR_CODES.rollbackFailed;
      throw error;
    }
    return { published: partitions, held, commit };
  } catch (error) {
    // Data files no commit was sent for are nobody's. Once a commit was sent its outcome may be
    // unknown (it may have landed): its files stay, orphans at worst.
    if (table !== undefined && !committing) await deleteDataFiles(table.table.location.store, dataFiles);
    throw error;
  } finally {
    if (!keepStaging) await cleanStaging(run.store, run.layout, run.runId);
  }
}

/** What is published of the report's days in its own dataset, or in its other one. */
function lookup(run: PublishRun, which: 'own' | 'other'): PublishedLookup {
  if (run.table !== undefined) {
    const table = which === 'own' ? run.table.table : run.table.other;
    if (table !== undefined) return tableLookup(table, run.layout.reportId, run.layout.tenant);
  }
  const layout = which === 'own' ? run.layout : (otherDatasetLayout(run.layout) ?? run.layout);
  return manifestLookup(run.store, layout, run.logger);
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
    lookup(run, 'other'),
    partitions.map((p) => p.dt),
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
