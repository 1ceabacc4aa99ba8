import * as fs from 'node:fs/promises';
import type { ObjectStore } from '../stores';
import type { ExportOptions, LakeTables } from './export-options';
import { type ExportSummary, summarize } from './export-summary';
import type { OutputLayout } from './layout';
import { phaseLog } from './phases';
import { otherDatasetLayout } from './publish/other-dataset';
import { preparedTable } from './publish/prepared-table';
import { publishPartitions } from './publish/publish-partitions';
import type { TableTarget } from './publish/table-publish';
import { makeSpillRoot, readPartitions, removeStaleSpill } from './read-partitions';
import { type ResolvedExportOptions, resolveExportOptions } from './resolve-export-options';
import { ensureTable, fileSchema, type IcebergTable, type LoadedTable, lakeTable, tableName } from './table';

/**
 * Exports a report result to date-partitioned Parquet and CSV in an object store, in
 * three steps: resolve the options (export-options.ts: validation and defaults), read
 * the source into per-date part files on local disk (read-partitions.ts), publish them
 * (publish/: verify, stage, promote; publish.ts has the protocol and the reader
 * guarantees). Resolves with a summary; when it rejects, nothing new is visible and
 * earlier partitions are intact (a process killed during promotion is the exception
 * publish.ts documents).
 *
 * @example
 * const summary = await exportReportResult({ source: stream, store, reportId });
 */
export async function exportReportResult(options: ExportOptions): Promise<ExportSummary> {
  const resolved = resolveExportOptions(options);
  const phase = phaseLog(resolved.logger);
  const table =
    resolved.tables === undefined ? undefined : tableTarget(resolved.store, resolved.layout, resolved.tables);
  // The table's field ids before any file is encoded. Committing now (the CLI's local paths),
  // the table is created or evolved here; deferred (a tenant's session), it is only read: the
  // committer prepared it. A tenant's table is for tenants, and refuses a tenant-less export.
  const tenant = resolved.layout.tenant;
  const run =
    table === undefined
      ? resolved
      : {
          ...resolved,
          icebergFile: {
            ...fileSchema(await writableTable(table.table, resolved)),
            ...(tenant === undefined ? {} : { tenant }),
          },
        };
  // What a killed export on this machine left (its process gone) is this one's disk.
  const stale = await removeStaleSpill(run.spillDirectory);
  if (stale.length > 0) run.logger?.warn('removed the spill of exports whose process ended', { stale });
  const spillRoot = await makeSpillRoot(run);
  try {
    const read = await readPartitions(run, spillRoot);
    phase('read', { rows: read.rows, spilledBytes: read.spilledBytes });
    const { published, held, commit, staged } = await publishPartitions(
      {
        store: run.store,
        layout: run.layout,
        schema: run.schema,
        reconciliation: read.reconciliation,
        minShareOfPublished: run.minShareOfPublished,
        forceReplace: run.forceReplace,
        logger: run.logger,
        runId: run.runId,
        requestId: run.requestId,
        window: run.manifestWindow,
        exportedAt: run.now().toISOString(),
        dataAsOf: run.dataAsOf,
        csvGzip: run.csvGzip,
        windowDates: run.windowDates,
        signal: run.signal,
        phase,
        table,
        commit: run.commit,
      },
      read.partitions,
    );
    return summarize(run, published, {
      ...read,
      held,
      staged,
      ...(commit === undefined || table === undefined
        ? {}
        : {
            table: {
              catalog: table.table.catalog.kind,
              table: tableName(table.table),
              snapshotId: commit.snapshotId,
              sequenceNumber: commit.sequenceNumber,
              attempts: commit.attempts,
              conflicts: commit.conflicts,
            },
          }),
    });
  } finally {
    await fs.rm(spillRoot, { recursive: true, force: true });
    phase('cleanup');
  }
}

/** The table the run's data files are for: made ready here (`commit: 'now'`), or as the committer left it. */
function writableTable(t: IcebergTable, run: ResolvedExportOptions): Promise<LoadedTable> {
  const tenant = run.layout.tenant;
  if (run.commit === 'defer') return preparedTable(t, run.schema, tenant);
  return ensureTable(t, run.schema, {
    ...(run.signal === undefined ? {} : { signal: run.signal }),
    ...(tenant === undefined ? {} : { tenant }),
  });
}

/** The run's dataset's table and the report's other dataset's, in the lake's catalog. */
function tableTarget(store: ObjectStore, layout: OutputLayout, tables: LakeTables): TableTarget {
  const of = (dataset: string) => lakeTable({ store, prefix: layout.prefix, ...tables }, dataset);
  const other = otherDatasetLayout(layout);
  return { table: of(layout.dataset), other: other === undefined ? undefined : of(other.dataset) };
}
