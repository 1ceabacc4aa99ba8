import { z } from 'zod';
import { isIanaZone } from '../calendar';
import type { SummaryMismatchPolicy } from '../export';
import {
  DATASETS,
  type Dataset,
  omittedFields,
  PROMOTED_TYPES,
  type PromotedColumn,
  type PromotedType,
  tableSchema,
} from '../export';
import { InvalidConfigError } from './errors';
import { MAX_EXECUTION_INPUT_BYTES } from './input';
import { SETTINGS_DEFAULTS } from './settings-defaults';

/** A report the deployment exports by default (id from the service, name for people). */
export interface ConfiguredReport {
  id: string;
  name: string;
}

/** How long to wait between status polls: grows by `factor` from `initialSeconds` up to `maxSeconds`. */
export interface PollSchedule {
  initialSeconds: number;
  maxSeconds: number;
  factor: number;
  /** Polls one job may make in all (over every request of a split window). */
  maxPollsPerJob: number;
}

/** Settings of the workflow's handlers, validated once at cold start. */
export interface WorkflowSettings {
  /** IANA zone of the tenant's reports: days, `dt` partitions and "yesterday" are local to it. */
  timeZone: string;
  workspaceId: string;
  reports: readonly ConfiguredReport[];
  /**
   * Earlier days re-exported by every nightly run (late or corrected records): the settle
   * window, re-read after a day settled.
   */
  lookBackDays: number;
  /**
   * Minutes between the tenant's intraday refreshes, when it has them: a refresh whose
   * previous one fell on yesterday exports yesterday too (and so settles it).
   */
  intradayEveryMinutes?: number;
  /** Longest window one job requests (local days). */
  maxWindowDays: number;
  /** Smallest piece a busy day is split into when a result reaches the row limit. */
  minSplitMinutes: number;
  poll: PollSchedule;
  /** Report requests one job may make (a split window makes several). */
  maxRequestsPerJob: number;
  /** Jobs one execution runs; the rest continue in a new execution (history budget). */
  maxJobsPerExecution: number;
  csvGzip: boolean;
  parquetCodec: 'SNAPPY' | 'ZSTD' | 'UNCOMPRESSED';
  /**
   * Local disk the export may fill with part files before publishing (the function's
   * ephemeral storage less what else uses /tmp); past it the export fails as
   * SpillBudgetExceededError. Undefined: no budget (local runs on a large disk).
   */
  spillBudgetBytes: number | undefined;
  /** Refresh the access token this long before its expiry. */
  tokenRefreshSkewSeconds: number;
  /** Members made typed columns, per dataset (checked like the export core checks them). */
  promotedColumns: Partial<Record<Dataset, PromotedColumn[] | undefined>>;
  /** A result whose summary disagrees with its rows: publish and flag, or fail. */
  summaryMismatch: SummaryMismatchPolicy;
  /** The shrink guard: a published partition is replaced only with at least this share of its rows. */
  minShareOfPublished: number;
  /**
   * Contact item fields (the service's names, or `extra`) the deployment leaves out of the
   * lake (CONTACT_OMIT_FIELDS, comma-separated): personal data it does not keep.
   */
  contactOmitFields: readonly string[];
}

/** Step Functions keeps at most 25,000 events per execution; plans keep 20% of it spare. */
export const HISTORY_EVENT_LIMIT = 25_000;
export const HISTORY_EVENT_BUDGET = 20_000;

/** Task retries a job's budget allows for: each retried attempt adds 3 events. */
const RETRY_ALLOWANCE_PER_TASK = 2;

/**
 * Worst-case history events of one job (the arithmetic the README shows): a Map iteration
 * (2), per request a RequestReport task (5), an ExportResults task (5) and two Choice
 * states (4), per poll a Wait (2), a CheckStatus task (5) and a Choice (2), the job's
 * closing Pass (2), and an allowance of RETRY_ALLOWANCE_PER_TASK retried attempts (3
 * events each) for every task the job runs. Retries beyond the allowance are possible
 * (a long outage): the budget's spare fifth absorbs them.
 */
export function worstCaseEventsPerJob(
  settings: Pick<WorkflowSettings, 'poll' | 'maxRequestsPerJob'>,
): number {
  const tasks = settings.maxRequestsPerJob * 2 + settings.poll.maxPollsPerJob;
  const flow = 2 + settings.maxRequestsPerJob * 14 + settings.poll.maxPollsPerJob * 9 + 2;
  return flow + tasks * RETRY_ALLOWANCE_PER_TASK * 3;
}

