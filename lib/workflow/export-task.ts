import type { ReportingClient, ReportResultStream } from '../api';
import { datesOfWindow, dayWindow } from '../calendar';
import type { LakeTables, SummaryMismatchPolicy } from '../export';
import {
  type ExportLogger,
  type ExportSummary,
  exportReportResult,
  isSummaryResult,
  type ParquetCodec,
} from '../export';
import type { ExportOptions } from '../export/export-options';
import type { Lease, LeaseStore, ObjectStore } from '../stores';
import { describeLeaseHolder } from '../stores';
import { toWorkflowError } from './classify';
import { concatResults } from './concat-result';
import { DeadlineError, ExportFailedError, LeaseBusyError, RowLimitError } from './errors';
import {
  cursorOf,
  type JobCursor,
  type JobTaskInput,
  MAX_HELD_LISTED,
  MAX_MISMATCHES_LISTED,
  MAX_PARTIAL_DAYS_LISTED,
  MAX_STAGED_KEY_CHARS,
  type PendingWindow,
  type StagedRun,
} from './job-cursor';
import { partialDaysOf } from './partial-days';
import { type PartialDay, sumQuality } from './run-record';
import { tenantLeaseKey } from './service-secret';
import { splitWindow } from './split-window';

/**
 * A partition lease lives longer than the longest export (the function's 15-minute
 * timeout): a crashed holder's lease lapses only after its export could no longer run.
 * The state machine's lease waits (LEASE_WAIT in lib/infra) outlast it.
 */
export const PUBLISH_LEASE_TTL_MS = 16 * 60_000;

/**
 * The lease of one report's partition of one date: one publisher at a time. A tenant's
 * are under `tenant=<t>/` (tenantLeaseKey), as its partitions are.
 */
export function publishLease(reportId: string, dt: string, tenant?: string): string {
  return tenantLeaseKey(`publish/${reportId}/${dt}`, tenant);
}

export interface ExportTaskDeps {
  reporting: Pick<ReportingClient, 'openResult'>;
  store: ObjectStore;
  /** Key prefix of the data lake inside the store. */
  prefix: string;
  /** The lake's Iceberg tables; undefined: Hive-layout Parquet. */
  tables?: LakeTables | undefined;
  leases: LeaseStore;
  timeZone: string;
  minSplitMinutes: number;
  csvGzip: boolean;
  parquetCodec: ParquetCodec;
  /** Local disk the part files may take (the function's ephemeral storage); default none. */
  spillBudgetBytes?: number;
  logger?: ExportLogger;
  /** Fires shortly before the task's deadline: the export stops and publishes nothing. */
  signal?: AbortSignal;
  /** Fires when the run's user interrupts it (local runs): stop, never split. */
  interrupted?: AbortSignal;
  now?: () => Date;
  /** Members promoted to typed columns, per dataset. */
  promotedColumns?: ExportOptions['promotedColumns'];
  /** What a summary that disagrees with its rows does (default flag). */
  summaryMismatch?: SummaryMismatchPolicy;
  /** The shrink guard's share (default 0.5). */
  minShareOfPublished?: number;
  /** Lease lifetime. Default PUBLISH_LEASE_TTL_MS. */
  leaseTtlMs?: number;
  owner: string;
  /** The tenant the job exports for (multi-tenant): its layout, partitions and leases. */
  tenant?: string;
}

/**
 * ExportResults: reads the completed run's head first. A result that reaches the row limit
 * is never published: its window is split and queued again. A piece of a busy day waits
 * for the day's other pieces; the last one exports them all as one result. Otherwise the
 * result is streamed into the store through the export core, under a lease per report and
 * date so two executions never publish the same partitions at the same time.
 */
