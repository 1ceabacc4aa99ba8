import type { Reconciliation } from './reconcile';
import type { Dataset } from './schema';
import type { HeldPartition, PartitionOutput, QualityCounts } from './types';

/**
 * A partition as published. A date of the window for which the run found no rows is
 * published empty and listed with `rows`, `files` and `bytes` 0.
 */
export interface PartitionSummary {
  dt: string;
  rows: number;
  files: number;
  bytes: number;
  /** Only when some count is not 0. */
  quality?: QualityCounts;
}

/** The small result the Lambda and the CLI return. */
export interface ExportSummary {
  /** Where the rows went: `calls`, or `summaries` for a summary result. */
  dataset: Dataset;
  reportId: string;
  /** The tenant the run exported for; absent in a single-tenant deployment. */
  tenant?: string;
  requestId: string;
  runId: string;
  /**
   * The instant the service's data was read as of (ISO 8601, UTC: the result's dateCreated,
   * see ExportOptions.dataAsOf): a day that had not ended then is provisional.
   */
  dataAsOf: string;
  rows: number;
  files: number;
  bytes: number;
  /**
   * Bytes of part files the run wrote to local disk (`spillDirectory`): their peak, since
   * all stay until the run ends. Size ephemeral storage and `spillBudgetBytes` from it.
   */
  spilledBytes: number;
  /** Every partition this run published, by `dt`, empty ones (rows 0) included. */
  partitions: PartitionSummary[];
  /** Rows dated outside the window and dropped (outsideWindow=drop); 0 otherwise. */
  droppedRows: number;
  /** Invalid UTF-8 sequences in the result the client replaced with U+FFFD; 0 when none. */
  replacedCharacters: number;
  /** The rows' sums against the result's summary. */
  reconciliation: Reconciliation;
  /** Partitions the shrink guard kept as published (not replaced); empty when none. */
  held: HeldPartition[];
  /** The table's snapshot this run committed (Iceberg tables); absent for the Hive layout. */
  table?: TableCommitSummary;
  /**
   * What the run staged for a committer (commit 'defer' only); absent when every partition
   * was held and nothing is to be committed: then nothing was staged.
   */
  staged?: StagedRunRef;
}

/** A deferred run's staged run object, as its committer is given it (small: a few hundred bytes). */
export interface StagedRunRef {
  /** The staged run object's key in the store. */
  key: string;
  reportId: string;
  runId: string;
  /** Absent in a single-tenant lake. */
  tenant?: string;
  /** Every day it replaces (for leases and the run record), sorted. */
  dts: string[];
}

/** A run's commit to a table, as the summary and the run record name it. */
export interface TableCommitSummary {
  /** The catalog's kind (`file`, `glue`). */
  catalog: string;
  /** `namespace.table` (the file catalog's: the table alone). */
  table: string;
  snapshotId: number;
  sequenceNumber: number;
  /** Commit attempts (1 without a conflict) and the conflicts re-applied. */
  attempts: number;
  conflicts: number;
}

/** The summary of the partitions a run published. */
export function summarize(
  run: {
    reportId: string;
    requestId: string;
    runId: string;
    dataAsOf: string;
    layout: { dataset: string; tenant?: string | undefined };
  },
  partitions: readonly PartitionOutput[],
  counts: {
    spilledBytes: number;
    droppedRows: number;
    replacedCharacters: number;
    reconciliation: Reconciliation;
    held: HeldPartition[];
    table?: TableCommitSummary | undefined;
    staged?: StagedRunRef | undefined;
  },
): ExportSummary {
  const list = partitions.map((p) => ({
    dt: p.dt,
    rows: p.rows,
    files: p.files.length,
    bytes: p.files.reduce((n, f) => n + f.bytes, 0),
    ...(p.quality !== undefined && Object.values(p.quality).some((n) => n > 0) ? { quality: p.quality } : {}),
  }));
  return {
    dataset: run.layout.dataset as Dataset,
    reportId: run.reportId,
    ...(run.layout.tenant === undefined ? {} : { tenant: run.layout.tenant }),
    requestId: run.requestId,
    runId: run.runId,
    dataAsOf: run.dataAsOf,
    rows: list.reduce((n, p) => n + p.rows, 0),
    files: list.reduce((n, p) => n + p.files, 0),
    bytes: list.reduce((n, p) => n + p.bytes, 0),
    spilledBytes: counts.spilledBytes,
    partitions: list,
    droppedRows: counts.droppedRows,
    replacedCharacters: counts.replacedCharacters,
    reconciliation: counts.reconciliation,
    held: counts.held,
    ...(counts.table === undefined ? {} : { table: counts.table }),
    ...(counts.staged === undefined ? {} : { staged: counts.staged }),
  };
}
