import type { ReportRunDefinition, ResultRow, SummaryEntry } from '../spec/types';

/**
 * The members of a report result that precede `data` in the document, parsed before
 * the first row is handed out. Counts are normalised to numbers.
 */
export interface ReportResultHead {
  requestId: string;
  tenantId: string;
  /** The request as run; `timeZoneId` and `displayFields` come from here. */
  request: ReportRunDefinition;
  totalCount: number;
  rowLimitExceeded: boolean;
  rowLimit: number;
}

/** Everything of the result except the rows, known once the rows are consumed. */
export interface ReportResultMetadata extends ReportResultHead {
  effort: number;
  queryDuration: number;
  totalDuration: number;
  queryCount: number;
  summary: SummaryEntry[];
  status: number;
  statusMessage: string;
  /** Rows the reader yielded; equals totalCount unless rowLimitExceeded. */
  rowsRead: number;
}

/**
 * A report result read as it arrives: `head` first, then `rows` (iterate once), then
 * `done()` with the whole metadata. A truncated or reset body, or a row count that
 * disagrees with `totalCount`, rejects the iteration (never a short result).
 * This is the contract between the client (lib/api) and the export core (lib/export).
 */
export interface ReportResultStream {
  readonly head: ReportResultHead;
  readonly rows: AsyncIterable<ResultRow>;
  /** Resolves after `rows` has been fully consumed; rejects with the same error as the iteration. */
  done(): Promise<ReportResultMetadata>;
  /** Aborts the underlying HTTP body. */
  cancel(reason?: unknown): void;
}
