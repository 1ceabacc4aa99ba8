import type {
  commitStagedRuns,
  Dataset,
  ExportLogger,
  LakeTables,
  StagedCommitResult,
  StagedRunRef,
} from '../export';
import type { Lease, LeaseStore, ObjectStore } from '../stores';
import { describeLeaseHolder } from '../stores';
import type { DirectorySyncSummary } from './directory-sync-task';
import { directorySyncReportKey, executionTenant, readDirectorySyncReport } from './directory-sync-task';
import type { CommitStagedDirectorySyncs, StagedDirectorySyncRef } from './directory-sync-types';
import { LeaseBusyError } from './errors';
import { PUBLISH_LEASE_TTL_MS, publishLease } from './export-task';
import {
  type CommitOutput,
  type ContactsCommit,
  type JobCommit,
  MAX_INVALID_SYNCS_LISTED,
  type StagedRun,
} from './job-cursor';
import { tenantLeaseKey } from './service-secret';
import { MAX_COMMIT_REASON_CHARS } from './settings';

export type { CommitOutput, ContactsCommit, JobCommit } from './job-cursor';

/** What a Map iteration returns, as far as the Commit task reads it. */
interface CommitJobResult {
  jobId: string;
  reportId: string;
  progress?: { staged?: StagedRun[]; dataset?: Dataset } | null;
}

/** The Commit task's event: the execution's run, its tenant, and every job's result. */
export interface CommitTaskInput {
  runId: string;
  /** The plan's tenant; null in a single-tenant deployment. */
  tenant: string | null;
  executionName: string;
  results?: CommitJobResult[];
  /** The contacts branch's summary (null or absent: the execution synced none). */
  contacts?: DirectorySyncSummary | null;
}

export interface CommitTaskDeps {
  /** The core's commitStagedRuns (a port: tests give their own). */
  commit: typeof commitStagedRuns;
  /** The core's commitStagedDirectorySyncs; absent: staged directory syncs are not landed. */
  commitDirectories?: CommitStagedDirectorySyncs;
  /** The committer's own stores: the function's role, never a tenant's session. */
  store: ObjectStore;
  prefix: string;
  tables: LakeTables | undefined;
  leases: LeaseStore;
  owner: string;
  /** Lease lifetime. Default PUBLISH_LEASE_TTL_MS (the same leases ExportResults takes). */
  leaseTtlMs?: number;
  logger?: ExportLogger;
  /** Fires shortly before the task's deadline. */
  signal?: AbortSignal;
}

/**
 * Commit: every run the execution's jobs staged lands in one snapshot per table, its CSV
 * promoted with it (the core validates each run against its files first and sets an invalid
 * one aside). The partitions' leases are taken once the valid runs are known, in ascending
 * key order as ExportResults takes them; a busy one is a LeaseBusyError (the state machine
 * waits and retries). Nothing staged: no call, no snapshot.
 */
export async function commitRun(input: CommitTaskInput, deps: CommitTaskDeps): Promise<CommitOutput> {
  const calls = await commitCalls(input, deps);
  const contacts = await commitContacts(input, deps);
  return contacts === undefined ? calls : { ...calls, contacts };
}

/** The jobs' staged runs (commitRun's first part). */
async function commitCalls(input: CommitTaskInput, deps: CommitTaskDeps): Promise<CommitOutput> {
  const tenant = executionTenant(input.tenant);
  const byJob = new Map<string, { result: CommitJobResult; refs: StagedRunRef[] }>();
  for (const result of input.results ?? []) {
    const staged = result.progress?.staged ?? [];
    if (staged.length === 0) continue;
    byJob.set(result.jobId, {
      result,
      refs: staged.map((s) => ({
        key: s.key,
        reportId: result.reportId,
        runId: s.runId,
        ...(tenant === undefined ? {} : { tenant }),
        dts: s.dts,
      })),
    });
  }
  const refs = [...byJob.values()].flatMap((j) => j.refs);
  if (refs.length === 0 || deps.tables === undefined) return { status: 'NOTHING', tables: [], jobs: [] };
  const outcome = await deps.commit(
    {
      store: deps.store,
      prefix: deps.prefix,
      tables: deps.tables,
      ...(tenant === undefined ? {} : { tenant }),
    },
    refs,
    {
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      summary: { 'report-export.execution': input.executionName, 'report-export.run-id': input.runId },
      lock: (partitions) => lockPartitions(partitions, tenant, deps),
    },
  );
  const tables = outcome.tables.map((t) => ({ table: t.table, snapshotId: t.snapshotId }));
  const jobs = [...byJob.values()].map(({ result, refs: own }) => jobCommit(result, own, outcome));
  for (const job of jobs) {
    if (job.status === 'invalid') {
      deps.logger?.warn('a staged run was refused and not committed', {
        jobId: job.jobId,
        invalidRuns: job.invalidRuns,
        reason: job.reason,
      });
    }
  }
  return { status: tables.length === 0 ? 'NOTHING' : 'COMMITTED', tables, jobs };
}

/**
 * The execution's staged directory syncs, after the calls' runs: read from the sync's report
 * (its key derived here from the tenant and the run, never taken from the state), landed in
 * one snapshot per contact table. Never throws: a failure is the contacts' outcome, and the
 * calls' commit stands. Undefined: nothing was staged.
 */