export async function exportResults(input: JobTaskInput, deps: ExportTaskDeps): Promise<JobCursor> {
  const cursor = cursorOf(input, deps.now?.() ?? new Date());
  const [piece, ...rest] = cursor.queue;
  if (piece === undefined) return { ...cursor, done: true };
  const ref = { reportId: input.job.reportId, requestId: cursor.requestId };
  const open = (requestId: string) =>
    deps.reporting.openResult({ reportId: input.job.reportId, requestId }, { signal: deps.signal });
  // A summary's rows are totals over its window: never split below a day (two halves of a
  // day would publish two rows per group, each with half the totals).
  let summaryResult = false;
  try {
    const source = await open(ref.requestId);
    // Days, partitions and splits are in the configured zone; the export core refuses a
    // result whose zone differs (EXPORT_TIME_ZONE_INVALID) rather than shift partitions.
    const zone = deps.timeZone;
    summaryResult = isSummaryResult(source.head);
    const window = { from: piece.from, to: piece.to };
    const dates = datesOfWindow(window, zone);
    if (summaryResult && dates.length > 1) {
      // It is one day's partition only when the window is one day. Run it again day by day
      // (the first request is wasted once).
      source.cancel(new Error('a summary is exported day by day'));
      const days = splitWindow(piece, dates, zone, deps.minSplitMinutes);
      deps.logger?.warn?.('a summary report runs day by day; window split', {
        jobId: input.job.jobId,
        days: days.length,
      });
      return { ...cursor, queue: [...days, ...rest], splits: cursor.splits + 1, status: 'None', done: false };
    }
    if (reachesRowLimit(source)) {
      source.cancel(new Error('row limit reached: window split'));
      if (summaryResult) {
        throw new RowLimitError(
          `The summary report ${input.job.reportName} for ${piece.from} has ${source.head.totalCount} rows, at the service's row limit (${source.head.rowLimit}): a summary totals its day and cannot be split below it; ask the service for fewer groups (a narrower report) or a higher row limit`,
        );
      }
      const halves = splitWindow(piece, dates, zone, deps.minSplitMinutes, source.head);
      deps.logger?.warn?.('result reached the row limit; window split', {
        jobId: input.job.jobId,
        totalCount: source.head.totalCount,
        rowLimit: source.head.rowLimit,
        windows: halves.map((h) => `${h.from} .. ${h.to}`),
      });
      return {
        ...cursor,
        queue: [...halves, ...rest],
        splits: cursor.splits + 1,
        status: 'None',
        done: false,
      };
    }
    if (piece.day !== undefined) {
      const ready = [
        ...cursor.ready,
        { requestId: ref.requestId, from: piece.from, to: piece.to, requestedAt: cursor.requestedAt },
      ];
      if (rest[0]?.day === piece.day) {
        source.cancel(new Error('piece ready; the day exports with its last piece'));
        return { ...cursor, queue: rest, ready, status: 'None', done: false };
      }
      source.cancel(new Error('the day is read again piece by piece'));
      const day = dayWindow(piece.day, zone);
      const whole = await concatResults(ready.map((p) => () => open(p.requestId)));
      const summary = await publishUnderLease(input, deps, whole, day, [piece.day], earliest(ready));
      // Partial by the same instant the rows' provisional column was judged by.
      const asOf = ready.map((p) => ({ ...p, requestedAt: summary.dataAsOf }));
      return advance(cursor, rest, summary, partialDaysOf([piece.day], asOf, zone));
    }
    const summary = await publishUnderLease(input, deps, source, window, dates, cursor.requestedAt);
    // Partial by the instant the rows' provisional column was judged by (the service's clock).
    const run = { ...window, requestedAt: summary.dataAsOf };
    const published = summary.partitions.map((p) => p.dt);
    return advance(cursor, rest, summary, partialDaysOf(published, [run], zone));
  } catch (error) {
    const named = toWorkflowError(error, `Exporting report ${input.job.reportName}`);
    // Split only for the deadline: a run its user interrupted (`interrupted`) just stops.
    if (named instanceof DeadlineError && !summaryResult && !deps.interrupted?.aborted) {
      // Too slow to finish before the deadline: nothing was published; smaller windows next.
      const dates = datesOfWindow({ from: piece.from, to: piece.to }, deps.timeZone);
      const smaller = splitWindow(piece, dates, deps.timeZone, deps.minSplitMinutes);
      deps.logger?.warn?.('export stopped before the deadline; window split', { jobId: input.job.jobId });
      return {
        ...cursor,
        queue: [...smaller, ...rest],
        ready: piece.day === undefined ? [] : cursor.ready,
        splits: cursor.splits + 1,
        status: 'None',
        done: false,
      };
    }
    throw named;
  }
}

/** The earliest request of a day's pieces (its data is as of then); '' when one is unknown. */
function earliest(pieces: readonly { requestedAt?: string }[]): string {
  const at = pieces.map((p) => p.requestedAt ?? '');
  if (at.includes('')) return '';
  return at.sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? '';
}

function reachesRowLimit(source: ReportResultStream): boolean {
  const h = source.head;
  return h.rowLimitExceeded || (h.rowLimit > 0 && h.totalCount >= h.rowLimit);
}

function advance(
  cursor: JobCursor,
  rest: PendingWindow[],
  summary: ExportSummary,
  partialDays: PartialDay[],
): JobCursor {
  const dates = summary.partitions.map((p) => p.dt).sort();
  const first = dates[0] ?? '';
  const last = dates[dates.length - 1] ?? '';
  const quality = sumQuality([cursor.quality, ...summary.partitions.flatMap((p) => p.quality ?? [])]);
  const r = summary.reconciliation;
  const mismatch = r.matches === false;
  const staged = stagedRunOf(summary);
  return {
    ...cursor,
    // A run staged for the Commit task (tables): committed with the execution's other runs.
    ...(staged === undefined ? {} : { staged: [...(cursor.staged ?? []), staged], dataset: summary.dataset }),
    // The newest snapshot the job committed (a table): what `runs` and time travel name.
    ...(summary.table === undefined
      ? {}
      : {
          snapshot: { table: summary.table.table, snapshotId: summary.table.snapshotId },
          commits: (cursor.commits ?? 0) + 1,
        }),
    held: [...cursor.held, ...summary.held].slice(0, MAX_HELD_LISTED),
    heldCount: cursor.heldCount + summary.held.length,
    mismatches: mismatch
      ? [
          ...cursor.mismatches,
          {
            requestId: summary.requestId,
            differences: r.differences,
            service: r.service as Record<string, number> | null,
            rows: r.rows as unknown as Record<string, number>,
          },
        ].slice(0, MAX_MISMATCHES_LISTED)
      : cursor.mismatches,
    mismatchCount: cursor.mismatchCount + (mismatch ? 1 : 0),
    quality,
    // Only days published: a held day keeps its earlier copy.
    partialDays: [...cursor.partialDays, ...partialDays.filter((d) => dates.includes(d.dt))].slice(
      0,
      MAX_PARTIAL_DAYS_LISTED,
    ),
    queue: rest,
    ready: [],
    status: 'None',
    rows: cursor.rows + summary.rows,
    partitions: cursor.partitions + summary.partitions.length,
    files: cursor.files + summary.files,
    bytes: cursor.bytes + summary.bytes,
    firstDate:
      cursor.firstDate === '' || (first !== '' && first < cursor.firstDate) ? first : cursor.firstDate,
    lastDate: last > cursor.lastDate ? last : cursor.lastDate,
    finishedAt: rest.length === 0 ? new Date().toISOString() : '',
    done: rest.length === 0,
  };
}

