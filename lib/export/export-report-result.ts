import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ReportResultStream } from '../api/report-result-stream';
import type { ResultRow } from '../spec/types';
import type { ObjectStore } from '../stores/object-store';
import { EXPORT_ERROR_CODES, ExportConfigError, ExportError, VerificationError } from './errors';
import { type ExportSummary, summarize } from './export-summary';
import type { ParquetCodec } from './formats/parquet-encoder';
import { zstdAvailable } from './formats/zstd';
import { checkLayout, type OutputLayout } from './layout';
import { cleanStaging, promote, stage } from './publish/publish';
import { verifyPartitions } from './publish/verify';
import { Partitioner, type PartitionSink } from './rows/partitioner';
import { RowMapper } from './rows/row-mapper';
import { InlineSink, WorkerSink } from './spill/partition-sink';
import { ZoneConverter } from './time-zone';
import type { ExportLogger, PartitionOutput, UnknownMemberPolicy } from './types';
import { checkWindowDates, datesOfWindow, type ExportWindow } from './window';

/** Options of one export run. Only `source`, `store` and `reportId` are required. */
export interface ExportOptions {
  /** The report result as the client streams it. */
  source: ReportResultStream;
  store: ObjectStore;
  /** The report's id, used in the key layout (`report_id=`). */
  reportId: string;
  /** Dataset (table) name. Default `calls`. */
  dataset?: string;
  /** Key prefix without leading or trailing slash. Default none. */
  prefix?: string;
  /** Parquet compression. Default SNAPPY; ZSTD needs Node >= 22.15. */
  parquetCodec?: ParquetCodec;
  /** Gzip the CSV (`.csv.gz`). Default false. */
  csvGzip?: boolean;
  /** Row members the schema does not know: `warn` (default, logged once per name) or `fail`. */
  unknownMembers?: UnknownMemberPolicy;
  /** Rows per part file. Default 1,000,000 (the service's row limit: one file per partition and format). */
  maxRowsPerFile?: number;
  /** Rows per Parquet row group (at most maxBufferedRows). Default 32,768. */
  rowGroupRows?: number;
  /**
   * Rows buffered in memory across partitions, the main memory knob: about 2.5 KB of
   * heap per buffered row. Default 32,768 (peak RSS about 230 MB at 1,000,000 rows).
   */
  maxBufferedRows?: number;
  /** Where part files are written before staging. Default the OS temp directory. */
  spillDirectory?: string;
  /**
   * The window the report was requested for: ISO 8601 instants with offsets, `to`
   * exclusive. Recorded in manifests (default the request's metadata dates). When given,
   * the run replaces every partition of the window: a local date (report's zone) that it
   * covers but that has no rows in this run is published empty (its earlier parts deleted,
   * a 0-row manifest written), so a re-export leaves exactly the window's result.
   */
  window?: ExportWindow;
  /**
   * The local dates (`YYYY-MM-DD`) the run replaces, instead of those `window` covers;
   * `[]` replaces only dates with rows. Default: the dates of `window`, or none without it.
   */
  windowDates?: readonly string[];
  /** Clock for the manifest's `exportedAt`. */
  now?: () => Date;
  /** Run id (staging folder name). Default requestId plus a random suffix. */
  runId?: string;
  logger?: ExportLogger;
  /**
   * Where Parquet and CSV encoding runs. Default: a worker thread from `encode-worker.mjs`
   * next to the running bundle, so parsing and encoding use two cores; when that file is
   * absent (running from TypeScript sources) or cannot start, the calling thread (logged).
   * A URL selects another worker file; `false` forces the calling thread.
   */
  encodeWorker?: URL | false;
  /**
   * Aborts the run (e.g. shortly before a Lambda deadline). Checked per batch of rows and
   * before staging and promotion; an aborted run publishes nothing (EXPORT_ABORTED).
   */
  signal?: AbortSignal;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1)
    throw new ExportConfigError(`${name} must be a positive integer, got ${v}`);
  return v;
}

