import { createHash, randomUUID } from 'node:crypto';
import * as os from 'node:os';
import type { ReportResultStream } from '../api';
import {
  CALENDAR_ERROR_CODES,
  CalendarError,
  checkWindowDates,
  dateInZone,
  datesOfWindow,
  parseInstant,
  type ReportWindow,
  ZoneConverter,
} from '../calendar';
import type { ObjectStore } from '../stores';
import { EXPORT_ERROR_CODES, ExportConfigError, ExportError } from './errors';
import { EXPORT_DEFAULTS, type ExportOptions, type LakeTables, SETTLE_GRACE_MINUTES } from './export-options';
import type { IcebergFileSchema } from './formats/iceberg-file';
import { PARQUET_CODECS, type ParquetCodec } from './formats/parquet-encoder';
import { zstdAvailable } from './formats/zstd';
import { checkLayout, type OutputLayout } from './layout';
import { DATASETS, type TableSchema, TENANT_COLUMN, tableSchema } from './schema';
import {
  type ExportLogger,
  OUTSIDE_WINDOW_POLICIES,
  type OutsideWindowPolicy,
  SUMMARY_MISMATCH_POLICIES,
  type SummaryMismatchPolicy,
  UNKNOWN_MEMBER_POLICIES,
  type UnknownMemberPolicy,
} from './types';

/** Every option checked and filled in; what the read and publish steps take. */
export interface ResolvedExportOptions {
  source: ReportResultStream;
  store: ObjectStore;
  reportId: string;
  requestId: string;
  layout: OutputLayout;
  /** The columns of the result's dataset (calls or summaries), promoted ones included. */
  schema: TableSchema;
  /** The local day a summary covers (its only partition); undefined for a call list. */
  summaryDay: string | undefined;
  summaryMismatch: SummaryMismatchPolicy;
  minShareOfPublished: number;
  forceReplace: boolean;
  parquetCodec: ParquetCodec;
  csvGzip: boolean;
  unknownMembers: UnknownMemberPolicy;
  outsideWindow: OutsideWindowPolicy;
  /** The zone rows' `start` is read in. */
  timeZoneId: string;
  /** The instant the data was read as of (ISO 8601, UTC): see ExportOptions.dataAsOf. */
  dataAsOf: string;
  /** The first local day not ended when the data was read (dataAsOf): its rows and later ones are provisional. */
  provisionalFrom: string;
  maxRowsPerFile: number;
  rowGroupRows: number;
  maxBufferedRows: number;
  maxBufferedBytes: number;
  maxOpenBuffers: number;
  spillDirectory: string;
  /** Bytes of part files the run may write; undefined: unlimited. */
  spillBudgetBytes: number | undefined;
  /** Dates published even without rows (their earlier parts deleted). */
  windowDates: readonly string[];
  /** The dates rows may fall on and how messages name them; undefined when the run has no window. */
  rowWindow: { dates: ReadonlySet<string>; label: string } | undefined;
  /** The window as manifests record it. */
  manifestWindow: { from: string | null; to: string | null };
  now: () => Date;
  runId: string;
  logger: ExportLogger | undefined;
  encodeWorker: URL | false;
  signal: AbortSignal | undefined;
  /** The lake's tables; undefined: Hive-layout Parquet. */
  tables: LakeTables | undefined;
  /** Commit in this call, or stage for a committer (requires `tables`). */
  commit: 'now' | 'defer';
  /**
   * Set by the export once it has loaded the table: the Parquet files are that table's data
   * files (field ids, micros, `dt`, `iceberg.schema`). Unset: Hive-layout files.
   */
  icebergFile: IcebergFileSchema | undefined;
}

const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** Request ids up to this length go into the run id as they are; longer ones are cut and hashed. */
const RUN_ID_REQUEST_CHARS = 64;

