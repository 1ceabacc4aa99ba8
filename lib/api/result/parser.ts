import type { ReportRunDefinition, ResultRow, SummaryEntry } from '../../spec';
import { toOptionalInt, toOptionalNumber } from '../envelope';
import {
  AbortedError,
  ApiError,
  type ApiErrorDetails,
  ConnectionError,
  ProtocolError,
  RowCountMismatchError,
} from '../errors';
import { ArrayRowShape, columnNamesOf } from './columns';
import { deadlineError, type ResultDeadline, raceDeadline, startResultDeadline } from './deadline';
import { setRawMembers } from './members';
import { ResultScanner, type ScannerLimits } from './scanner';
import {
  RAW_MEMBERS,
  type RawMembers,
  type ReportResultHead,
  type ReportResultMetadata,
  type ReportResultStream,
} from './stream';
import type { InvalidTextMode } from './text';

export interface ParseResultOptions {
  /** Method/path for errors. */
  details?: ApiErrorDetails;
  /** Called by `cancel()` and when reading stops early, e.g. to abort the HTTP body. */
  onCancel?: (reason: unknown) => void;
  limits?: Partial<ScannerLimits>;
  /**
   * Invalid UTF-8 and lone surrogates (`\uD800` without its pair): `count` (default)
   * replaces each with U+FFFD and reports the number as `replacedCharacters` in `done()`;
   * `fail` rejects with a ProtocolError naming the row index and member.
   */
  invalidText?: InvalidTextMode;
  /** Aborts reading (AbortedError, or the signal's own ApiError reason) and cancels the body. */
  signal?: AbortSignal;
  /** Time for the whole read, from this call to the last row; then a TimeoutError. */
  totalTimeoutMs?: number;
}

/** @deprecated `batches` is part of {@link ReportResultStream}; use that type. */
export type ReportResultBatchStream = ReportResultStream;

/**
 * Parses a report result document as it arrives. Resolves once the head (the members
 * before `data`: `request`, `totalCount`, ...) is read; rows then stream with flat memory.
 *
 * Decisions: `request` and `totalCount` must precede `data` (they always do in the
 * service's documents); if not, a {@link ProtocolError} says so rather than buffering the
 * rows. The document must be strict JSON: no trailing commas, no member twice (`data`
 * included, and inside a row). Rows may be objects, or arrays ordered like
 * `request.displayFields`, as many values as fields (mapped to objects; null entries are
 * omitted like absent members). A value nested past `MAX_VALUE_DEPTH` is a
 * `ValueTooDeepError`. A body that ends early is a
 * `TruncatedBodyError`; a source that throws is a `ConnectionError` (or its own `ApiError`);
 * rows read must equal `totalCount`, or when `rowLimitExceeded`, min(totalCount, rowLimit):
 * otherwise a `RowCountMismatchError`, raised as soon as a row beyond `totalCount` arrives.
 *
 * @param source body chunks, e.g. an HTTP body or `fs.createReadStream(path)`.
 */
export async function parseReportResultStream(
  source: AsyncIterable<Uint8Array>,
  options: ParseResultOptions = {},
): Promise<ReportResultStream> {
  const details = options.details ?? {};
  const deadline = startResultDeadline(options.signal, options.totalTimeoutMs, details);
  const scanner = new ResultScanner(details, { limits: options.limits, invalidText: options.invalidText });
  const iterator = source[Symbol.asyncIterator]();
  const signal = deadline.signal;
  const pull = async (): Promise<boolean> => {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await raceDeadline(iterator.next(), signal, details);
    } catch (error) {
      // The transport maps its own abort to AbortedError; the deadline's reason says more.
      if (signal?.aborted) throw deadlineError(signal, details);
      if (error instanceof ApiError) throw error;
      throw new ConnectionError('The result body failed', { ...details, cause: error });
    }
    if (next.done) return false;
    scanner.push(next.value);
    return true;
  };

  let head: ReturnType<typeof readHead>;
  try {
    while (scanner.head === undefined) {
      if (!(await pull())) scanner.finish(); // throws: the body ended before 'data'
    }
    head = readHead(scanner.head, details);
  } catch (error) {
    deadline.dispose();
    options.onCancel?.(error);
    // Not awaited: a source stuck in a read would hold the caller until it answers.
    iterator.return?.().catch(() => undefined);
    throw error;
  }
  return new ResultStream(head, scanner, pull, iterator, options, details, deadline);
}