/** Step Functions' quota on a state's input and output and a task's payload (UTF-8 bytes of JSON). */
export const STATE_DATA_LIMIT_BYTES = 262_144;

/** Longest configured report id and name (each travels in every job of the plan and its result). */
export const MAX_REPORT_FIELD_CHARS = 100;
/** Longest error message a handler throws: the Catch's Cause lands in the job's result. */
export const MAX_ERROR_CAUSE_CHARS = 1_000;
/** Longest reason the Commit task gives for a job (an invalid staged run's): it travels in the state. */
export const MAX_COMMIT_REASON_CHARS = 400;

/**
 * Worst-case bytes one job adds to the state (test/unit/workflow/state-size.test.ts builds
 * it): its result when every list of its cursor is full (MAX_HELD_LISTED held partitions,
 * MAX_PARTIAL_DAYS_LISTED partial days, MAX_MISMATCHES_LISTED mismatches, a Cause of
 * MAX_ERROR_CAUSE_CHARS) with ids and names at their longest (a tenant's 32-character id in
 * the job and its result included), plus its entry in the plan's jobs and continuation
 * (about 11.7 KB) and its entry in the Commit task's output (COMMIT_JOB_STATE_BYTES); per
 * report request a queued piece and either a ready piece or a staged run (a request's result
 * is one or the other: a ready piece is exported, staged, with the day's last one), the staged
 * run's key at most MAX_STAGED_KEY_CHARS; and per day of the job's window (plus one per
 * request, a day two pieces share) the day in a staged run's list.
 */
const JOB_STATE_BYTES = 11_500;
const QUEUED_PIECE_STATE_BYTES = 100;
const EXPORTED_PIECE_STATE_BYTES = 400;
const STAGED_DAY_STATE_BYTES = 13;
/** A job's entry in the Commit task's output: its outcome, snapshots and a reason of at most MAX_COMMIT_REASON_CHARS. */
export const COMMIT_JOB_STATE_BYTES = 700;
/**
 * The contacts branch in the state: its summary (counts, an error of MAX_SYNC_MESSAGE_CHARS,
 * the report's key, or a caught Lambda error's Cause) and the Commit task's `contacts` (its
 * snapshots and MAX_INVALID_SYNCS_LISTED refused syncs with their reasons). Not per
 * directory: the outcomes are in the sync's report object.
 */
export const CONTACTS_STATE_BYTES = 5_000;
/** What the state holds besides the jobs: the 32 KiB input (or its filters), the plan's own fields, the contacts'. */
const STATE_OVERHEAD_BYTES = MAX_EXECUTION_INPUT_BYTES + 2_048 + CONTACTS_STATE_BYTES;

/** Jobs whose worst-case results, with the input and the plan, fit the state quota. */
function jobsWithinStateLimit(maxRequestsPerJob: number, maxWindowDays: number): number {
  const perJob =
    JOB_STATE_BYTES +
    COMMIT_JOB_STATE_BYTES +
    QUEUED_PIECE_STATE_BYTES * (maxRequestsPerJob + 1) +
    EXPORTED_PIECE_STATE_BYTES * maxRequestsPerJob +
    STAGED_DAY_STATE_BYTES * (maxWindowDays + maxRequestsPerJob);
  return Math.floor((STATE_DATA_LIMIT_BYTES - STATE_OVERHEAD_BYTES) / perJob);
}

/**
 * Events of an execution outside its jobs: start, Plan, PrepareTables, the Parallel state and
 * its contacts branch (a Choice, SyncDirectories and its two retries), Map, Commit (its lease
 * waits and retries), Finalize, notify/fail, continuation.
 */
export const EXECUTION_OVERHEAD_EVENTS = 160;

/**
 * Jobs per execution that keep the worst case within the history budget and the state quota.
 * `maxWindowDays` (the days a job's staged runs list) defaults to SETTINGS_DEFAULTS'.
 */
export function jobsWithinBudget(
  settings: Pick<WorkflowSettings, 'poll' | 'maxRequestsPerJob'> &
    Partial<Pick<WorkflowSettings, 'maxWindowDays'>>,
): number {
  const byHistory = Math.floor(
    (HISTORY_EVENT_BUDGET - EXECUTION_OVERHEAD_EVENTS) / worstCaseEventsPerJob(settings),
  );
  const byState = jobsWithinStateLimit(
    settings.maxRequestsPerJob,
    settings.maxWindowDays ?? SETTINGS_DEFAULTS.maxWindowDays,
  );
  return Math.max(1, Math.min(byState, byHistory));
}