/** Checks every option and fills in the defaults; fails before anything is read or written. */
export function resolveExportOptions(options: ExportOptions): ResolvedExportOptions {
  const parquetCodec = oneOf(
    'parquetCodec',
    options.parquetCodec,
    EXPORT_DEFAULTS.parquetCodec,
    PARQUET_CODECS,
  );
  if (parquetCodec === 'ZSTD' && !zstdAvailable()) {
    throw new ExportConfigError('parquetCodec=ZSTD needs Node >= 22.15 (node:zlib zstd); use SNAPPY here');
  }
  const csvGzip = options.csvGzip ?? EXPORT_DEFAULTS.csvGzip;
  const head = options.source.head;
  const dataset = isSummaryResult(head) ? DATASETS.summaries : DATASETS.calls;
  const schema = tableSchema({ dataset, promoted: options.promotedColumns?.[dataset] ?? [] });
  const layout: OutputLayout = {
    prefix: options.prefix ?? EXPORT_DEFAULTS.prefix,
    dataset,
    reportId: options.reportId,
    csvExtension: csvGzip ? '.csv.gz' : '.csv',
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
  };
  checkLayout(layout);
  if (options.tenant !== undefined) {
    const clash = schema.promoted.find((p) => p.name.toLowerCase() === TENANT_COLUMN);
    if (clash !== undefined) {
      throw new ExportConfigError(
        `promoted column ${clash.name} would clash with the ${TENANT_COLUMN} column of a tenant's export; promote the member under another name`,
      );
    }
  }
  const requestId = head.requestId;
  const timeZoneId = resolveTimeZone(head.request?.timeZoneId, options.timeZone, requestId);
  const asOf = dataAsOf(options, head);
  const { window, windowDates } = options;
  const fromWindow = window === undefined ? [] : windowOption(() => datesOfWindow(window, timeZoneId));
  const explicit = windowDates === undefined ? undefined : windowOption(() => checkWindowDates(windowDates));
  const windowed = options.window !== undefined || (explicit !== undefined && explicit.length > 0);
  const summaryDay =
    dataset === DATASETS.summaries
      ? oneDay(explicit !== undefined && explicit.length > 0 ? explicit : fromWindow, requestId)
      : undefined;
  const minShare = options.minShareOfPublished ?? EXPORT_DEFAULTS.minShareOfPublished;
  if (typeof minShare !== 'number' || !(minShare >= 0 && minShare <= 1)) {
    throw new ExportConfigError(`minShareOfPublished must be a number from 0 to 1, got ${String(minShare)}`);
  }
  if (options.runId !== undefined && (!RUN_ID.test(options.runId) || /^\.{1,2}$/.test(options.runId))) {
    throw new ExportConfigError(
      `runId must be 1-128 letters, digits, '.', '_' or '-', got '${options.runId}'`,
    );
  }
  return {
    source: options.source,
    store: options.store,
    reportId: options.reportId,
    requestId,
    layout,
    schema,
    summaryDay,
    summaryMismatch: oneOf(
      'summaryMismatch',
      options.summaryMismatch,
      EXPORT_DEFAULTS.summaryMismatch,
      SUMMARY_MISMATCH_POLICIES,
    ),
    minShareOfPublished: minShare,
    forceReplace: options.forceReplace ?? false,
    parquetCodec,
    csvGzip,
    unknownMembers: oneOf(
      'unknownMembers',
      options.unknownMembers,
      EXPORT_DEFAULTS.unknownMembers,
      UNKNOWN_MEMBER_POLICIES,
    ),
    outsideWindow: oneOf(
      'outsideWindow',
      options.outsideWindow,
      EXPORT_DEFAULTS.outsideWindow,
      OUTSIDE_WINDOW_POLICIES,
    ),
    timeZoneId,
    dataAsOf: new Date(asOf).toISOString(),
    // A day is settled once read at least the grace after its end (in the zone).
    provisionalFrom: dateInZone(asOf - settleGraceMs(options), timeZoneId),
    maxRowsPerFile: positive('maxRowsPerFile', options.maxRowsPerFile ?? EXPORT_DEFAULTS.maxRowsPerFile),
    rowGroupRows: positive('rowGroupRows', options.rowGroupRows ?? EXPORT_DEFAULTS.rowGroupRows),
    maxBufferedRows: positive('maxBufferedRows', options.maxBufferedRows ?? EXPORT_DEFAULTS.maxBufferedRows),
    maxBufferedBytes: positive(
      'maxBufferedBytes',
      options.maxBufferedBytes ?? EXPORT_DEFAULTS.maxBufferedBytes,
    ),
    maxOpenBuffers: positive('maxOpenBuffers', options.maxOpenBuffers ?? EXPORT_DEFAULTS.maxOpenBuffers),
    spillDirectory: options.spillDirectory ?? os.tmpdir(),
    spillBudgetBytes:
      options.spillBudgetBytes === undefined
        ? undefined
        : positive('spillBudgetBytes', options.spillBudgetBytes),
    windowDates: explicit ?? fromWindow,
    rowWindow: windowed
      ? {
          dates: new Set([...fromWindow, ...(explicit ?? [])]),
          label: windowLabel(options.window, explicit, timeZoneId),
        }
      : undefined,
    manifestWindow: options.window ?? {
      from: head.request?.metadata?.timezoneDateFrom ?? null,
      to: head.request?.metadata?.timezoneDateTo ?? null,
    },
    now: options.now ?? (() => new Date()),
    runId: options.runId ?? defaultRunId(requestId),
    logger: options.logger,
    encodeWorker: options.encodeWorker ?? defaultWorkerUrl() ?? false,
    signal: options.signal,
    tables: options.tables,
    commit: commitMode(options),
    icebergFile: undefined,
  };
}

