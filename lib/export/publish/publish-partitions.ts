import {
  EXPORT_ERROR_CODES,
  ExportError,
  ReportShapeChangedError,
  throwIfAborted,
  VerificationError,
} from '../errors';
import type { StagedRunRef, TableCommitSummary } from '../export-summary';
import type { ExportLogger, HeldPartition, PartitionOutput } from '../types';
import { commitStaged } from './commit-staged';
import { daysPublishedIn, otherDatasetLayout } from './other-dataset';
import { cleanStaging, type Emptied, type PublishContext, promote, stage } from './publish';
import { manifestLookup, type PublishedLookup } from './published-partition';
import { guardShrink } from './shrink-guard';
import { STAGED_RUN_VERSION, writeStagedRun } from './staged-run';
import { deleteDataFiles, type TableTarget, tableLookup, writeDataFiles } from './table-publish';
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
  /**
   * With a table: `defer` stops once the CSV is staged and the data files written, with the
   * staged run written for a committer (commit-staged.ts); `now` commits it here too.
   * @default 'now'
   */
  commit?: 'now' | 'defer';
}

/** What a publish did: the partitions published, those held, the table's commit, or what it staged. */
export interface Published {
  published: PartitionOutput[];
  held: HeldPartition[];
  /** The commit to the run's table (commit 'now'). */
  commit: Omit<TableCommitSummary, 'catalog' | 'table'> | undefined;
  /** The staged run (commit 'defer'); absent when nothing was to be committed. */
  staged?: StagedRunRef;
}

/**
 * Verifies the part files on local disk, stages them, and promotes them (publish.ts has
 * the protocol and the reader guarantees). With a table the CSV is staged, the Parquet
 * files written to the table's data keys and the run described by a staged run object
 * (staged-run.ts); the committer (commit-staged.ts: here, with commit 'now'; the workflow's
 * Commit task with 'defer') then promotes the CSV and commits the tables in one snapshot
 * each, as the promotion's last step. Resolves with every partition published, the window's
 * empty dates included. The staging area is deleted afterwards (deferred: by the committer),
 * except when a rollback failed: then it holds the only copy of the overwritten objects.
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
  if (run.table !== undefined) return await publishToTable(run, run.table, partitions, held, also);
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
    return { published: partitions, held, commit: undefined };
  } finally {
    if (!keepStaging) await cleanStaging(run.store, run.layout, run.runId);
  }
}

/**
 * With a table: the CSV staged, the Parquet written to the table's data keys, the staged run
 * written; then (commit 'now') committed in-process through the committer's own code path. A
 * run all of whose partitions were held stages and commits nothing (no empty snapshot).
 */
async function publishToTable(
  run: PublishRun,
  table: TableTarget,
  partitions: PartitionOutput[],
  held: HeldPartition[],
  also: Emptied | undefined,
): Promise<Published> {
  if (partitions.length === 0) return { published: partitions, held, commit: undefined };
  // The data keys this run wrote or began to: a run that is its own committer removes them
  // on a failure; a deferred one (a tenant's session) may not, they are orphans.
  const dataFiles: string[] = [];
  let staged: StagedRunRef;
  try {
    throwIfAborted(run.signal, run.requestId);
    await testPause('publish');
    // The CSV is staged as before; the Parquet goes to the table's data keys.
    await stage(
      run,
      partitions.map((p) => ({ ...p, files: p.files.filter((f) => f.format === 'csv') })),
    );
    const files = await writeDataFiles(
      { ...run, table: table.table, tenant: run.layout.tenant, reportId: run.layout.reportId },
      partitions,
      { written: dataFiles },
    );
    staged = await writeStagedRun(run.store, run.layout, {
      version: STAGED_RUN_VERSION,
      ...(run.layout.tenant === undefined ? {} : { tenant: run.layout.tenant }),
      reportId: run.layout.reportId,
      runId: run.runId,
      requestId: run.requestId,
      dataset: run.schema.dataset,
      createdAt: new Date().toISOString(),
      csvExtension: run.layout.csvExtension,
      window: run.window,
      exportedAt: run.exportedAt,
      ...(run.dataAsOf === undefined ? {} : { dataAsOf: run.dataAsOf }),
      reconciliation: run.reconciliation,
      promoted: [...run.schema.promoted],
      dts: partitions.map((p) => p.dt),
      partitions: partitions.map((p) => ({
        dt: p.dt,
        rows: p.rows,
        csv: p.files
          .filter((f) => f.format === 'csv')
          .map((f) => ({ part: f.part, rows: f.rows, bytes: f.bytes, sha256: f.sha256 })),
        ...(p.quality === undefined ? {} : { quality: p.quality }),
        ...(p.callTotals === undefined ? {} : { callTotals: p.callTotals }),
      })),
      files,
      ...(also === undefined
        ? {}
        : { other: { dataset: also.layout.dataset as 'calls' | 'summaries', dts: [...also.dts] } }),
    });
    run.phase('stage');
  } catch (error) {
    // Data files no staged run names are nobody's: orphans under 'defer' (orphan-file
    // deletion removes them), deleted here by a run that commits them itself.
    if (run.commit !== 'defer') await deleteDataFiles(table.table.location.store, dataFiles);
    await cleanStaging(run.store, run.layout, run.runId);
    throw error;
  }
  if (run.commit === 'defer') return { published: partitions, held, commit: undefined, staged };
  throwIfAborted(run.signal, run.requestId);
  // commitStaged removes the staging (and, before a commit was sent, the data files) on failure.
  const result = await commitStaged(
    {
      store: run.store,
      prefix: run.layout.prefix,
      tables: { catalog: table.table.catalog, namespace: table.table.id.namespace },
      ...(run.layout.tenant === undefined ? {} : { tenant: run.layout.tenant }),
    },
    [staged],
    {
      ...(run.signal === undefined ? {} : { signal: run.signal }),
      ...(run.logger === undefined ? {} : { logger: run.logger }),
    },
    { keepOnFailure: false },
  );
  const outcome = result.runs[0];
  if (outcome?.status !== 'committed') {
    await deleteDataFiles(table.table.location.store, dataFiles);
    throw new VerificationError(
      EXPORT_ERROR_CODES.verifyFailed,
      outcome?.reason ?? `The staged run ${staged.key} was not committed`,
      { requestId: run.requestId },
    );
  }
  const own = result.tables.find((t) => t.dataset === run.schema.dataset);
  run.phase('promote', own === undefined ? undefined : { snapshotId: own.snapshotId });
  return { published: partitions, held, commit: own };
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
