import { commitStagedRuns, ensureTable } from '../export';
import type { NoticeTopic } from '../stores';
import { noticeTopicFromUri } from '../stores/aws';
import { toWorkflowError } from './classify';
import { type CommitOutput, type CommitTaskInput, commitRun } from './commit-task';
import { type DigestTenant, digestTenant } from './digest';
import { type DigestOutput, type DigestSettings, publishDigest } from './digest-task';
import { CONTACTS_CORE } from './directory-sync-core';
import {
  type DirectorySyncSummary,
  type SyncDirectoriesInput,
  syncTenantDirectories,
} from './directory-sync-task';
import { InvalidInputError, TenantConfigError, TenantDisabledError } from './errors';
import { exportResults } from './export-task';
import { type FinalizeOutput, finalizeRun, type MetricsSink } from './finalize';
import { parseExecutionInput, tenantOfRawInput } from './input';
import type { JobTaskInput } from './job-cursor';
import { type JobOptions, type Plan, planExecution } from './plan';
import { type PrepareTablesInput, type PrepareTablesOutput, prepareTables } from './prepare-tables';
import { checkStatus, requestReport } from './report-tasks';
import type { FinalizeInput } from './run-record';
import { withTenant } from './runtime';
import type { TenantRuntime, WorkflowLogger, WorkflowRuntime } from './runtime-types';
import { MAX_ERROR_CAUSE_CHARS } from './settings';

/** What the Lambda context gives a handler: time left before the deadline. */
export interface TaskContext {
  getRemainingTimeInMillis(): number;
  /** Aborts the task at once (a local run interrupted by its user); never set in Lambda. */
  signal?: AbortSignal;
}

/** Stop this long before the deadline so a task can clean up (the export publishes nothing). */
const DEADLINE_MARGIN_MS = 60_000;
/** Short tasks stop this long before their deadline. */
const SHORT_DEADLINE_MARGIN_MS = 10_000;
/** Commit stops this long before its deadline: time to roll a promotion back and release the leases. */
const COMMIT_DEADLINE_MARGIN_MS = 30_000;

function deadlineSignal(context: TaskContext | undefined, marginMs: number): AbortSignal | undefined {
  if (context === undefined) return undefined;
  const deadline = AbortSignal.timeout(Math.max(1000, context.getRemainingTimeInMillis() - marginMs));
  return context.signal === undefined ? deadline : AbortSignal.any([deadline, context.signal]);
}

/**
 * Runs a handler body, logging its failure by name (never the input's secrets: there are
 * none in state), with the task's tenant when it has one.
 */
async function logged<T>(
  logger: WorkflowLogger,
  tenant: string | undefined,
  task: string,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const named = toWorkflowError(error, task);
    logger.error(`${task} failed`, {
      ...(tenant === undefined ? {} : { tenant }),
      error: named.name,
      code: named.code,
      message: named.message,
    });
    throw boundedForState(named);
  }
}

/** A task of a job: its tenant's runtime (the job's `tenant`; none in a single-tenant deployment). */
function jobTask<E extends { job: { tenant?: string } }, R>(
  runtime: WorkflowRuntime,
  task: string,
  body: (t: TenantRuntime, event: E, context?: TaskContext) => Promise<R>,
) {
  return (event: E, context?: TaskContext): Promise<R> =>
    logged(runtime.logger, event.job.tenant, task, async () =>
      body(await runtime.forTenant(event.job.tenant), event, context),
    );
}

/**
 * The error as the state will carry it: a Catch puts Lambda's error JSON (message and stack
 * frames) in the job's result, so its message is cut to MAX_ERROR_CAUSE_CHARS (the logged
 * one is whole) and its frames dropped; the job count's state budget counts on it.
 */
function boundedForState<E extends Error>(error: E): E {
  if (error.message.length > MAX_ERROR_CAUSE_CHARS) {
    error.message = `${error.message.slice(0, MAX_ERROR_CAUSE_CHARS - 1)}…`;
  }
  error.stack = `${error.name}: ${error.message}`;
  return error;
}

/**
 * Plan: validates the input and turns it into jobs. No call to the service. In a
 * multi-tenant deployment the input names its tenant, whose registry entry gives the zone,
 * workspace, reports and look-back; a disabled tenant's execution fails here.
 */
