import { z } from 'zod';
import { isIanaZone, parseCalendarDate } from '../calendar';
import type { SummaryMismatchPolicy } from '../export';
import { checkLayout, DATASETS, type Dataset, type PromotedColumn } from '../export';
import type { ConfiguredReport } from '../workflow';
import {
  INTRADAY_SCHEDULE_SCHEMA,
  type IntradaySchedule,
  PROMOTED_COLUMNS_SCHEMA,
  SETTINGS_DEFAULTS,
} from '../workflow';
import { DEFAULT_EXPORT_EPHEMERAL_MB, DEFAULT_EXPORT_MEMORY_MB } from './export-sizing';

/** Stable codes of the infra module's errors; tests match on these, never on messages. */
export const INFRA_ERROR_CODES = {
  configInvalid: 'INFRA_CONFIG_INVALID',
} as const;
type InfraErrorCode = (typeof INFRA_ERROR_CODES)[keyof typeof INFRA_ERROR_CODES];

/** The deployment's configuration is invalid; the message names every setting at fault. */
export class StackConfigError extends Error {
  readonly code: InfraErrorCode = INFRA_ERROR_CODES.configInvalid;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StackConfigError';
  }
}

/** When the nightly run starts, in the deployment's time zone. */
interface ScheduleConfig {
  /**
   * Create the schedule enabled; `false` keeps it (and its alarms) but pauses it.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * Local hour. 04:00 is past every DST switch (01:00-03:00 in Europe and the US).
   * @default 4
   */
  readonly hour?: number;
  /**
   * Local minute.
   * @default 0
   */
  readonly minute?: number;
}

/**
 * The night's digest (lib/workflow/digest.ts): one notice a night to the alarm topic naming the
 * tenants failed, held, stale and recovered, at one hour of the deployment (UTC: the digest is
 * the deployment's, its tenants are in many zones).
 */
interface DigestConfig {
  /**
   * Create its schedule enabled; `false` keeps the function and the schedule, paused.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * UTC hour. 09:00 UTC comes after every nightly run of the tenants of Europe, Africa and
   * Asia-Pacific has finished (their local 04:00 is before it), and is the morning in Europe
   * and the night before in the Americas, whose 04:00 falls after it: their failures are
   * named the next morning (the digest's night is the 24 hours before it, whichever zone).
   * @default 9
   */
  readonly hourUtc?: number;
}

/** Status polling of one job (see lib/workflow/settings.ts). */
interface PollConfig {
  /** @default 5 */
  readonly initialSeconds?: number;
  /** @default 60 */
  readonly maxSeconds?: number;
  /** @default 40 */
  readonly maxPollsPerJob?: number;
}

/**
 * One tenant per deployment (`single`: its settings here, one secret, one nightly schedule),
 * or many (`multi`: a tenant registry in the lake bucket, a secret and a schedule per tenant
 * made by `report-export tenants add`, isolated by the TenantAccess role). See
 * lib/infra/README.md, "Many tenants".
 */
export type Tenancy = 'single' | 'multi';

