import type { ReportResultStream } from '../api';
import type { ReportWindow } from '../calendar';
import type { ObjectStore } from '../stores';
import type { ParquetCodec } from './formats/parquet-encoder';
import { DEFAULT_MIN_SHARE_OF_PUBLISHED } from './publish/shrink-guard';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_MAX_OPEN_BUFFERS } from './rows/partitioner';
import type { Dataset, PromotedColumn } from './schema';
import type {
  ExportLogger,
  LakeTables,
  OutsideWindowPolicy,
  SummaryMismatchPolicy,
  UnknownMemberPolicy,
} from './types';

export type { LakeTables } from './types';

/** Options of one export run. Only `source`, `store` and `reportId` are required. */
export interface ExportOptions {
  /** The report result as the client streams it. */
  source: ReportResultStream;
  store: ObjectStore;
  /** The report's id, used in the key layout (`report_id=`). */
  reportId: string;
  /**
   * The tenant the run exports for (multi-tenant deployments; `TENANT_ID_PATTERN`): a column
   * and the first partition of every table. Its partitions lie under `tenant=<t>/`
   * (`<dataset>/format=<f>/tenant=<t>/report_id=<id>/dt=<day>/`, an Iceberg table's
   * `data/tenant=<t>/...`), its staging under `_staging/tenant=<t>/`; an overwrite replaces
   * only its own partitions and the shrink guard compares with its own. Its Iceberg tables are
   * created with a required `tenant` column partitioned by identity(tenant); a table created
   * without one refuses a tenant's export, and one with it refuses an export without a
   * tenant (EXPORT_TABLE_INVALID).
   * @default none: the single-tenant layout
   */
  tenant?: string;
  /**
   * Members the deployment made typed columns, per dataset (see `tableSchema`): they leave
   * `extra` for a column of their name, after every other column.
   * @default none
   */
  promotedColumns?: Partial<Record<Dataset, readonly PromotedColumn[] | undefined>>;
  /**
   * When the result's `summary` (the service's own totals) disagrees with the sums over the
   * rows read: `flag` publishes and reports the mismatch (`reconciliation.matches` false), `fail`
   * publishes nothing (EXPORT_SUMMARY_MISMATCH). The rows have already reconciled with
   * `totalCount`, so a disagreement of totals says the service computes them differently
   * rather than that rows are missing: `flag` keeps the night's data and raises it.
   * @default 'flag'
   */
  summaryMismatch?: SummaryMismatchPolicy;
  /**
   * The shrink guard: a partition already published with rows is replaced only when the run
   * has at least this share of its calls: rows of a call list, call totals (`ans` + `ref` +
   * `lost`) of a summary (0 turns the guard off; an empty result over a published day is
   * always held unless 0 or forceReplace). A held partition keeps its published files and
   * is listed in the summary's `held`.
   * @default 0.5
   */
  minShareOfPublished?: number;
  /**
   * Replace partitions the shrink guard would hold, and empty the report's days in its other
   * dataset when it changed shape (else ReportShapeChangedError).
   * @default false
   */
  forceReplace?: boolean;
  /**
   * Key prefix without leading or trailing slash.
   * @default '' (none)
   */
  prefix?: string;
  /**
   * Parquet compression; ZSTD needs Node >= 22.15.
   * @default 'SNAPPY'
   */
  parquetCodec?: ParquetCodec;
  /**
   * Gzip the CSV (`.csv.gz`).
   * @default false
   */
  csvGzip?: boolean;
  /**
   * Row members the schema does not know: `keep` them, exactly as sent, in the `extra`
   * column (a JSON object text per row; NULL for a row without any), or `fail` the run
   * (EXPORT_UNKNOWN_MEMBER, naming the member and the row) for a hard stop.
   * @default 'keep'
   */
  unknownMembers?: UnknownMemberPolicy;
  /**
   * A row whose local date is outside the window (`window` / `windowDates`): `fail` the run
   * (EXPORT_ROW_OUTSIDE_WINDOW, nothing published) or `drop` it (counted, logged once,
   * reported as `droppedRows`, never published). Without a window every row is kept.
   * @default 'fail'
   */
  outsideWindow?: OutsideWindowPolicy;
  /**
   * IANA zone in which rows' `start` is read when the result's `request.timeZoneId` is
   * missing. When both are given they must agree.
   * @default none: a result without a time zone fails with EXPORT_TIME_ZONE_INVALID
   */
  timeZone?: string;
  /**
   * Rows per part file.
   * @default 1_000_000 (the service's row limit: one file per partition and format)
   */
  maxRowsPerFile?: number;
  /**
   * Rows per Parquet row group (at most maxBufferedRows).
   * @default 32_768
   */
  rowGroupRows?: number;
  /**
   * Rows buffered in memory across partitions, the main memory knob.
   * @default 32_768
   */
  maxBufferedRows?: number;
  /**
   * UTF-8 bytes of text buffered across partitions: bounds memory when values are large
   * (rows of megabytes), whatever the row count.
   * @default 8 MiB
   */
  maxBufferedBytes?: number;
  /**
   * Partitions holding a row buffer at once: bounds memory over many days (a new one
   * beyond it flushes the partition that waited longest).
   * @default 64
   */
  maxOpenBuffers?: number;
  /**
   * Where part files are written before staging.
   * @default the OS temp directory
   */
  spillDirectory?: string;
  /**
   * Bytes of part files the run may write to `spillDirectory` (all partitions, both
   * formats, whichever thread encodes), checked before each write: a write that would
   * pass it fails the run with EXPORT_SPILL_BUDGET_EXCEEDED before the disk fills, and
   * nothing is published. Size it from the summary's `spilledBytes` (about 285 bytes a
   * row), below the free space of the spill disk: the count is of bytes written, not of
   * file system blocks (up to one block more per part file, plus a directory per date).
   * A full disk (ENOSPC, EDQUOT) fails with the same code.
   * @default none (unlimited)
   */
  spillBudgetBytes?: number;
  /**
   * The window the report was requested for. Recorded in manifests. When given, the run
   * replaces every partition of the window: a local date (report's zone) that it covers
   * but that has no rows in this run is published empty (its earlier parts deleted, a
   * 0-row manifest written), so a re-export leaves exactly the window's result; a row
   * dated outside it is handled by `outsideWindow`.
   * @default none: manifests record the request's metadata dates; only dates with rows are replaced
   */
  window?: ReportWindow;
  /**
   * The local dates (`YYYY-MM-DD`) the run replaces, instead of those `window` covers;
   * `[]` replaces only dates with rows. Rows may fall on these dates and on the window's.
   * @default the dates of `window`, or none without it
   */
  windowDates?: readonly string[];
  /**
   * Clock for the manifest's `exportedAt`.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * The instant (ISO 8601 with an offset) the service's data was read as of. A day that had
   * not ended then in the report's zone is `provisional` (it may still grow).
   * @default the result's `request.dateCreated` (the service's own clock when it created the
   * run), else `requestedAt`, else `now()` at the start of the export
   */
  dataAsOf?: string;
  /** When the caller requested the run (its own clock): `dataAsOf` for a result without `dateCreated`. */
  requestedAt?: string;
  /**
   * Minutes after a day's end during which a read of it still counts as provisional: calls
   * that started before midnight may reach the service after it (a record written when the
   * call ends, or late), so a day read just after it ended is not yet settled.
   * @default SETTLE_GRACE_MINUTES (30)
   */
  settleGraceMinutes?: number;
  /**
   * Run id (staging folder name): letters, digits, `.`, `_`, `-`, at most 128.
   * @default the request id (made safe, long ones cut and hashed) plus a random suffix
   */
  runId?: string;
  /** @default none (silent) */
  logger?: ExportLogger;
  /**
   * Where Parquet and CSV encoding runs: a worker thread from `encode-worker.mjs` next to
   * the running bundle, so parsing and encoding use two cores; when that file is absent
   * (running from TypeScript sources) or cannot start, the calling thread (logged). A URL
   * selects another worker file; `false` forces the calling thread.
   * @default `encode-worker.mjs` beside the bundle
   */
  encodeWorker?: URL | false;
  /**
   * Aborts the run (e.g. shortly before a Lambda deadline). Checked per batch of rows and
   * before staging and promotion; an aborted run publishes nothing (EXPORT_ABORTED).
   * @default none
   */
  signal?: AbortSignal;
  /**
   * The catalog of the lake's Iceberg tables. With it, the Parquet of each dataset is the
   * table `<namespace>.<dataset>` (`calls`, `summaries`) at `<prefix>/tables/<dataset>` of
   * `store` (with commit `now`, created when missing and its schema evolved for promoted
   * columns; with `defer`, only read: the committer prepares it, and a table missing a column
   * the run writes is refused with EXPORT_TABLE_NOT_PREPARED), and a run
   * replaces its partitions in ONE `overwrite` snapshot (lib/export/table). The CSV is the
   * same partitioned layout either way.
   * @default none: Hive-layout Parquet (`<dataset>/format=parquet/report_id=<id>/dt=<day>/`) beside the CSV
   */
  tables?: LakeTables;
  /**
   * `now`: promote the CSV and commit the tables in this call. `defer` (requires `tables`):
   * stop after staging the CSV and writing the tables' data files, write the staged run
   * (publish/staged-run.ts) and return its reference as the summary's `staged`, for a
   * committer's `commitStagedRuns` (a run all of whose partitions were held stages nothing).
   * @default 'now'
   */
  commit?: 'now' | 'defer';
}

/** The defaults of {@link ExportOptions}, in one place. */
/** ExportOptions.settleGraceMinutes' default: a day read within 30 minutes of its end stays provisional. */
export const SETTLE_GRACE_MINUTES = 30;

export const EXPORT_DEFAULTS = {
  prefix: '',
  summaryMismatch: 'flag',
  minShareOfPublished: DEFAULT_MIN_SHARE_OF_PUBLISHED,
  parquetCodec: 'SNAPPY',
  csvGzip: false,
  unknownMembers: 'keep',
  outsideWindow: 'fail',
  maxRowsPerFile: 1_000_000,
  rowGroupRows: 32_768,
  maxBufferedRows: 32_768,
  maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
  maxOpenBuffers: DEFAULT_MAX_OPEN_BUFFERS,
} as const;
