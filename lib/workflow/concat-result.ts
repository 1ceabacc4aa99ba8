import type { ReportResultHead, ReportResultMetadata, ReportResultStream } from '../api';
import type { ResultRow, SummaryEntry } from '../spec';

/** Opens one piece's result (lazily, when the previous piece has been read). */
type PieceOpener = () => Promise<ReportResultStream & { batches?: AsyncIterable<ResultRow[]> }>;

/**
 * The results of a busy day's pieces read as one result, one HTTP body at a time, so the
 * export core publishes the day's partition once from all of them. `head` is the first
 * piece's; `done()` sums the pieces' counts (each piece was checked against its own
 * totalCount by the client) and gives the day's summary (see {@link combinedSummary}).
 */
export async function concatResults(openers: readonly PieceOpener[]): Promise<ReportResultStream> {
  const [openFirst, ...rest] = openers;
  if (openFirst === undefined) throw new Error('concatResults needs at least one piece');
  const first = await openFirst();
  const head: ReportResultHead = first.head;
  let current: ReportResultStream = first;
  let cancelled: unknown;
  const metas: ReportResultMetadata[] = [];
  let failure: unknown;

  async function* batches(): AsyncIterable<ResultRow[]> {
    try {
      let stream: ReportResultStream & { batches?: AsyncIterable<ResultRow[]> } = first;
      for (let i = 0; ; i++) {
        current = stream;
        if (stream.batches !== undefined) {
          for await (const batch of stream.batches) yield batch;
        } else {
          let batch: ResultRow[] = [];
          for await (const row of stream.rows) {
            batch.push(row);
            if (batch.length === 1024) {
              yield batch;
              batch = [];
            }
          }
          if (batch.length > 0) yield batch;
        }
        metas.push(await stream.done());
        const next = rest[i];
        if (next === undefined || cancelled !== undefined) return;
        stream = await next();
      }
    } catch (error) {
      failure = error;
      throw error;
    }
  }
  const batchIterable = batches();
  async function* rows(): AsyncIterable<ResultRow> {
    for await (const batch of batchIterable) yield* batch;
  }
  return {
    head,
    rows: rows(),
    batches: batchIterable,
    done: async () => {
      if (failure !== undefined) throw failure;
      const last = metas[metas.length - 1] ?? (await first.done());
      const sum = (pick: (m: ReportResultMetadata) => number) => metas.reduce((n, m) => n + pick(m), 0);
      return {
        ...last,
        requestId: head.requestId,
        request: head.request,
        totalCount: sum((m) => m.totalCount),
        rowsRead: sum((m) => m.rowsRead),
        replacedCharacters: sum((m) => m.replacedCharacters),
        effort: sum((m) => m.effort),
        queryDuration: sum((m) => m.queryDuration),
        totalDuration: sum((m) => m.totalDuration),
        queryCount: sum((m) => m.queryCount),
        summary: combinedSummary(metas),
        rowLimitExceeded: metas.some((m) => m.rowLimitExceeded),
      };
    },
    cancel: (reason?: unknown) => {
      cancelled = reason ?? new Error('cancelled');
      current.cancel(reason);
    },
  } as ReportResultStream;
}

/**
 * The day's summary from its pieces'. A summary entry holds totals (ans, ref, lost, ring,
 * duration) over rows, and a result's totals are its entries added up; the pieces' rows
 * are the day's, so the day's totals are every piece's entries added up, as totalCount is:
 * the entries are kept as sent, one after another (no arithmetic here, so nothing is
 * rounded twice). A piece with rows but no summary leaves the day without one: the other
 * pieces' totals alone would disagree with the day's rows, and an absent summary is not
 * compared.
 */
function combinedSummary(metas: readonly ReportResultMetadata[]): SummaryEntry[] {
  const unsummed = (m: ReportResultMetadata) =>
    (!Array.isArray(m.summary) || m.summary.length === 0) && (m.rowsRead > 0 || m.totalCount > 0);
  if (metas.some(unsummed)) return [];
  return metas.flatMap((m) => (Array.isArray(m.summary) ? m.summary : []));
}