/**
 * What the cursor keeps of the run the export staged (none: the Hive layout published it, or
 * every partition was held and nothing was staged). Its key is bounded: the state counts it.
 */
function stagedRunOf(summary: ExportSummary): StagedRun | undefined {
  const ref = summary.staged;
  if (ref === undefined) return undefined;
  if (ref.key.length > MAX_STAGED_KEY_CHARS) {
    throw new ExportFailedError(
      `The staged run's key ${ref.key.slice(0, 80)}… has ${ref.key.length} characters, more than the ${MAX_STAGED_KEY_CHARS} the state allows each (MAX_STAGED_KEY_CHARS): use a shorter lake prefix`,
    );
  }
  return { key: ref.key, runId: ref.runId, dts: [...ref.dts] };
}

async function publishUnderLease(
  input: JobTaskInput,
  deps: ExportTaskDeps,
  source: ReportResultStream,
  window: { from: string; to: string },
  dates: readonly string[],
  requestedAt: string,
): Promise<ExportSummary> {
  const keys = [...new Set(dates)].sort().map((dt) => publishLease(input.job.reportId, dt, deps.tenant));
  const held: Lease[] = [];
  try {
    // Always in ascending key order, so two holders never wait on each other in a cycle.
    for (const key of keys) {
      const lease = await deps.leases.acquire(key, {
        ttlMs: deps.leaseTtlMs ?? PUBLISH_LEASE_TTL_MS,
        owner: deps.owner,
      });
      if (lease === undefined) {
        source.cancel(new Error('partition lease busy'));
        // Who holds it and until when, where the store can tell (a local one; not S3).
        const holder = await describeLeaseHolder(deps.leases, key);
        throw new LeaseBusyError(
          `Another execution is publishing report ${input.job.reportName} for ${key.split('/').pop()}${holder === undefined ? '' : ` (lease ${key} ${holder})`}; retried later`,
        );
      }
      held.push(lease);
    }
    return await exportReportResult({
      source,
      store: deps.store,
      reportId: input.job.reportId,
      ...(deps.tenant === undefined ? {} : { tenant: deps.tenant }),
      ...(deps.prefix === '' ? {} : { prefix: deps.prefix }),
      // Tables: stage only, and leave the commit (and the CSV's promotion) to the Commit task,
      // which lands the whole execution in one snapshot per table. The Hive layout publishes now.
      ...(deps.tables === undefined ? {} : { tables: deps.tables, commit: 'defer' as const }),
      csvGzip: deps.csvGzip,
      parquetCodec: deps.parquetCodec,
      ...(deps.spillBudgetBytes === undefined ? {} : { spillBudgetBytes: deps.spillBudgetBytes }),
      timeZone: deps.timeZone,
      ...(deps.promotedColumns === undefined ? {} : { promotedColumns: deps.promotedColumns }),
      ...(deps.summaryMismatch === undefined ? {} : { summaryMismatch: deps.summaryMismatch }),
      ...(deps.minShareOfPublished === undefined ? {} : { minShareOfPublished: deps.minShareOfPublished }),
      ...(input.job.forceReplace === true ? { forceReplace: true } : {}),
      window,
      windowDates: dates,
      // The data is as of the run's creation by the service (the result's dateCreated): a day
      // not ended then is provisional. Our clock at the request only where the result lacks it.
      ...(requestedAt === '' ? {} : { requestedAt }),
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      // The core's warnings (the shrink guard's held days) name the job, as the task's own do.
      ...(deps.logger === undefined ? {} : { logger: withJobId(deps.logger, input.job.jobId) }),
    });
  } finally {
    await Promise.all(held.map((l) => l.release().catch(() => {})));
  }
}

/** `logger` with `jobId` on every line. */
function withJobId(logger: ExportLogger, jobId: string): ExportLogger {
  const { info } = logger;
  return {
    warn: (message, data) => logger.warn(message, { jobId, ...data }),
    ...(info === undefined
      ? {}
      : { info: (message, data) => info.call(logger, message, { jobId, ...data }) }),
  };
}