/** What a deployment exports; validated before synthesis by `resolveStackConfig`. */
export interface ReportExportConfig {
  /**
   * One tenant (the settings below) or many (each tenant's settings in the registry).
   * @default 'single'
   */
  readonly tenancy?: Tenancy;
  /** The tenant's workspace id. Required with `tenancy: 'single'`, refused with `multi` (per tenant). */
  readonly workspaceId?: string;
  /**
   * Reports exported by default; ids are S3 key segments and Athena's `report_id` values.
   * Required with `tenancy: 'single'`, refused with `multi` (per tenant).
   */
  readonly reports?: readonly ConfiguredReport[];
  /**
   * IANA zone of the reports: days, `dt` and the schedule are local to it. Required with
   * `tenancy: 'single'`, refused with `multi` (per tenant).
   */
  readonly timeZone?: string;
  /**
   * First local date (YYYY-MM-DD) the deployment will ever export: the first day of your
   * earliest backfill, else the first night's "yesterday". Athena's partition projection
   * of `dt` starts here (both tables), so a query without a `dt` filter only enumerates
   * days that can hold data. Required: no default can know it, and synthesis must not
   * read the clock. Days before it are written but invisible to Athena: to backfill
   * earlier, lower it and deploy first (only the tables' parameters change).
   */
  readonly dataStartDate: string;
  /**
   * The nightly run (`tenancy: 'single'`; refused with `multi`, where each tenant's hour is
   * in the registry).
   * @default { enabled: true, hour: 4, minute: 0 }
   */
  readonly schedule?: ScheduleConfig;
  /**
   * Intraday refreshes of today so far (a single-tenant deployment's; a multi-tenant one's
   * tenants set theirs in the registry): every `everyMinutes` (15, 20, 30, 60, 120 ... 720)
   * from `fromHour` (default 0) up to `toHour` (default 24), local time. A second schedule.
   * @default none: nightly only
   */
  readonly intraday?: { readonly everyMinutes: number; readonly fromHour?: number; readonly toHour?: number };
  /**
   * Earlier days every nightly run re-exports.
   * @default 2
   */
  readonly lookBackDays?: number;
  /**
   * Longest window of one job, in local days.
   * @default 7
   */
  readonly maxWindowDays?: number;
  /**
   * Smallest piece a busy day is split into at the row limit.
   * @default 15
   */
  readonly minSplitMinutes?: number;
  /**
   * Jobs exported at once.
   * @default 4
   */
  readonly mapConcurrency?: number;
  /** @default { initialSeconds: 5, maxSeconds: 60, maxPollsPerJob: 40 } */
  readonly poll?: PollConfig;
  /**
   * Report requests one job may make (a split window makes several).
   * @default 16
   */
  readonly maxRequestsPerJob?: number;
  /**
   * Gzip the CSV files (`.csv.gz`).
   * @default false
   */
  readonly csvGzip?: boolean;
  /**
   * Parquet compression.
   * @default 'SNAPPY'
   */
  readonly parquetCodec?: 'SNAPPY' | 'ZSTD' | 'UNCOMPRESSED';
  /**
   * Members the service sends that the spec does not document, made typed columns of a
   * dataset (in the files and the Glue table, after `extra`), e.g.
   * `{ "calls": [{ "name": "accountCode", "type": "string" }] }`. Per dataset, not per
   * report: a Glue table has one column list for all its reports, and CSV files are read by
   * position, so every report's files carry the same columns.
   * @default none
   */
  readonly promotedColumns?: Partial<Record<Dataset, readonly PromotedColumn[] | undefined>>;
  /**
   * A result whose summary disagrees with its rows: `flag` (publish, count it in the run
   * record, alarm) or `fail` (publish nothing, the job fails).
   * @default 'flag'
   */
  readonly summaryMismatch?: SummaryMismatchPolicy;
  /**
   * The shrink guard: a published partition is replaced only by a run with at least this
   * share of its rows (0 turns it off); held ones alarm, and `forceReplace` in the input
   * replaces them.
   * @default 0.5
   */
  readonly minShareOfPublished?: number;
  /**
   * Contact item fields (the service's names, e.g. `email`, or `extra`) left out of the
   * `contacts` table: personal data the deployment does not keep in the lake.
   * @default []
   */
  readonly contactOmitFields?: readonly string[];
  /**
   * Key prefix of the data lake in the bucket.
   * @default 'lake'
   */
  readonly prefix?: string;
  /**
   * Address subscribed to the alarm topic (confirm the e-mail AWS sends).
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Keep earlier versions of replaced objects (expired after 30 days).
   * @default false
   */
  readonly versioning?: boolean;
  /**
   * S3 server access logs of the data lake and Athena results buckets, into a logs bucket.
   * @default true
   */
  readonly accessLogs?: boolean;
  /**
   * Hours after which the newest exported day counts as stale (the freshness alarm).
   * @default 26
   */
  readonly freshnessHours?: number;
  /**
   * The night's digest to the alarm topic.
   * @default { enabled: true, hourUtc: 9 }
   */
  readonly digest?: DigestConfig;
  /**
   * Most bytes one Athena query of the workgroup may scan (at least 10 MB).
   * @default 10 GiB
   */
  readonly athenaBytesScannedCutoff?: number;
  /**
   * Memory of the ExportResults function in MB (CPU comes with it: one vCPU at 1,769).
   * @default 1769 (see lib/infra/export-sizing.ts and the README's sizing note)
   */
  readonly exportMemoryMb?: number;
  /**
   * Ephemeral storage (/tmp) of the ExportResults function in MB: the export's spill budget
   * is this less 64 MB.
   * @default 10240
   */
  readonly exportEphemeralStorageMb?: number;
  /**
   * Glue database name.
   * @default 'report_export'
   */
  readonly databaseName?: string;
  /**
   * How the Parquet datasets are kept: `iceberg`, Iceberg v2 tables `calls` and `summaries`
   * in the Glue catalog, created by the stack, one atomic commit per published window, kept
   * by Glue's table optimizers; `hive`, Parquet files in Hive-style folders
   * (`<prefix>/calls/format=parquet/...`) with partition-projected tables, for readers
   * without an Iceberg catalog. CSV is files either way.
   * @default 'iceberg'
   */
  readonly tableFormat?: 'iceberg' | 'hive';
}