class ResultStream implements ReportResultStream {
  readonly head: ReportResultHead;
  readonly #raw: Record<string, unknown>;
  readonly #scanner: ResultScanner;
  readonly #pull: () => Promise<boolean>;
  readonly #iterator: AsyncIterator<Uint8Array>;
  readonly #options: ParseResultOptions;
  readonly #details: ApiErrorDetails;
  readonly #deadline: ResultDeadline;
  /** Rows beyond this cannot be right: the service never sends more than it counted. */
  readonly #maxRows: number;
  #shape: ArrayRowShape | undefined;
  readonly #done: Promise<ReportResultMetadata>;
  #resolve!: (m: ReportResultMetadata) => void;
  #reject!: (e: unknown) => void;
  #rowsRead = 0;
  #started = false;
  #cancelled: ApiError | undefined;
  readonly #onAbort = () => {
    const signal = this.#deadline.signal;
    if (signal) this.#stop(deadlineError(signal, this.#details), signal.reason);
  };

  constructor(
    head: ReportResultHead & { raw: Record<string, unknown>; maxRows: number },
    scanner: ResultScanner,
    pull: () => Promise<boolean>,
    iterator: AsyncIterator<Uint8Array>,
    options: ParseResultOptions,
    details: ApiErrorDetails,
    deadline: ResultDeadline,
  ) {
    const { raw, maxRows, ...rest } = head;
    this.head = rest;
    this.#raw = raw;
    this.#maxRows = maxRows;
    this.#scanner = scanner;
    this.#pull = pull;
    this.#iterator = iterator;
    this.#options = options;
    this.#details = details;
    this.#deadline = deadline;
    this.#done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#done.catch(() => undefined); // observed through done() or the iteration
    this.#done.then(this.#release, this.#release);
    deadline.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (deadline.signal?.aborted) this.#onAbort();
  }

  get batches(): AsyncIterable<ResultRow[]> {
    return { [Symbol.asyncIterator]: () => this.#batchIterator() };
  }

  get rows(): AsyncIterable<ResultRow> {
    return {
      [Symbol.asyncIterator]: () => {
        const batches = this.#batchIterator();
        let batch: ResultRow[] = [];
        let index = 0;
        return {
          next: async (): Promise<IteratorResult<ResultRow>> => {
            while (index >= batch.length) {
              const r = await batches.next();
              if (r.done) return { done: true, value: undefined };
              batch = r.value;
              index = 0;
            }
            return { done: false, value: batch[index++] as ResultRow };
          },
          return: async (): Promise<IteratorResult<ResultRow>> => {
            await batches.return?.(undefined);
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  done(): Promise<ReportResultMetadata> {
    return this.#done;
  }

  cancel(reason?: unknown): void {
    this.#stop(
      new AbortedError('The result stream was cancelled', { ...this.#details, cause: reason }),
      reason,
    );
  }

  readonly #release = () => {
    this.#deadline.dispose();
    this.#deadline.signal?.removeEventListener('abort', this.#onAbort);
  };

  /** Ends the read from outside the iteration: rejects `done()`, releases the body. */
  #stop(error: ApiError, reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = error;
    this.#options.onCancel?.(reason);
    this.#reject(error);
    this.#iterator.return?.().catch(() => undefined);
  }

  async *#batchIterator(): AsyncGenerator<ResultRow[]> {
    if (this.#started) throw new ProtocolError('The rows of a result can be iterated once', this.#details);
    this.#started = true;
    let finished = false;
    try {
      for (;;) {
        if (this.#cancelled) throw this.#cancelled;
        for (const run of this.#scanner.takeRuns()) {
          const rows = this.#parseRun(run);
          this.#rowsRead += rows.length;
          yield rows;
          if (this.#cancelled) throw this.#cancelled;
        }
        if (!(await this.#pull())) break;
      }
      if (this.#cancelled) throw this.#cancelled;
      const metadata = this.#finish();
      finished = true;
      this.#resolve(metadata);
    } catch (error) {
      this.#reject(error);
      throw error;
    } finally {
      if (!finished) {
        // Stopped early (break or error): release the body, without waiting for a stuck read.
        this.#options.onCancel?.(undefined);
        this.#iterator.return?.().catch(() => undefined);
        this.#reject(new AbortedError('Row iteration stopped before the end', this.#details));
      }
    }
  }

  #parseRun(parsed: unknown[]): ResultRow[] {
    if (this.#rowsRead + parsed.length > this.#maxRows) {
      // An endless or wrong body is stopped at the first row too many, not read to its end.
      throw new RowCountMismatchError(this.#maxRows, this.#rowsRead + parsed.length, this.#details);
    }
    for (let i = 0; i < parsed.length; i++) {
      const row = parsed[i];
      if (Array.isArray(row)) parsed[i] = this.#fromArray(row, this.#rowsRead + i);
      else if (typeof row !== 'object' || row === null) {
        throw new ProtocolError(
          `Row index ${this.#rowsRead + i} is neither an object nor an array`,
          this.#details,
        );
      }
    }
    return parsed as ResultRow[];
  }

  #fromArray(values: unknown[], index: number): ResultRow {
    this.#shape ??= new ArrayRowShape(
      columnNamesOf(this.head.request.displayFields, this.#details),
      this.#details,
    );
    const row = this.#shape.toRow(values, index);
    const raw = (values as { [RAW_MEMBERS]?: RawMembers })[RAW_MEMBERS];
    if (raw !== undefined) setRawMembers(row, raw);
    return row as ResultRow;
  }

  #finish(): ReportResultMetadata {
    const tail = this.#scanner.finish();
    const all = { ...this.#raw, ...tail };
    const rowLimit = toOptionalInt(all.rowLimit) ?? this.head.rowLimit;
    const rowLimitExceeded = all.rowLimitExceeded === true || all.rowLimitExceeded === 'true';
    const total = this.head.totalCount;
    const expected = rowLimitExceeded && rowLimit > 0 ? Math.min(total, rowLimit) : total;
    if (this.#rowsRead !== expected) throw new RowCountMismatchError(expected, this.#rowsRead, this.#details);
    return {
      ...this.head,
      rowLimit,
      rowLimitExceeded,
      effort: toOptionalNumber(all.effort) ?? 0,
      queryDuration: toOptionalNumber(all.queryDuration) ?? 0,
      totalDuration: toOptionalNumber(all.totalDuration) ?? 0,
      queryCount: toOptionalNumber(all.queryCount) ?? 0,
      summary: summaryOf(all.summary, this.#details),
      status: toOptionalNumber(all.status) ?? 0,
      statusMessage: typeof all.statusMessage === 'string' ? all.statusMessage : '',
      rowsRead: this.#rowsRead,
      replacedCharacters: this.#scanner.replacedCharacters,
    };
  }
}

/**
 * The result's `summary` as entries. The spec says an array of objects; a single object is
 * read as the one entry it stands for (as single-item reads accept a bare object, see
 * expectArray): reconciliation then compares it with the rows, so a wrong reading shows as
 * a mismatch, never as a summary silently left out. Absent or null: no entries (nothing to
 * reconcile, recorded as such). Anything else is refused by name.
 */
function summaryOf(summary: unknown, details: ApiErrorDetails): SummaryEntry[] {
  if (summary === undefined || summary === null) return [];
  if (Array.isArray(summary)) return summary as SummaryEntry[];
  if (typeof summary === 'object') return [summary as SummaryEntry];
  throw new ProtocolError(
    `The result's 'summary' is a ${typeof summary}; the spec says an array of objects`,
    details,
  );
}

function readHead(
  raw: Record<string, unknown>,
  details: ApiErrorDetails,
): ReportResultHead & { raw: Record<string, unknown>; maxRows: number } {
  const request = raw.request;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new ProtocolError("The result's 'request' must come before 'data' as an object", details);
  }
  const totalCount = toOptionalInt(raw.totalCount);
  if (totalCount === undefined || totalCount < 0) {
    throw new ProtocolError("The result's 'totalCount' must come before 'data' as a count", details);
  }
  const run = request as ReportRunDefinition;
  const rowLimitExceeded = raw.rowLimitExceeded === true || raw.rowLimitExceeded === 'true';
  // A top-level rowLimit before data is final (a second one after data is a duplicate member).
  const topRowLimit = toOptionalInt(raw.rowLimit);
  return {
    raw,
    maxRows:
      rowLimitExceeded && topRowLimit !== undefined && topRowLimit > 0
        ? Math.min(totalCount, topRowLimit)
        : totalCount,
    requestId: typeof raw.requestId === 'string' ? raw.requestId : String(run.requestId ?? ''),
    tenantId: typeof raw.tenantId === 'string' ? raw.tenantId : String(run.tenantId ?? ''),
    request: run,
    totalCount,
    rowLimitExceeded,
    rowLimit: topRowLimit ?? toOptionalInt(run.rowLimit) ?? 0,
  };
}