export function createPlanHandler(runtime: WorkflowRuntime) {
  return (event: { input: unknown; executionName: string; startedAt?: string }): Promise<Plan> =>
    logged(runtime.logger, tenantOfRawInput(event.input), 'Plan', async () => {
      const input = parseExecutionInput(event.input);
      const t = await runtime.forTenant(input.tenant);
      if (t.entry?.enabled === false) {
        throw new TenantDisabledError(
          `tenant '${t.tenant}' is disabled in the registry: nothing of it runs until its entry is enabled again (report-export tenants)`,
        );
      }
      const started = event.startedAt === undefined ? Number.NaN : Date.parse(event.startedAt);
      const plan = planExecution(event.input, t.settings, {
        executionName: event.executionName,
        ...(Number.isNaN(started) ? {} : { now: new Date(started) }),
      });
      t.logger.info('planned', {
        runId: plan.runId,
        jobs: plan.jobCount,
        continues: plan.hasContinuation,
      });
      return plan;
    });
}

export function createRequestReportHandler(runtime: WorkflowRuntime) {
  return jobTask(
    runtime,
    'RequestReport',
    async (t, event: JobTaskInput & { options: JobOptions }, context) => {
      const api = await t.client();
      const signal = deadlineSignal(context, SHORT_DEADLINE_MARGIN_MS);
      const cursor = await requestReport(event, {
        reporting: api.reporting,
        poll: t.settings.poll,
        ...(signal === undefined ? {} : { signal }),
      });
      t.logger.info('report requested', { jobId: event.job.jobId, requestId: cursor.requestId });
      return cursor;
    },
  );
}

export function createCheckStatusHandler(runtime: WorkflowRuntime) {
  return jobTask(runtime, 'CheckStatus', async (t, event: JobTaskInput, context) => {
    const api = await t.client();
    const signal = deadlineSignal(context, SHORT_DEADLINE_MARGIN_MS);
    return checkStatus(event, {
      reporting: api.reporting,
      poll: t.settings.poll,
      ...(signal === undefined ? {} : { signal }),
    });
  });
}

export function createExportResultsHandler(runtime: WorkflowRuntime) {
  return jobTask(runtime, 'ExportResults', async (t, event: JobTaskInput, context) => {
    const api = await t.client();
    const signal = deadlineSignal(context, DEADLINE_MARGIN_MS);
    const s = t.settings;
    const cursor = await exportResults(event, {
      reporting: api.reporting,
      store: t.objects.store,
      prefix: t.objects.prefix,
      tables: t.tables,
      leases: t.leases,
      ...(t.tenant === undefined ? {} : { tenant: t.tenant }),
      timeZone: s.timeZone,
      minSplitMinutes: s.minSplitMinutes,
      csvGzip: s.csvGzip,
      parquetCodec: s.parquetCodec,
      ...(s.spillBudgetBytes === undefined ? {} : { spillBudgetBytes: s.spillBudgetBytes }),
      promotedColumns: s.promotedColumns,
      summaryMismatch: s.summaryMismatch,
      minShareOfPublished: s.minShareOfPublished,
      logger: t.logger,
      owner: t.owner,
      ...(signal === undefined ? {} : { signal }),
      ...(context?.signal === undefined ? {} : { interrupted: context.signal }),
    });
    t.logger.info('exported', {
      jobId: event.job.jobId,
      rows: cursor.rows,
      partitions: cursor.partitions,
      done: cursor.done,
      ...(cursor.heldCount > 0 ? { held: cursor.held, heldCount: cursor.heldCount } : {}),
      ...(cursor.mismatchCount > 0 ? { summaryMismatches: cursor.mismatchCount } : {}),
      ...(cursor.partialDays.length > 0 ? { partialDays: cursor.partialDays } : {}),
      ...(cursor.snapshot ? { snapshot: cursor.snapshot } : {}),
    });
    return cursor;
  });
}

/**
 * SyncDirectories, the contacts branch: the execution's tenant's directories synced in its
 * runtime (its client from its own secret, its stores: its session in AWS), with its entry's
 * country and directories, staged for the Commit task (`defer`).
 */