/** The settings of the one tenant of a single-tenant deployment. */
type TenantSettingName = 'workspaceId' | 'reports' | 'timeZone' | 'schedule' | 'intraday';

/** Settings of every deployment, with the defaults applied. */
type ResolvedCommonConfig = Required<
  Omit<ReportExportConfig, 'alarmEmail' | 'poll' | 'tenancy' | 'digest' | TenantSettingName>
> & {
  readonly digest: Required<DigestConfig>;
  readonly alarmEmail: string | undefined;
  readonly poll: Required<PollConfig>;
  /** The export's dataset segment (`calls`): fixed by the export core. */
  readonly dataset: string;
  readonly promotedColumns: Partial<Record<Dataset, readonly PromotedColumn[] | undefined>>;
};

/** A single-tenant deployment: its tenant's settings are the stack's. */
export type SingleTenantStackConfig = ResolvedCommonConfig & {
  readonly tenancy: 'single';
  readonly workspaceId: string;
  readonly reports: readonly ConfiguredReport[];
  readonly timeZone: string;
  readonly schedule: Required<ScheduleConfig>;
  /** Its intraday refreshes, when it has them. */
  readonly intraday: IntradaySchedule | undefined;
};

/** A multi-tenant deployment: each tenant's settings are in the registry. */
export type MultiTenantStackConfig = ResolvedCommonConfig & { readonly tenancy: 'multi' };

/** The configuration with every default applied. */
export type ResolvedStackConfig = SingleTenantStackConfig | MultiTenantStackConfig;

/** Defaults of the optional settings (the workflow's own defaults where it has one). */
export const STACK_DEFAULTS = {
  tenancy: 'single',
  schedule: { enabled: true, hour: 4, minute: 0 },
  lookBackDays: SETTINGS_DEFAULTS.lookBackDays,
  maxWindowDays: SETTINGS_DEFAULTS.maxWindowDays,
  minSplitMinutes: SETTINGS_DEFAULTS.minSplitMinutes,
  mapConcurrency: 4,
  poll: {
    initialSeconds: SETTINGS_DEFAULTS.poll.initialSeconds,
    maxSeconds: SETTINGS_DEFAULTS.poll.maxSeconds,
    maxPollsPerJob: SETTINGS_DEFAULTS.poll.maxPollsPerJob,
  },
  maxRequestsPerJob: SETTINGS_DEFAULTS.maxRequestsPerJob,
  csvGzip: SETTINGS_DEFAULTS.csvGzip,
  parquetCodec: SETTINGS_DEFAULTS.parquetCodec,
  summaryMismatch: SETTINGS_DEFAULTS.summaryMismatch,
  minShareOfPublished: SETTINGS_DEFAULTS.minShareOfPublished,
  contactOmitFields: [],
  prefix: 'lake',
  versioning: false,
  accessLogs: true,
  freshnessHours: 26,
  digest: { enabled: true, hourUtc: 9 },
  athenaBytesScannedCutoff: 10 * 1024 ** 3,
  exportMemoryMb: DEFAULT_EXPORT_MEMORY_MB,
  exportEphemeralStorageMb: DEFAULT_EXPORT_EPHEMERAL_MB,
  databaseName: 'report_export',
  tableFormat: 'iceberg',
} as const;

/** True when the export core accepts `part` as the given layout member. */
const layoutAccepts = (member: 'prefix' | 'reportId', part: string): boolean => {
  try {
    checkLayout({
      prefix: member === 'prefix' ? part : 'p',
      dataset: DATASETS.calls,
      reportId: member === 'reportId' ? part : 'r',
      csvExtension: '.csv',
    });
    return true;
  } catch {
    return false;
  }
};

const int = (min: number, max: number) => z.number().int().min(min).max(max);
/** True for a `YYYY-MM-DD` date that exists, as the workflow's input parser reads dates. */
const isCalendarDate = (d: string): boolean => {
  try {
    parseCalendarDate('dataStartDate', d);
    return true;
  } catch {
    return false;
  }
};
/** What a missing `dataStartDate` is told: the setting, what to put, and why. */
const DATA_START_REQUIRED =
  'is required: put the first local date (YYYY-MM-DD) this deployment will export, the first day of your earliest backfill (or the first nightly run\'s "yesterday" when you start fresh); Athena\'s partition projection of dt starts there';

