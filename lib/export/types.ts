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

/** A finished part file of one format, spilled to local disk and ready to stage. */
export interface SpilledFile {
  format: OutputFormat;
  part: number;
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** Every part file of one partition. */
export interface PartitionOutput {
  dt: string;
  rows: number;
  files: SpilledFile[];
}
