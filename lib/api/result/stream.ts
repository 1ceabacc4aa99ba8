import type { ReportRunDefinition, ResultRow, SummaryEntry } from '../../spec';

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
 * Where a parsed row carries its members that the spec's Result row does not document (see
 * {@link rawMembersOf}). A symbol, so it is never a member name and `for...in`, `Object.keys`
 * and `JSON.stringify` of the row do not see it; registered (`Symbol.for`) so that two copies
 * of this module in one bundle agree.
 */
export const RAW_MEMBERS: unique symbol = Symbol.for('report-export.raw-members');

/**
 * A row's undocumented members, in the order the service sent them: member name -> the
 * compact JSON text of its value exactly as sent. A number keeps its source text (`1e3`,
 * `12.50`, `-0`), a string is its JSON text (escaped as `JSON.stringify` does), an object
 * or array is its compact JSON (whitespace outside strings removed, member order and
 * numbers' text kept), `true`, `false` and `null` as such. (A row with a member sent twice
 * is refused.) A null element of an array row is left out, as it is of the row.
 */
export type RawMembers = ReadonlyMap<string, string>;

/**
 * The members of a row the client parsed that the spec does not document, as sent (see
 * {@link RawMembers}); undefined when the row has none, or did not come from the client's
 * parser. The members are in the row too, as parsed values; this keeps their source text,
 * which parsing does not (`1e3` parses as `1000`, `12.50` as the text `"12.50"`).
 */
export function rawMembersOf(row: ResultRow): RawMembers | undefined {
  return (row as { [RAW_MEMBERS]?: RawMembers })[RAW_MEMBERS];
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
 *
 * Members the spec does not document are in the rows as parsed values, and their source
 * text is on the row for {@link rawMembersOf}.
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