// Ranges are the handlers' (lib/workflow/settings.ts); the stack also runs the handlers'
// own validation on the environment it builds, so the two cannot disagree silently.
const CONFIG_SCHEMA = z.strictObject({
  tenancy: z
    .enum(['single', 'multi'], {
      error: 'must be "single" (one tenant, its settings here) or "multi" (a tenant registry)',
    })
    .optional(),
  workspaceId: z.string().min(1).optional(),
  reports: z
    .array(
      z.strictObject({
        id: z
          .string()
          .refine((id) => layoutAccepts('reportId', id), 'is not an S3 key segment [A-Za-z0-9._-]'),
        name: z.string().min(1),
      }),
    )
    .min(1)
    .refine((r) => new Set(r.map((x) => x.id)).size === r.length, 'has a duplicate id')
    .refine((r) => new Set(r.map((x) => x.name)).size === r.length, 'has a duplicate name')
    .optional(),
  timeZone: z.string().refine(isIanaZone, 'is not an IANA zone').optional(),
  dataStartDate: z
    .string({
      error: (issue) => (issue.input === undefined ? DATA_START_REQUIRED : 'must be a "YYYY-MM-DD" string'),
    })
    .refine(isCalendarDate, 'is not a YYYY-MM-DD date'),
  schedule: z
    .strictObject({
      enabled: z.boolean().optional(),
      hour: int(0, 23).optional(),
      minute: int(0, 59).optional(),
    })
    .optional(),
  intraday: INTRADAY_SCHEDULE_SCHEMA.optional(),
  lookBackDays: int(0, 90).optional(),
  maxWindowDays: int(1, 366).optional(),
  minSplitMinutes: int(1, 1440).optional(),
  mapConcurrency: int(1, 40).optional(),
  poll: z
    .strictObject({
      initialSeconds: int(0, 3600).optional(),
      maxSeconds: int(0, 3600).optional(),
      maxPollsPerJob: int(1, 500).optional(),
    })
    .optional(),
  maxRequestsPerJob: int(1, 200).optional(),
  csvGzip: z.boolean().optional(),
  parquetCodec: z.enum(['SNAPPY', 'ZSTD', 'UNCOMPRESSED']).optional(),
  promotedColumns: PROMOTED_COLUMNS_SCHEMA.optional(),
  summaryMismatch: z.enum(['flag', 'fail']).optional(),
  minShareOfPublished: z.number().min(0).max(1).optional(),
  contactOmitFields: z.array(z.string().min(1)).max(20).optional(),
  prefix: z
    .string()
    .refine((p) => layoutAccepts('prefix', p), 'must be key segments of [A-Za-z0-9._-] joined by "/"')
    .optional(),
  alarmEmail: z.email().optional(),
  versioning: z.boolean().optional(),
  accessLogs: z.boolean().optional(),
  // A whole number of hours of at most 7 days: CloudWatch's longest alarm evaluation range.
  freshnessHours: int(2, 168).optional(),
  digest: z.strictObject({ enabled: z.boolean().optional(), hourUtc: int(0, 23).optional() }).optional(),
  athenaBytesScannedCutoff: int(10_000_000, Number.MAX_SAFE_INTEGER).optional(),
  // Lambda's limits.
  exportMemoryMb: int(128, 10_240).optional(),
  exportEphemeralStorageMb: int(512, 10_240).optional(),
  databaseName: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,254}$/, 'must be lower-case letters, digits and _ (Athena)')
    .optional(),
  tableFormat: z
    .enum(['iceberg', 'hive'], {
      error: 'must be "iceberg" (Iceberg tables in the Glue catalog) or "hive" (Hive-layout Parquet folders)',
    })
    .optional(),
});

/** The tenant's own settings: required of a single-tenant deployment, refused of a multi-tenant one. */
const TENANT_SETTINGS: readonly TenantSettingName[] = [
  'workspaceId',
  'reports',
  'timeZone',
  'schedule',
  'intraday',
];
const SCHEMA_WITH_TENANCY = CONFIG_SCHEMA.superRefine((c, ctx) => {
  const multi = c.tenancy === 'multi';
  for (const name of TENANT_SETTINGS) {
    if (multi && c[name] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message:
          "is set per tenant in a multi-tenant deployment (tenancy: 'multi'): remove it here and give it to report-export tenants add",
      });
    else if (!multi && name !== 'schedule' && name !== 'intraday' && c[name] === undefined)
      ctx.addIssue({ code: 'custom', path: [name], message: 'is required (tenancy: single)' });
  }
  if (multi && c.tableFormat === 'hive')
    ctx.addIssue({
      code: 'custom',
      path: ['tableFormat'],
      message:
        'must be "iceberg" with tenancy \'multi\': Hive-layout tables project report_id from the configured reports, which a multi-tenant deployment does not have (see lib/infra/README.md)',
    });
});