/**
 * The instant the data was read as of (ms): ExportOptions.dataAsOf when given, else the
 * result's dateCreated (the service's clock), else requestedAt (the caller's), else now.
 */
function dataAsOf(options: ExportOptions, head: ReportResultStream['head']): number {
  const created: unknown = head.request?.dateCreated;
  const given = [
    ['dataAsOf', options.dataAsOf],
    ["the result's request.dateCreated", typeof created === 'string' && created !== '' ? created : undefined],
    ['requestedAt', options.requestedAt],
  ] as const;
  for (const [name, text] of given) {
    if (text === undefined) continue;
    try {
      return parseInstant(name, text);
    } catch (error) {
      // The service's own timestamp, unreadable: the caller's clock is next, never a guess.
      if (name === "the result's request.dateCreated") continue;
      throw new ExportConfigError((error as Error).message);
    }
  }
  return (options.now ?? (() => new Date()))().getTime();
}

/** ExportOptions.settleGraceMinutes in ms, checked (0 to a day). */
function settleGraceMs(options: ExportOptions): number {
  const minutes = options.settleGraceMinutes ?? SETTLE_GRACE_MINUTES;
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > 1440) {
    throw new ExportConfigError(
      `settleGraceMinutes must be a whole number of minutes from 0 to 1440, got ${minutes}`,
    );
  }
  return minutes * 60_000;
}

/** ExportOptions.commit, checked: `defer` needs tables (the Hive layout publishes at once). */
function commitMode(options: ExportOptions): 'now' | 'defer' {
  const commit = options.commit ?? 'now';
  if (commit !== 'now' && commit !== 'defer') {
    throw new ExportConfigError(`commit must be 'now' or 'defer', got ${JSON.stringify(commit)}`);
  }
  if (commit === 'defer' && options.tables === undefined) {
    throw new ExportConfigError(
      "commit 'defer' needs tables: the Hive layout has no committer and publishes at once",
    );
  }
  return commit;
}

/**
 * A summary result: its `request.displayFields` name fields and none is `start`, so its rows
 * are totals over the job's window, not calls (an empty or missing list is a call list, as
 * the spec's example is).
 */
