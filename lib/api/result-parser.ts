import type { DisplayField, ReportRunDefinition, ResultRow, SummaryEntry } from '../spec/types';
import { toOptionalInt, toOptionalNumber } from './envelope';
import {
  AbortedError,
  ApiError,
  type ApiErrorDetails,
  ConnectionError,
  ProtocolError,
  RowCountMismatchError,
} from './errors';
import type { ReportResultHead, ReportResultMetadata, ReportResultStream } from './report-result-stream';
import { ResultScanner, type ScannerLimits } from './result-scanner';

export interface ParseResultOptions {
  /** Method/path for errors. */
  details?: ApiErrorDetails;
  /** Called by `cancel()`, e.g. to abort the HTTP body. */
  onCancel?: (reason: unknown) => void;
  limits?: Partial<ScannerLimits>;
}

/** A result stream that can also hand out rows in parsed batches (faster than row by row). */
export interface ReportResultBatchStream extends ReportResultStream {
  /** The same rows as `rows`, in arrays; use one of the two, once. */
  readonly batches: AsyncIterable<ResultRow[]>;
}

/**
 * Parses a report result document as it arrives. Resolves once the head (the members
 * before `data`: `request`, `totalCount`, ...) is read; rows then stream with flat memory.
 *
 * Decisions: `request` and `totalCount` must precede `data` (they always do in the
 * service's documents); if not, a {@link ProtocolError} says so rather than buffering the
 * rows. Rows may be objects, or arrays ordered like `request.displayFields` (mapped to
 * objects; null entries are omitted like absent members). A body that ends early is a
 * `TruncatedBodyError`; a source that throws is a `ConnectionError` (or its own
 * `ApiError`); rows read must equal `totalCount`, or when `rowLimitExceeded`,
 * min(totalCount, rowLimit): otherwise a `RowCountMismatchError`.
 *
 * @param source body chunks, e.g. an HTTP body or `fs.createReadStream(path)`.
 */
export async function parseReportResultStream(
  source: AsyncIterable<Uint8Array>,
  options: ParseResultOptions = {},
): Promise<ReportResultBatchStream> {
  const details = options.details ?? {};
  const scanner = new ResultScanner(details, options.limits);
  const iterator = source[Symbol.asyncIterator]();
  const pull = async (): Promise<boolean> => {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ConnectionError('The result body failed', { ...details, cause: error });
    }
    if (next.done) return false;
    scanner.push(next.value);
    return true;
  };

  try {
    while (scanner.headText === undefined) {
      if (!(await pull())) scanner.finish(); // throws: the body ended before 'data'
    }
  } catch (error) {
    await iterator.return?.().catch(() => undefined);
    throw error;
  }
  const head = readHead(scanner.headText, details);
  return new ResultStream(head, scanner, pull, iterator, options, details);
}

class ResultStream implements ReportResultBatchStream {
  readonly head: ReportResultHead;
  readonly #raw: Record<string, unknown>;
  readonly #scanner: ResultScanner;
  readonly #pull: () => Promise<boolean>;
  readonly #iterator: AsyncIterator<Uint8Array>;
  readonly #options: ParseResultOptions;
  readonly #details: ApiErrorDetails;
  readonly #names: string[];
  readonly #done: Promise<ReportResultMetadata>;
  #resolve!: (m: ReportResultMetadata) => void;
  #reject!: (e: unknown) => void;
  #rowsRead = 0;
  #started = false;
  #cancelled: AbortedError | undefined;

  constructor(
    head: ReportResultHead & { raw: Record<string, unknown> },
    scanner: ResultScanner,
    pull: () => Promise<boolean>,
    iterator: AsyncIterator<Uint8Array>,
    options: ParseResultOptions,
    details: ApiErrorDetails,
  ) {
    const { raw, ...rest } = head;
    this.head = rest;
    this.#raw = raw;
    this.#scanner = scanner;
    this.#pull = pull;
    this.#iterator = iterator;
    this.#options = options;
    this.#details = details;
    this.#names = (head.request.displayFields ?? []).map((f: DisplayField) => f.fieldName);
    this.#done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#done.catch(() => undefined); // observed through done() or the iteration
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
    this.#cancelled ??= new AbortedError('The result stream was cancelled', {
      ...this.#details,
      cause: reason,
    });
    this.#options.onCancel?.(reason);
    this.#reject(this.#cancelled);
    void this.#iterator.return?.().catch(() => undefined);
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
        // Stopped early (break or error): release the body.
        this.#options.onCancel?.(undefined);
        await this.#iterator.return?.().catch(() => undefined);
        this.#reject(new AbortedError('Row iteration stopped before the end', this.#details));
      }
    }
  }

  #parseRun(parsed: unknown[]): ResultRow[] {
    for (let i = 0; i < parsed.length; i++) {
      const row = parsed[i];
      if (Array.isArray(row)) parsed[i] = this.#fromArray(row);
      else if (typeof row !== 'object' || row === null) {
        throw new ProtocolError(
          `Row ${this.#rowsRead + i + 1} is neither an object nor an array`,
          this.#details,
        );
      }
    }
    return parsed as ResultRow[];
  }

  #fromArray(values: unknown[]): ResultRow {
    if (values.length > this.#names.length) {
      throw new ProtocolError('An array row has more values than request.displayFields', this.#details);
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== null && v !== undefined) row[this.#names[i] as string] = v;
    }
    return row as ResultRow;
  }

  #finish(): ReportResultMetadata {
    let tail: Record<string, unknown>;
    try {
      tail = JSON.parse(this.#scanner.finish()) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ProtocolError("Malformed result after the 'data' array", { ...this.#details, cause: error });
    }
    const all = { ...this.#raw, ...tail };
    const rowLimit = toOptionalInt(tail.rowLimit) ?? this.head.rowLimit;
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
      summary: Array.isArray(all.summary) ? (all.summary as SummaryEntry[]) : [],
      status: toOptionalNumber(all.status) ?? 0,
      statusMessage: typeof all.statusMessage === 'string' ? all.statusMessage : '',
      rowsRead: this.#rowsRead,
    };
  }
}

function readHead(
  text: string,
  details: ApiErrorDetails,
): ReportResultHead & { raw: Record<string, unknown> } {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new ProtocolError("Malformed result before the 'data' array", { ...details, cause: error });
  }
  const request = raw.request;
  if (typeof request !== 'object' || request === null) {
    throw new ProtocolError("The result's 'request' must come before 'data'", details);
  }
  const totalCount = toOptionalInt(raw.totalCount);
  if (totalCount === undefined || totalCount < 0) {
    throw new ProtocolError("The result's 'totalCount' must come before 'data' as a count", details);
  }
  const run = request as ReportRunDefinition;
  return {
    raw,
    requestId: typeof raw.requestId === 'string' ? raw.requestId : String(run.requestId ?? ''),
    tenantId: typeof raw.tenantId === 'string' ? raw.tenantId : String(run.tenantId ?? ''),
    request: run,
    totalCount,
    rowLimitExceeded: raw.rowLimitExceeded === true || raw.rowLimitExceeded === 'true',
    rowLimit: toOptionalInt(raw.rowLimit) ?? toOptionalInt(run.rowLimit) ?? 0,
  };
}
