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
  /**
   * Characters replaced by U+FFFD: invalid UTF-8 sequences and lone surrogates (`\uD800`
   * escapes without their pair). 0 for a clean result; with `invalidText: 'fail'` such a
   * result rejects instead.
   */
  replacedCharacters: number;
}

/**
 * A report result read as it arrives: `head` first, then the rows through `rows` or
 * `batches` (iterate one of them, once), then `done()` with the whole metadata. A truncated
 * or reset body, or a row count that disagrees with `totalCount`, rejects the iteration
 * (never a short result). This is the contract between the client (lib/api) and the export
 * core (lib/export).
 *
 * Numbers: a JSON number whose source text `String(Number(text))` would not reproduce
 * (more than 15 significant digits such as `441234567890123456`, or forms such as `1.50`,
 * `1e3`, `-0`) is handed out as that exact text, a string, so no digit is lost; a consumer
 * that wants a number converts it. Numbers that round-trip stay numbers. So a member typed
 * `number` in {@link ResultRow} may hold a decimal string.
 */
export interface ReportResultStream {
  readonly head: ReportResultHead;
  /** The rows one by one. */
  readonly rows: AsyncIterable<ResultRow>;
  /** The same rows in parsed arrays (one await per batch, not per row): the fast way. */
  readonly batches: AsyncIterable<ResultRow[]>;
  /** Resolves after `rows` has been fully consumed; rejects with the same error as the iteration. */
  done(): Promise<ReportResultMetadata>;
  /** Aborts the underlying HTTP body. */
  cancel(reason?: unknown): void;
}