export function createSyncDirectoriesHandler(runtime: WorkflowRuntime) {
  return (event: SyncDirectoriesInput, context?: TaskContext): Promise<DirectorySyncSummary> => {
    const tenant = event.tenant ?? undefined;
    return logged(runtime.logger, tenant, 'SyncDirectories', async () => {
      const t = await runtime.forTenant(tenant);
      const api = await t.client();
      const signal = deadlineSignal(context, SHORT_DEADLINE_MARGIN_MS);
      const summary = await syncTenantDirectories(event, {
        sync: CONTACTS_CORE.syncDirectories,
        client: api.directories,
        store: t.objects.store,
        prefix: t.objects.prefix,
        tables: t.tables,
        zone: t.settings.timeZone,
        country: t.entry?.country,
        directories: t.entry?.directories,
        omitFields: t.settings.contactOmitFields,
        minShareOfPublished: t.settings.minShareOfPublished,
        logger: t.logger,
        ...(signal === undefined ? {} : { signal }),
      });
      const { report: _, ...counts } = summary;
      t.logger.info('directories synced', { runId: event.runId, ...counts });
      return summary;
    });
  };
}

/** What a committer's task gets besides its event: its logger (the tenant's lines), its deadline. */
interface CommitterContext {
  logger: WorkflowLogger;
  signal?: AbortSignal;
}

/**
 * A task of the committer: the deployment's own stores (the function's role), never a
 * tenant's session, whatever tenant the execution is of; logged with the tenant, and its
 * outcome (`done`) with the tables it changed.
 */
function committerTask<
  E extends { tenant: string | null; runId: string },
  R extends { status: string; tables?: unknown },
>(
  runtime: WorkflowRuntime,
  task: string,
  marginMs: number,
  done: string,
  body: (event: E, context: CommitterContext) => Promise<R>,
) {
  return (event: E, context?: TaskContext): Promise<R> => {
    const tenant = event.tenant ?? undefined;
    return logged(runtime.logger, tenant, task, async () => {
      const signal = deadlineSignal(context, marginMs);
      const out = await body(event, {
        logger: tenant === undefined ? runtime.logger : withTenant(runtime.logger, tenant),
        ...(signal === undefined ? {} : { signal }),
      });
      runtime.logger.info(done, {
        ...(tenant === undefined ? {} : { tenant }),
        runId: event.runId,
        status: out.status,
        tables: out.tables,
      });
      return out;
    });
  };
}

/**
 * Commit: the execution's staged runs into one snapshot per table, as the committer (the
 * core checks every run is of the execution's tenant).
 */
export function createCommitHandler(runtime: WorkflowRuntime) {
  return committerTask(
    runtime,
    'Commit',
    COMMIT_DEADLINE_MARGIN_MS,
    'committed',
    (event: CommitTaskInput, c) =>
      commitRun(event, {
        commit: commitStagedRuns,
        commitDirectories: CONTACTS_CORE.commitStagedDirectorySyncs,
        store: runtime.objects.store,
        prefix: runtime.objects.prefix,
        tables: runtime.tables,
        leases: runtime.leases,
        owner: runtime.owner,
        ...c,
      }),
  );
}

/**
 * PrepareTables: before the jobs, the tables they may write made ready (created, evolved)
 * by the committer with the deployment's promoted columns, for the execution's tenant: a
 * tenant's session never writes a table's metadata.
 */
export function createPrepareTablesHandler(runtime: WorkflowRuntime) {
  return committerTask(
    runtime,
    'PrepareTables',
    SHORT_DEADLINE_MARGIN_MS,
    'tables prepared',
    (event: PrepareTablesInput, c) =>
      prepareTables(event, {
        ensure: ensureTable,
        store: runtime.objects.store,
        prefix: runtime.objects.prefix,
        tables: runtime.tables,
        promotedColumns: runtime.deployment.promotedColumns,
        prepareContacts: CONTACTS_CORE.prepareContactTables,
        contactOmitFields: runtime.deployment.contactOmitFields,
        ...c,
      }),
  );
}

/**
 * The Commit function's handler: its `prepare` action (the PrepareTables state) or the
 * Commit state's event. One function, so one role is the committer's.
 */