/**
 * Exports a report result to date-partitioned Parquet and CSV in an object store:
 * stream rows -> partition -> spill files -> stage -> verify -> promote (see publish.ts
 * for the protocol and reader guarantees). Resolves with a summary; when it rejects,
 * nothing new is visible and earlier partitions are intact (a process killed during
 * promotion is the exception publish.ts documents).
 *
 * @example
 * const summary = await exportReportResult({ source: stream, store, reportId });
 */
export async function exportReportResult(options: ExportOptions): Promise<ExportSummary> {
  const codec = options.parquetCodec ?? 'SNAPPY';
  if (codec !== 'SNAPPY' && codec !== 'ZSTD' && codec !== 'UNCOMPRESSED') {
    throw new ExportConfigError(`parquetCodec must be SNAPPY, ZSTD or UNCOMPRESSED, got ${String(codec)}`);
  }
  if (codec === 'ZSTD' && !zstdAvailable()) {
    throw new ExportConfigError('parquetCodec=ZSTD needs Node >= 22.15 (node:zlib zstd); use SNAPPY here');
  }
  const csvGzip = options.csvGzip ?? false;
  const layout: OutputLayout = {
    prefix: options.prefix ?? '',
    dataset: options.dataset ?? 'calls',
    reportId: options.reportId,
    csvExtension: csvGzip ? '.csv.gz' : '.csv',
  };
  checkLayout(layout);
  const maxRowsPerFile = positive('maxRowsPerFile', options.maxRowsPerFile, 1_000_000);
  const rowGroupRows = positive('rowGroupRows', options.rowGroupRows, 32_768);
  const maxBufferedRows = positive('maxBufferedRows', options.maxBufferedRows, 32_768);

  const { source, store } = options;
  const head = source.head;
  const requestId = head.requestId;
  const windowDates =
    options.windowDates === undefined
      ? options.window === undefined
        ? []
        : datesOfWindow(options.window, head.request.timeZoneId)
      : checkWindowDates(options.windowDates);
  const runId = options.runId ?? `${requestId.replace(/[^A-Za-z0-9._-]/g, '_')}-${randomUUID().slice(0, 8)}`;
  const checkAborted = () => {
    if (options.signal?.aborted) {
      throw new ExportError(EXPORT_ERROR_CODES.aborted, 'The export was aborted before publishing', {
        cause: options.signal.reason,
        requestId,
      });
    }
  };
  const spillRoot = await fs.mkdtemp(path.join(options.spillDirectory ?? os.tmpdir(), 'report-export-'));
  let keepStaging = false;
  let sink: PartitionSink | undefined;
  let mark = performance.now();
  const phase = (name: string, data: Record<string, unknown> = {}) => {
    const now = performance.now();
    options.logger?.info?.(`export phase ${name} done`, {
      ...data,
      ms: Math.round(now - mark),
      rssMb: Math.round(process.memoryUsage.rss() / 1048576),
    });
    mark = now;
  };
  try {
    const zone = new ZoneConverter(head.request.timeZoneId);
    const mapper = new RowMapper({
      reportId: options.reportId,
      requestId,
      zone,
      ...(options.unknownMembers === undefined ? {} : { unknownMembers: options.unknownMembers }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    const writerOptions = { spillDirectory: spillRoot, parquetCodec: codec, csvGzip, maxRowsPerFile };
    const workerUrl = options.encodeWorker === undefined ? defaultWorkerUrl() : options.encodeWorker;
    sink =
      (workerUrl === false || workerUrl === undefined
        ? undefined
        : await WorkerSink.start(workerUrl, writerOptions, options.logger)) ?? new InlineSink(writerOptions);
    const partitioner = new Partitioner(mapper, sink, { maxRowsPerFile, rowGroupRows, maxBufferedRows });

    // Errors of the local part files are told apart from errors of the source.
    const spill = async (pending: Promise<unknown>) => {
      try {
        await pending;
      } catch (cause) {
        throw new ExportError(EXPORT_ERROR_CODES.spillFailed, 'Writing part files to local disk failed', {
          cause,
          requestId,
        });
      }
    };
    try {
      // The client's stream may also hand out parsed batches: one await per batch, not per row.
      const batches = (source as Partial<{ batches: AsyncIterable<ResultRow[]> }>).batches;
      if (batches !== undefined) {
        for await (const batch of batches) {
          checkAborted();
          for (const row of batch) {
            const pending = partitioner.add(row);
            if (pending !== undefined) await spill(pending);
          }
        }
      } else {
        let n = 0;
        for await (const row of source.rows) {
          if ((n++ & 0x3ff) === 0) checkAborted();
          const pending = partitioner.add(row);
          if (pending !== undefined) await spill(pending);
        }
      }
    } catch (cause) {
      source.cancel(cause);
      if (cause instanceof ExportError) throw cause;
      throw new ExportError(EXPORT_ERROR_CODES.sourceFailed, 'Reading the report result failed', {
        cause,
        requestId,
      });
    }
    const metadata = await source.done();
    if (metadata.rowLimitExceeded) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.rowLimitExceeded,
        `The result hit the row limit (${metadata.rowLimit}); export a shorter window`,
        { requestId },
      );
    }
    if (partitioner.rows !== metadata.totalCount) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.countMismatch,
        `Read ${partitioner.rows} rows, the service reported totalCount ${metadata.totalCount}`,
        { requestId },
      );
    }

    phase('read', { rows: partitioner.rows });
    let partitions: PartitionOutput[] = [];
    await spill(
      partitioner.finish().then((outputs) => {
        partitions = outputs;
      }),
    );
    await verifyPartitions(partitions, requestId, { csvGzip });
    partitions = withEmptyDates(partitions, windowDates);
    phase('write', { partitions: partitions.length });
    const context = {
      store,
      layout,
      runId,
      requestId,
      window: options.window ?? {
        from: head.request.metadata?.timezoneDateFrom ?? null,
        to: head.request.metadata?.timezoneDateTo ?? null,
      },
      exportedAt: (options.now?.() ?? new Date()).toISOString(),
    };
    checkAborted();
    await stage(context, partitions);
    phase('stage');
    checkAborted();
    try {
      await promote(context, partitions);
      phase('promote');
    } catch (error) {
      keepStaging = error instanceof ExportError && error.code === EXPORT_ERROR_CODES.rollbackFailed;
      throw error;
    }
    return summarize(options.reportId, requestId, runId, partitions);
  } finally {
    await sink?.close();
    if (!keepStaging) await cleanStaging(store, layout, runId);
    await fs.rm(spillRoot, { recursive: true, force: true });
    phase('cleanup');
  }
}

/**
 * The bundled worker sits next to the bundle that runs this code (`encode-worker.mjs`).
 * From TypeScript sources (tsx, vitest) there is no such file: encode inline.
 */
function defaultWorkerUrl(): URL | undefined {
  // A CommonJS bundle has no import.meta.url: encode inline there too.
  const here = (import.meta as { url?: unknown }).url;
  if (typeof here !== 'string' || here.endsWith('.ts')) return undefined;
  return new URL('./encode-worker.mjs', here);
}

/**
 * Adds an empty partition (no files) for each window date without rows: promotion then
 * deletes that date's earlier parts and writes a 0-row manifest, with the same backup and
 * rollback as any partition.
 */
function withEmptyDates(partitions: PartitionOutput[], windowDates: readonly string[]): PartitionOutput[] {
  const withRows = new Set(partitions.map((p) => p.dt));
  const empty = windowDates.filter((dt) => !withRows.has(dt)).map((dt) => ({ dt, rows: 0, files: [] }));
  if (empty.length === 0) return partitions;
  return [...partitions, ...empty].sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0));
}