async function commitContacts(
  input: CommitTaskInput,
  deps: CommitTaskDeps,
): Promise<ContactsCommit | undefined> {
  const summary = input.contacts;
  if (summary === undefined || summary === null || summary.staged === 0) return undefined;
  const failed = (error: unknown): ContactsCommit => ({
    status: 'FAILED',
    tables: [],
    committed: 0,
    invalid: [],
    invalidCount: 0,
    error: {
      name: error instanceof Error ? error.name : 'Error',
      message: bounded(error instanceof Error ? error.message : String(error)),
    },
  });
  try {
    const tenant = executionTenant(input.tenant);
    if (deps.tables === undefined || deps.commitDirectories === undefined) {
      return failed(
        new Error('this deployment has no contact tables to commit the staged directory syncs to'),
      );
    }
    const key = directorySyncReportKey(deps.prefix, tenant, input.runId);
    const report = await readDirectorySyncReport(deps.store, key);
    if (report === undefined) return failed(new Error(`the directory sync report ${key} is missing`));
    const refs: StagedDirectorySyncRef[] = report.outcomes
      .filter((o) => o.status === 'staged' && o.staged !== undefined)
      .map((o) => ({
        key: o.staged as string,
        directoryId: o.directoryId,
        runId: input.runId,
        ...(tenant === undefined ? {} : { tenant }),
      }));
    if (refs.length === 0) return undefined;
    const outcome = await deps.commitDirectories(
      {
        store: deps.store,
        prefix: deps.prefix,
        tables: deps.tables,
        ...(tenant === undefined ? {} : { tenant }),
        lock: (partitions) =>
          lockKeys(
            partitions.map((p) => contactsLease(p, tenant)),
            deps,
          ),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      },
      refs,
      { summary: { 'report-export.execution': input.executionName, 'report-export.run-id': input.runId } },
    );
    const invalid = outcome.syncs
      .filter((s) => s.status === 'invalid')
      .map((s) => ({ directoryId: s.directoryId, reason: bounded(s.reason ?? 'refused by the committer') }));
    for (const i of invalid) deps.logger?.warn('a staged directory sync was refused and not committed', i);
    const tables = outcome.tables.map((t) => ({ table: t.table, snapshotId: Number(t.snapshotId) }));
    return {
      status: tables.length === 0 ? 'NOTHING' : 'COMMITTED',
      tables,
      committed: outcome.syncs.filter((s) => s.status === 'committed').length,
      invalid: invalid.slice(0, MAX_INVALID_SYNCS_LISTED),
      invalidCount: invalid.length,
    };
  } catch (error) {
    deps.logger?.warn('the staged directory syncs were not committed', {
      error: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
    });
    return failed(error);
  }
}

/**
 * The lease of a tenant's contacts partition (one directory's, `directoryLeaseName`): one
 * committer at a time, under `tenant=<t>/` as its other leases (`tenant=<t>/contacts/<dir>`).
 */
export function contactsLease(partition: string, tenant?: string): string {
  return tenantLeaseKey(partition, tenant);
}

export { executionTenant };

/** One job's outcome from the core's answer for its runs. */
function jobCommit(
  result: CommitJobResult,
  refs: readonly StagedRunRef[],
  outcome: StagedCommitResult,
): JobCommit {
  const byKey = new Map(outcome.runs.map((r) => [r.key, r]));
  let committed = 0;
  let reason: string | undefined;
  let superseded = 0;
  for (const ref of refs) {
    const run = byKey.get(ref.key);
    superseded += run?.superseded?.length ?? 0;
    if (run?.status === 'committed') committed++;
    else reason ??= run?.reason ?? `the committer gave no outcome for the staged run ${ref.key}`;
  }
  const dataset = result.progress?.dataset;
  const own = outcome.tables.filter((t) => dataset === undefined || t.dataset === dataset);
  const landed = committed === 0 ? [] : own.length > 0 ? own : outcome.tables;
  return {
    jobId: result.jobId,
    status: reason === undefined ? 'committed' : 'invalid',
    runs: committed,
    invalidRuns: refs.length - committed,
    snapshots: landed.map((t) => ({ table: t.table, snapshotId: t.snapshotId })),
    ...(reason === undefined ? {} : { reason: bounded(reason) }),
    ...(superseded === 0 ? {} : { superseded }),
  };
}

function bounded(text: string): string {
  return text.length <= MAX_COMMIT_REASON_CHARS ? text : `${text.slice(0, MAX_COMMIT_REASON_CHARS - 1)}…`;
}

/**
 * The leases of every partition the valid runs replace, taken in ascending key order (as
 * ExportResults takes them, so two holders never wait on each other in a cycle); released
 * by the function it resolves with. A busy one releases those taken and fails LeaseBusyError.
 */
async function lockPartitions(
  partitions: ReadonlyArray<{ reportId: string; dt: string }>,
  tenant: string | undefined,
  deps: CommitTaskDeps,
): Promise<() => Promise<void>> {
  return lockKeys(
    partitions.map((p) => publishLease(p.reportId, p.dt, tenant)),
    deps,
  );
}

/** Leases taken in ascending key order, released by the function it resolves with; a busy one fails LeaseBusyError. */
async function lockKeys(wanted: readonly string[], deps: CommitTaskDeps): Promise<() => Promise<void>> {
  const keys = [...new Set(wanted)].sort();
  const held: Lease[] = [];
  const release = async () => {
    await Promise.all(held.map((l) => l.release().catch(() => {})));
  };
  try {
    for (const key of keys) {
      const lease = await deps.leases.acquire(key, {
        ttlMs: deps.leaseTtlMs ?? PUBLISH_LEASE_TTL_MS,
        owner: deps.owner,
      });
      if (lease === undefined) {
        const holder = await describeLeaseHolder(deps.leases, key);
        throw new LeaseBusyError(
          `Another execution is publishing ${key}${holder === undefined ? '' : ` (${holder})`}; the commit is retried later`,
        );
      }
      held.push(lease);
    }
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