export { SETTINGS_DEFAULTS } from './settings-defaults';

/** A dataset's promoted columns, checked as the export core checks them (names, types, clashes). */
function promotedList(dataset: Dataset) {
  return z
    .array(z.strictObject({ name: z.string(), type: z.enum(Object.keys(PROMOTED_TYPES) as [PromotedType]) }))
    .superRefine((promoted, ctx) => {
      try {
        tableSchema({ dataset, promoted });
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .optional();
}

/**
 * Promoted columns per dataset, `{"calls": [{"name": "accountCode", "type": "string"}],
 * "summaries": [...]}`: the PROMOTED_COLUMNS setting and the stack config's `promotedColumns`.
 */
export const PROMOTED_COLUMNS_SCHEMA = z.strictObject({
  calls: promotedList(DATASETS.calls),
  summaries: promotedList(DATASETS.summaries),
});

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * The settings of a single-tenant deployment that a multi-tenant one takes from each tenant's
 * registry entry (lib/workflow/tenant-registry.ts) instead.
 */
const TENANT_ENV = {
  /** A single-tenant deployment's intraday interval (its schedule's), when it has one. */
  INTRADAY_EVERY_MINUTES: int(15, 720).optional(),
  TIME_ZONE: z.string().refine(isIanaZone, 'is not an IANA time zone'),
  WORKSPACE_ID: z.string().min(1),
  REPORTS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(
      z
        .array(
          z.object({
            id: z.string().min(1).max(MAX_REPORT_FIELD_CHARS),
            name: z.string().min(1).max(MAX_REPORT_FIELD_CHARS),
          }),
        )
        .min(1),
    ),
};

/** Environment variables of the handlers, one per setting (names in the error messages), but the tenant's. */
const DEPLOYMENT_ENV = {
  LOOKBACK_DAYS: int(0, 90).default(SETTINGS_DEFAULTS.lookBackDays),
  MAX_WINDOW_DAYS: int(1, 366).default(SETTINGS_DEFAULTS.maxWindowDays),
  MIN_SPLIT_MINUTES: int(1, 1440).default(SETTINGS_DEFAULTS.minSplitMinutes),
  POLL_INITIAL_SECONDS: int(0, 3600).default(SETTINGS_DEFAULTS.poll.initialSeconds),
  POLL_MAX_SECONDS: int(0, 3600).default(SETTINGS_DEFAULTS.poll.maxSeconds),
  MAX_POLLS_PER_JOB: int(1, 500).default(SETTINGS_DEFAULTS.poll.maxPollsPerJob),
  MAX_REQUESTS_PER_JOB: int(1, 200).default(SETTINGS_DEFAULTS.maxRequestsPerJob),
  MAX_JOBS_PER_EXECUTION: int(1, 10_000).optional(),
  CSV_GZIP: z.enum(['true', 'false']).default('false'),
  PARQUET_CODEC: z.enum(['SNAPPY', 'ZSTD', 'UNCOMPRESSED']).default(SETTINGS_DEFAULTS.parquetCodec),
  SPILL_BUDGET_BYTES: int(1, Number.MAX_SAFE_INTEGER).optional(),
  TOKEN_REFRESH_SKEW_SECONDS: int(0, 3600).default(SETTINGS_DEFAULTS.tokenRefreshSkewSeconds),
  PROMOTED_COLUMNS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(PROMOTED_COLUMNS_SCHEMA)
    .optional(),
  SUMMARY_MISMATCH: z.enum(['flag', 'fail']).default(SETTINGS_DEFAULTS.summaryMismatch),
  MIN_SHARE_OF_PUBLISHED: z.coerce.number().min(0).max(1).default(SETTINGS_DEFAULTS.minShareOfPublished),
  CONTACT_OMIT_FIELDS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const fields = text
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== '');
      try {
        omittedFields(fields);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
      return fields;
    }),
};

/** A single-tenant deployment's environment: every setting. */
const ENV_SCHEMA = z.object({ ...TENANT_ENV, ...DEPLOYMENT_ENV });
/** A multi-tenant deployment's: the tenants' settings come from the registry. */
const DEPLOYMENT_ENV_SCHEMA = z.object(DEPLOYMENT_ENV);

/** What a single-tenant deployment's environment sets and a multi-tenant one's tenant entries do. */
export type TenantSettings = Pick<
  WorkflowSettings,
  'timeZone' | 'workspaceId' | 'reports' | 'lookBackDays' | 'intradayEveryMinutes'
>;
/** The settings every tenant of a deployment shares: limits, formats, policies. */
export type DeploymentSettings = Omit<WorkflowSettings, keyof TenantSettings>;

/** The environment variable names the handlers read. */
export type SettingsEnvironment = Partial<Record<keyof z.input<typeof ENV_SCHEMA>, string>>;

/** The issues of a parse, each naming its variable. */
function invalid(issues: readonly { path: readonly PropertyKey[]; message: string }[]): InvalidConfigError {
  const problems = issues.map((i) => `${i.path.map(String).join('.') || 'environment'} ${i.message}`);
  return new InvalidConfigError(`Invalid workflow settings: ${problems.join('; ')}`);
}

/** The deployment-wide settings from a parsed environment (the tenant's members left out). */
function deploymentSettings(e: z.infer<typeof DEPLOYMENT_ENV_SCHEMA>): {
  budget: number;
  settings: DeploymentSettings;
} {
  const poll = {
    initialSeconds: e.POLL_INITIAL_SECONDS,
    maxSeconds: Math.max(e.POLL_INITIAL_SECONDS, e.POLL_MAX_SECONDS),
    factor: 2,
    maxPollsPerJob: e.MAX_POLLS_PER_JOB,
  };
  const budget = jobsWithinBudget({
    poll,
    maxRequestsPerJob: e.MAX_REQUESTS_PER_JOB,
    maxWindowDays: e.MAX_WINDOW_DAYS,
  });
  if (e.MAX_JOBS_PER_EXECUTION !== undefined && e.MAX_JOBS_PER_EXECUTION > budget) {
    throw new InvalidConfigError(
      `Invalid workflow settings: MAX_JOBS_PER_EXECUTION ${e.MAX_JOBS_PER_EXECUTION} exceeds the history budget (${budget} jobs at these poll and request limits)`,
    );
  }
  const settings: DeploymentSettings = {
    maxWindowDays: e.MAX_WINDOW_DAYS,
    minSplitMinutes: e.MIN_SPLIT_MINUTES,
    poll,
    maxRequestsPerJob: e.MAX_REQUESTS_PER_JOB,
    maxJobsPerExecution: e.MAX_JOBS_PER_EXECUTION ?? budget,
    csvGzip: e.CSV_GZIP === 'true',
    parquetCodec: e.PARQUET_CODEC,
    spillBudgetBytes: e.SPILL_BUDGET_BYTES,
    tokenRefreshSkewSeconds: e.TOKEN_REFRESH_SKEW_SECONDS,
    promotedColumns: e.PROMOTED_COLUMNS ?? {},
    summaryMismatch: e.SUMMARY_MISMATCH,
    minShareOfPublished: e.MIN_SHARE_OF_PUBLISHED,
    contactOmitFields: e.CONTACT_OMIT_FIELDS,
  };
  return { budget, settings };
}

/**
 * Reads and validates a single-tenant deployment's settings; the error names the variable
 * and what is wrong.
 */
export function settingsFromEnvironment(env: Record<string, string | undefined>): WorkflowSettings {
  const parsed = ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error.issues);
  const e = parsed.data;
  const { budget, settings } = deploymentSettings(e);
  if (e.REPORTS.length > budget) {
    throw new InvalidConfigError(
      `Invalid workflow settings: REPORTS lists ${e.REPORTS.length} reports, more than the ${budget} jobs one execution may run (history budget); deploy one stack per group of at most ${budget} reports, or lower MAX_POLLS_PER_JOB / MAX_REQUESTS_PER_JOB`,
    );
  }
  return {
    timeZone: e.TIME_ZONE,
    workspaceId: e.WORKSPACE_ID,
    reports: e.REPORTS,
    lookBackDays: e.LOOKBACK_DAYS,
    ...(e.INTRADAY_EVERY_MINUTES === undefined ? {} : { intradayEveryMinutes: e.INTRADAY_EVERY_MINUTES }),
    ...settings,
  };
}

/**
 * Reads and validates a multi-tenant deployment's settings: all but the tenant's (time
 * zone, workspace, reports, look-back), which come from each tenant's registry entry.
 * LOOKBACK_DAYS, if set, is not read.
 */
export function deploymentSettingsFromEnvironment(
  env: Record<string, string | undefined>,
): DeploymentSettings {
  const parsed = DEPLOYMENT_ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error.issues);
  return deploymentSettings(parsed.data).settings;
}
