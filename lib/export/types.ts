import type { Catalog } from '../stores';
import type { OutputFormat } from './layout';

/** Where the export core logs; never given row values, only member names and counts. */
export interface ExportLogger {
  warn(message: string, data?: Record<string, unknown>): void;
  /** Progress: one line per phase with its duration. */
  info?(message: string, data?: Record<string, unknown>): void;
}

/**
 * What to do with a row member the schema does not know: `keep` it in the `extra` column,
 * or `fail` the run (EXPORT_UNKNOWN_MEMBER, naming the member).
 */
export const UNKNOWN_MEMBER_POLICIES = { keep: 'keep', fail: 'fail' } as const;
export type UnknownMemberPolicy = (typeof UNKNOWN_MEMBER_POLICIES)[keyof typeof UNKNOWN_MEMBER_POLICIES];

/** What to do with a row dated outside the run's window. */
export const OUTSIDE_WINDOW_POLICIES = { fail: 'fail', drop: 'drop' } as const;
export type OutsideWindowPolicy = (typeof OUTSIDE_WINDOW_POLICIES)[keyof typeof OUTSIDE_WINDOW_POLICIES];

/** What to do when the result's summary disagrees with its rows (see ExportOptions.summaryMismatch). */
export const SUMMARY_MISMATCH_POLICIES = { flag: 'flag', fail: 'fail' } as const;
export type SummaryMismatchPolicy =
  (typeof SUMMARY_MISMATCH_POLICIES)[keyof typeof SUMMARY_MISMATCH_POLICIES];

/**
 * Data-quality counts of one partition's rows: recorded in its manifests and the run
 * record, never a reason to fail (rows dated outside the window are, see outsideWindow).
 */
export interface QualityCounts {
  /** Rows without a connId (a call list's rows should each have one). */
  nullConnId: number;
  /** Rows whose connId an earlier row of the same partition had. */
  duplicateConnId: number;
  /** Rows with a negative ring or duration. */
  negativeTime: number;
  /** Rows with ans, ref or lost outside 0..1. */
  flagOutOfRange: number;
}

/**
 * What the shrink guard compares for a dataset: the number of rows (`calls`: one row per
 * call) or the calls a summary's rows count (`summaries`: the sum of every row's `ans`,
 * `ref` and `lost`, since a summary keeps about one row per user however few calls it
 * counts). Both measure the same thing, a day's calls, so the two datasets' guards decide
 * the same on the same shrinkage.
 */
export const HELD_BASES = { rows: 'rows', calls: 'calls' } as const;
export type HeldBasis = (typeof HELD_BASES)[keyof typeof HELD_BASES];

/**
 * A partition the shrink guard kept as published: the run had too few of its rows (a call
 * list) or of its calls (a summary). Print `dt` and, by `basis`, `publishedRows`/`rows` or
 * `publishedCalls`/`calls`.
 */
export type HeldPartition = HeldRowsPartition | HeldCallsPartition;

interface HeldPartitionCounts {
  /** The partition's day (YYYY-MM-DD). */
  dt: string;
  /** Rows of the published partition (its Parquet manifest). */
  publishedRows: number;
  /** Rows this run would have replaced it with. */
  rows: number;
}

/** A `calls` day held: this run has fewer than the guard's share of its published rows. */
export interface HeldRowsPartition extends HeldPartitionCounts {
  basis: typeof HELD_BASES.rows;
}

/** A `summaries` day held: this run's rows count fewer than the guard's share of its published calls. */
export interface HeldCallsPartition extends HeldPartitionCounts {
  basis: typeof HELD_BASES.calls;
  /** Calls the published partition counts (the sum of its rows' `ans`, `ref` and `lost`). */
  publishedCalls: number;
  /** Calls this run's rows count, likewise. */
  calls: number;
}

/** A finished part file of one format, spilled to local disk and ready to stage. */
export interface SpilledFile {
  format: OutputFormat;
  part: number;
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/**
 * The calls a summary partition's rows count: the sums of their `ans`, `ref` and `lost`
 * (each call is answered, refused or lost). Recorded in a summary partition's manifests
 * (`callTotals`); what the shrink guard judges a summary day by.
 */
export interface CallTotals {
  ans: number;
  ref: number;
  lost: number;
}

/** Every part file of one partition. */
export interface PartitionOutput {
  dt: string;
  rows: number;
  files: SpilledFile[];
  /** Counts over the partition's rows (all 0 for a partition without rows). */
  quality?: QualityCounts;
  /** A summary partition's call totals (absent for a call list, and for a partition without rows). */
  callTotals?: CallTotals;
}

/** Where the lake's Iceberg tables are registered (see ExportOptions.tables). */
export interface LakeTables {
  catalog: Catalog;
  /** The catalog's namespace: the Glue database; `''` for the file catalog. */
  namespace: string;
}