export function createCommitterHandler(runtime: WorkflowRuntime) {
  const prepare = createPrepareTablesHandler(runtime);
  const commit = createCommitHandler(runtime);
  return (
    event: PrepareTablesInput | CommitTaskInput,
    context?: TaskContext,
  ): Promise<PrepareTablesOutput | CommitOutput> =>
    isPrepare(event) ? prepare(event, context) : commit(event, context);
}

function isPrepare(event: PrepareTablesInput | CommitTaskInput): event is PrepareTablesInput {
  return 'action' in event && event.action === 'prepare';
}

/**
 * The tenant a Finalize or RecordFailure event is for: the plan's, else the one its raw
 * input names (Plan may have failed on an invalid input that still names a valid tenant).
 */
function tenantOfFinalize(event: FinalizeInput): string | undefined {
  const planned = event.plan?.tenant;
  return typeof planned === 'string' ? planned : tenantOfRawInput(event.input);
}

/**
 * The runtime a run record is written with: its tenant's, or the deployment's when the
 * execution has none the deployment knows (an input naming an unregistered tenant, or a
 * tenant in a single-tenant deployment): the failure is recorded without one.
 */
async function recordRuntime(
  runtime: WorkflowRuntime,
  tenant: string | undefined,
): Promise<TenantRuntime | WorkflowRuntime> {
  if (tenant === undefined) return runtime;
  try {
    return await runtime.forTenant(tenant);
  } catch (error) {
    if (error instanceof InvalidInputError || error instanceof TenantConfigError) return runtime;
    throw error;
  }
}

/** Finalize (and RecordFailure, the same function on a caught failure): the run record and metrics. */
export function createFinalizeHandler(runtime: WorkflowRuntime, metrics: () => MetricsSink) {
  return (event: FinalizeInput): Promise<FinalizeOutput> => {
    const named = tenantOfFinalize(event);
    return logged(runtime.logger, named, 'Finalize', async () => {
      const t = await recordRuntime(runtime, named);
      const out = await finalizeRun(event, {
        store: t.objects.store,
        prefix: t.objects.prefix,
        metrics: metrics(),
        tenant: t.tenant,
      });
      t.logger.info('run finalized', { ...out });
      return out;
    });
  };
}

/**
 * Digest: the night's digest of the deployment (digest.ts), once a night from its schedule
 * (`scheduledTime`: the night ends there; else now), published as one notice to `topic`
 * (default: the one NOTICE_TOPIC_URI names, the alarm topic).
 * Every tenant of the registry (a single-tenant deployment: its one), read with the
 * deployment's own role: it reads every tenant's run records and writes nothing.
 */
export function createDigestHandler(
  runtime: WorkflowRuntime,
  settings: DigestSettings,
  topic: NoticeTopic = noticeTopicFromUri('NOTICE_TOPIC_URI', settings.noticeTopicUri),
) {
  return (event: { scheduledTime?: string } | undefined): Promise<DigestOutput> =>
    logged(runtime.logger, undefined, 'Digest', async () => {
      const at = event?.scheduledTime === undefined ? new Date() : new Date(event.scheduledTime);
      if (Number.isNaN(at.getTime())) {
        throw new InvalidInputError(
          `scheduledTime ${JSON.stringify(event?.scheduledTime)} is not an instant`,
        );
      }
      const onUnreadable = (key: string, reason: string) =>
        runtime.logger.warn('skipped an unreadable run record', { key, reason });
      const tenants: DigestTenant[] =
        runtime.registry === undefined
          ? [
              {
                id: null,
                name: settings.deployment,
                enabled: true,
                schedule: {
                  timeZone: runtime.settings.timeZone,
                  hour: settings.nightlyHour,
                  reports: runtime.settings.reports,
                },
              },
            ]
          : (
              await runtime.registry.list({
                onInvalid: (id, error) =>
                  runtime.logger.warn('skipped an invalid tenant entry', {
                    tenant: id,
                    error: error.message,
                  }),
              })
            ).map(digestTenant);
      const out = await publishDigest(at, {
        lake: runtime.objects,
        tenants,
        topic,
        deployment: settings.deployment,
        multiTenant: runtime.multiTenant,
        onUnreadable,
      });
      runtime.logger.info('digest published', { ...out });
      return out;
    });
}