export function isSummaryResult(head: ReportResultStream['head']): boolean {
  const fields: unknown = head.request?.displayFields;
  if (!Array.isArray(fields) || fields.length === 0) return false;
  return !fields.some(
    (f) => (typeof f === 'string' ? f : (f as { fieldName?: unknown })?.fieldName) === 'start',
  );
}

/** The one local day a summary covers: its window must be exactly one day. */
function oneDay(dates: readonly string[], requestId: string): string {
  if (dates.length !== 1) {
    throw new ExportError(
      EXPORT_ERROR_CODES.summaryWindowInvalid,
      dates.length === 0
        ? 'A summary result needs its window (one local day): its rows have no start to date them'
        : `A summary result covers one local day, this window covers ${dates.length} (${dates[0]} .. ${dates.at(-1)}): run it day by day`,
      { requestId },
    );
  }
  return dates[0] as string;
}

/**
 * The zone of the rows' wall times. Never the machine's: `Intl` would silently use the
 * host's `TZ` for a missing zone, and `start_utc` would depend on where the export ran.
 */
function resolveTimeZone(fromResult: unknown, fromCaller: string | undefined, requestId: string): string {
  const result = typeof fromResult === 'string' && fromResult !== '' ? fromResult : undefined;
  if (result === undefined && fromCaller === undefined) {
    throw new ExportError(
      EXPORT_ERROR_CODES.timeZoneInvalid,
      'The result has no request.timeZoneId and no timeZone option was given: the local times cannot be placed',
      { requestId },
    );
  }
  if (result !== undefined && fromCaller !== undefined && result !== fromCaller) {
    throw new ExportError(
      EXPORT_ERROR_CODES.timeZoneInvalid,
      `The result's request.timeZoneId (${result}) differs from the timeZone option (${fromCaller})`,
      { requestId },
    );
  }
  const zone = (result ?? fromCaller) as string;
  // Fails with EXPORT_TIME_ZONE_INVALID for a name Intl does not know.
  new ZoneConverter(zone);
  return zone;
}

/**
 * The calendar's refusal of a window option, as the export's option error (the same code,
 * EXPORT_CONFIG_INVALID): every invalid option of an export is an ExportConfigError.
 */
function windowOption<T>(read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (cause instanceof CalendarError && cause.code === CALENDAR_ERROR_CODES.dateInvalid) {
      throw new ExportConfigError(cause.message, { cause });
    }
    throw cause;
  }
}

/** How errors and logs name the window rows must fall in. */
function windowLabel(
  window: ReportWindow | undefined,
  dates: readonly string[] | undefined,
  zone: string,
): string {
  const parts: string[] = [];
  if (window !== undefined) parts.push(`${window.from} .. ${window.to}`);
  if (dates !== undefined && dates.length > 0) parts.push(`dates ${dates.join(', ')}`);
  return `${parts.join(' and ')} (${zone})`;
}

/**
 * A run id from the request id: safe for a key segment, and bounded, because the
 * service's ids have no documented length and the staging folder is a path segment.
 */
function defaultRunId(requestId: string): string {
  const safe = requestId.replace(/[^A-Za-z0-9._-]/g, '_');
  const base =
    safe.length <= RUN_ID_REQUEST_CHARS
      ? safe
      : `${safe.slice(0, 40)}-${createHash('sha256').update(requestId).digest('hex').slice(0, 16)}`;
  return `${base}-${randomUUID().slice(0, 8)}`;
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

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ExportConfigError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function oneOf<T extends string>(
  name: string,
  value: T | undefined,
  fallback: NoInfer<T>,
  allowed: Readonly<Record<string, T>>,
): T {
  const v = value ?? fallback;
  const values = Object.values(allowed);
  if (!values.includes(v)) {
    throw new ExportConfigError(`${name} must be ${values.join(', ')}; got ${String(v)}`);
  }
  return v;
}
