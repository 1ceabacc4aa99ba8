import type { ReportResultMetadata, ReportResultStream } from '../../lib/api/result/stream';
import type { ReportRunDefinition, ResultRow, SummaryEntry } from '../../lib/spec/types';

export interface TestStreamOptions {
  requestId?: string;
  /** Default Europe/London; null leaves `request.timeZoneId` out. */
  timeZoneId?: string | null;
  /** Reported by done() as the client does for invalid UTF-8 it replaced. Default 0. */
  replacedCharacters?: number;
  /** Rows per batch of `batches`. Default 64. */
  batchSize?: number;
  /** Defaults to rows.length. */
  totalCount?: number;
  rowLimitExceeded?: boolean;
  /** Throw this error after yielding this many rows (a truncated body). */
  failAfter?: { rows: number; error: Error };
  /** `request.displayFields` (names); default none. Without `start` the result is a summary. */
  displayFields?: readonly string[];
  /** The result's `summary` done() reports. Default []. */
  summary?: SummaryEntry[];
}

/** A ReportResultStream over an array, as the client would hand it to the export core. */
export function resultStreamOf(
  rows: Iterable<ResultRow>,
  options: TestStreamOptions = {},
): ReportResultStream {
  const list = [...rows];
  const requestId = options.requestId ?? 'req-0001';
  const request = {
    requestId,
    reportId: 'report-1',
    ...(options.timeZoneId === null ? {} : { timeZoneId: options.timeZoneId ?? 'Europe/London' }),
    ...(options.displayFields === undefined
      ? {}
      : { displayFields: options.displayFields.map((fieldName) => ({ fieldName, mandatory: false })) }),
    metadata: { timezoneDateFrom: '2026-01-01T00:00:00', timezoneDateTo: '2026-12-31T23:59:59' },
  } as unknown as ReportRunDefinition;
  const head = {
    requestId,
    tenantId: 'tenant-1',
    request,
    totalCount: options.totalCount ?? list.length,
    rowLimitExceeded: options.rowLimitExceeded ?? false,
    rowLimit: 1_000_000,
  };
  let settle: { resolve: (m: ReportResultMetadata) => void; reject: (e: unknown) => void } | undefined;
  const done = new Promise<ReportResultMetadata>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The real stream rejects done() too; avoid an unhandled rejection when a test ignores it.
  done.catch(() => undefined);
  async function* iterate(): AsyncGenerator<ResultRow> {
    let yielded = 0;
    try {
      for (const row of list) {
        if (options.failAfter !== undefined && yielded === options.failAfter.rows)
          throw options.failAfter.error;
        yield row;
        yielded++;
      }
      if (options.failAfter !== undefined && yielded === options.failAfter.rows)
        throw options.failAfter.error;
    } catch (error) {
      settle?.reject(error);
      throw error;
    }
    settle?.resolve({
      ...head,
      replacedCharacters: options.replacedCharacters ?? 0,
      effort: 0,
      queryDuration: 0,
      totalDuration: 0,
      queryCount: 1,
      summary: options.summary ?? [],
      status: 1,
      statusMessage: 'Complete',
      rowsRead: yielded,
    });
  }
  // One iteration feeds both views, as in the client: a consumer uses one of them, once.
  const source = iterate();
  const batchSize = options.batchSize ?? 64;
  async function* inBatches(): AsyncGenerator<ResultRow[]> {
    let batch: ResultRow[] = [];
    for await (const row of source) {
      batch.push(row);
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  return {
    head,
    rows: source,
    batches: inBatches(),
    done: () => done,
    cancel: () => undefined,
  };
}

/** A full row with every member set, for round-trip tests. */
export function sampleRow(overrides: Partial<ResultRow> = {}): ResultRow {
  return {
    connId: '6f1f3b7e-2c1d-4b8e-9a55-0c7e1d2f3a4b',
    start: '2026-03-10T09:15:30',
    userName: 'Alice',
    userNum: '201',
    cli: '+441234567890',
    cliName: 'Reception',
    hgNum: '600',
    hgName: 'Sales',
    callType: 1,
    callDir: 2,
    ans: 1,
    ref: 0,
    lost: 0,
    ring: 4.5,
    duration: 123.25,
    calledUserNum: '202',
    calledUserName: 'Bob',
    callUserName: 'Carol',
    callUserNum: '203',
    docId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
    ...overrides,
  };
}

/** `perDay` calls on each local date (`YYYY-MM-DD`) from 10:00:00, in time order, one a second. */
export function callsOn(dates: readonly string[], perDay: number, tag: string): ResultRow[] {
  return dates.flatMap((date) =>
    Array.from({ length: perDay }, (_, i) => {
      const minute = String(Math.floor(i / 60) % 60).padStart(2, '0');
      const second = String(i % 60).padStart(2, '0');
      return sampleRow({ connId: `${tag}-${date}-${i}`, start: `${date}T10:${minute}:${second}` });
    }),
  );
}