/** Validates a configuration (from cdk.json or stack props) and applies the defaults. */
export function resolveStackConfig(value: unknown): ResolvedStackConfig {
  const parsed = SCHEMA_WITH_TENANCY.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const at = i.path.join('.');
      let v: unknown = value;
      for (const k of i.path) v = (v as Record<PropertyKey, unknown> | undefined)?.[k];
      const shown = typeof v === 'string' ? `"${v}" ` : typeof v === 'number' ? `${v} ` : '';
      return `${at || 'reportExport'} ${shown}${i.message}`;
    });
    throw new StackConfigError(`Invalid reportExport configuration: ${problems.join('; ')}`);
  }
  const c = parsed.data;
  const d = STACK_DEFAULTS;
  const common: ResolvedCommonConfig = {
    dataStartDate: c.dataStartDate,
    lookBackDays: c.lookBackDays ?? d.lookBackDays,
    maxWindowDays: c.maxWindowDays ?? d.maxWindowDays,
    minSplitMinutes: c.minSplitMinutes ?? d.minSplitMinutes,
    mapConcurrency: c.mapConcurrency ?? d.mapConcurrency,
    poll: {
      initialSeconds: c.poll?.initialSeconds ?? d.poll.initialSeconds,
      maxSeconds: c.poll?.maxSeconds ?? d.poll.maxSeconds,
      maxPollsPerJob: c.poll?.maxPollsPerJob ?? d.poll.maxPollsPerJob,
    },
    maxRequestsPerJob: c.maxRequestsPerJob ?? d.maxRequestsPerJob,
    csvGzip: c.csvGzip ?? d.csvGzip,
    parquetCodec: c.parquetCodec ?? d.parquetCodec,
    promotedColumns: c.promotedColumns ?? {},
    summaryMismatch: c.summaryMismatch ?? d.summaryMismatch,
    minShareOfPublished: c.minShareOfPublished ?? d.minShareOfPublished,
    contactOmitFields: c.contactOmitFields ?? d.contactOmitFields,
    prefix: c.prefix ?? d.prefix,
    alarmEmail: c.alarmEmail,
    versioning: c.versioning ?? d.versioning,
    accessLogs: c.accessLogs ?? d.accessLogs,
    freshnessHours: c.freshnessHours ?? d.freshnessHours,
    digest: {
      enabled: c.digest?.enabled ?? d.digest.enabled,
      hourUtc: c.digest?.hourUtc ?? d.digest.hourUtc,
    },
    athenaBytesScannedCutoff: c.athenaBytesScannedCutoff ?? d.athenaBytesScannedCutoff,
    exportMemoryMb: c.exportMemoryMb ?? d.exportMemoryMb,
    exportEphemeralStorageMb: c.exportEphemeralStorageMb ?? d.exportEphemeralStorageMb,
    databaseName: c.databaseName ?? d.databaseName,
    tableFormat: c.tableFormat ?? d.tableFormat,
    dataset: DATASETS.calls,
  };
  if (c.tenancy === 'multi') return { ...common, tenancy: 'multi' };
  const { workspaceId, reports, timeZone } = c;
  // The refinement above refused a single-tenant configuration without them.
  if (workspaceId === undefined || reports === undefined || timeZone === undefined)
    throw new StackConfigError(
      'Invalid reportExport configuration: workspaceId, reports and timeZone are required',
    );
  return {
    ...common,
    tenancy: 'single',
    workspaceId,
    reports,
    timeZone,
    schedule: {
      enabled: c.schedule?.enabled ?? d.schedule.enabled,
      hour: c.schedule?.hour ?? d.schedule.hour,
      minute: c.schedule?.minute ?? d.schedule.minute,
    },
    intraday:
      c.intraday === undefined
        ? undefined
        : {
            everyMinutes: c.intraday.everyMinutes as IntradaySchedule['everyMinutes'],
            fromHour: c.intraday.fromHour ?? 0,
            toHour: c.intraday.toHour ?? 24,
          },
  };
}

/** Reads the `reportExport` context object of cdk.json; errors name the setting and its value. */
export function configFromContext(value: unknown): ReportExportConfig {
  resolveStackConfig(value);
  return value as ReportExportConfig;
}
