import * as fs from 'node:fs/promises';
import type { ExportOptions } from './export-options';
import { type ExportSummary, summarize } from './export-summary';
import { phaseLog } from './phases';
import { publishPartitions } from './publish/publish-partitions';
import { makeSpillRoot, readPartitions, removeStaleSpill } from './read-partitions';
import { resolveExportOptions } from './resolve-export-options';

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
  const run = resolveExportOptions(options);
  const phase = phaseLog(run.logger);
  // What a killed export on this machine left (its process gone) is this one's disk.
  const stale = await removeStaleSpill(run.spillDirectory);
  if (stale.length > 0) run.logger?.warn('removed the spill of exports whose process ended', { stale });
  const spillRoot = await makeSpillRoot(run);
  try {
    const read = await readPartitions(run, spillRoot);
    phase('read', { rows: read.rows, spilledBytes: read.spilledBytes });
    const { published, held } = await publishPartitions(
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
        csvGzip: run.csvGzip,
        windowDates: run.windowDates,
        signal: run.signal,
        phase,
      },
      read.partitions,
    );
    return summarize(run, published, { ...read, held });
  } finally {
    await fs.rm(spillRoot, { recursive: true, force: true });
    phase('cleanup');
  }
}
