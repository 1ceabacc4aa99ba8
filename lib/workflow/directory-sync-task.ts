import type { ExportLogger, LakeTables } from '../export';
import { stagingArea, TENANT_ID_PATTERN, TENANT_ID_RULE } from '../export';
import type { ObjectStore } from '../stores';
import { readObjectIfPresent } from '../stores';
import type {
  DirectoriesSyncResult,
  DirectorySyncOutcome,
  DirectorySyncSettings,
  SyncDirectories,
  SyncError,
} from './directory-sync-types';
import { SOURCE_ERROR_CODES, TASK_ERROR_OUTCOMES, type TaskErrorCode } from './error-table';
import { DirectorySyncReadError, InvalidInputError, StoreFailedError } from './errors';

export type { DirectorySyncOutcome, SyncError } from './directory-sync-types';

/**
 * SyncDirectories, the contacts branch beside the calls' Map: the tenant's directories read
 * whole and versioned by the export core (`syncDirectories`) in the tenant's session, their
 * data files and one staged sync per changed directory written for the committer (`defer`).
 * The state gets a summary of counts (its size does not grow with the directories); every
 * directory's outcome goes to a report object in the tenant's staging area, which Commit
 * (the staged keys) and Finalize (the run record) read back.
 */

/** How the task retries a directory read that failed after the client's own retries. */
export const DIRECTORY_SYNC_RETRY = { maxAttempts: 2, intervalSeconds: 20, backoffRate: 3 } as const;

/** The SyncDirectories task's event. */
export interface SyncDirectoriesInput {
  runId: string;
  /** The plan's tenant; null in a single-tenant deployment. */
  tenant: string | null;
  /** Release the shrink guard (the input's forceReplace). */
  force: boolean;
  /** `$$.State.RetryCount`: a read failure is thrown (retried) only while retries are left. */
  attempt?: number;
}

/** What the branch returns to the state: counts, the first error, where the outcomes are. */
export interface DirectorySyncSummary {
  /** SYNCED: the directories were listed (each outcome says what became of it); SKIPPED: no tables; FAILED: see `error`. */
  status: 'SYNCED' | 'SKIPPED' | 'FAILED';
  /** The report object's key; null when none was written. */
  report: string | null;
  directories: number;
  unchanged: number;
  staged: number;
  committed: number;
  held: number;
  failed: number;
  newVersions: number;
  closedVersions: number;
  deletions: number;
  /** The listing's failure, else the first failed directory's. */
  error?: SyncError;
  /** A Catch's Lambda error (the Pass state of a caught failure puts it here, as JSON text). */
  cause?: string;
}

/** The report object: every directory's outcome of one execution's sync. */
export interface DirectorySyncReport {
  version: 1;
  runId: string;
  tenant: string | null;
  outcomes: DirectorySyncOutcome[];
  error?: SyncError;
}

/** Where an execution's sync report is: `<prefix>/_staging/[tenant=<t>/]_directory-sync-reports/<runId>.json`. */
export function directorySyncReportKey(prefix: string, tenant: string | undefined, runId: string): string {
  return `${stagingArea(prefix, tenant)}/_directory-sync-reports/${runId}.json`;
}

export interface SyncDirectoriesDeps {
  /** The core's syncDirectories (a port: tests give their own). */
  sync: SyncDirectories;
  client: Parameters<SyncDirectories>[0]['client'];
  /** The tenant's stores (its session in AWS). */
  store: ObjectStore;
  prefix: string;
  /** Undefined: the Hive layout, which has no contact tables (nothing synced). */
  tables: LakeTables | undefined;
  /** The tenant's zone, country and directories (its registry entry; the deployment's zone). */
  zone: string;
  country?: string | undefined;
  directories?: readonly string[] | undefined;
  /** The deployment's CONTACT_OMIT_FIELDS. */
  omitFields: readonly string[];
  minShareOfPublished?: number;
  logger?: ExportLogger;
  signal?: AbortSignal;
  now?: () => Date;
}

/** Most characters of an error message the summary and the report carry. */
export const MAX_SYNC_MESSAGE_CHARS = 300;

function boundedError(error: SyncError): SyncError {
  const message =
    error.message.length > MAX_SYNC_MESSAGE_CHARS
      ? `${error.message.slice(0, MAX_SYNC_MESSAGE_CHARS - 1)}…`
      : error.message;
  return {
    name: error.name.slice(0, 100),
    ...(error.code === undefined ? {} : { code: error.code }),
    message,
  };
}

/**
 * Whether a failure may pass on a retry of the task: a read failure (DirectoryReadError, or
 * a listing that failed) whose cause is not one the error table calls terminal (a 403 stays
 * a 403). An incomplete listing, a held directory, a refused table are not retried.
 */
export function retryableSyncError(error: SyncError): boolean {
  if (error.name === 'DirectoryListingIncompleteError' || error.name === 'DirectoryNotListedError')
    return false;
  const target = (SOURCE_ERROR_CODES as Record<string, TaskErrorCode | 'cause'>)[error.code ?? ''];
  if (target !== undefined && target !== 'cause' && TASK_ERROR_OUTCOMES[target] === 'terminal') return false;
  return (
    error.name === 'DirectoryReadError' || error.name === 'ServiceUnavailableError' || target !== undefined
  );
}

/**
 * Runs the sync for the execution's tenant and writes its report. A read failure with retries
 * left is thrown as DirectoryReadError (the task's Retry runs it again: what was staged is
 * left for the orphan-file deletion, nothing was committed); on the last attempt it is an
 * outcome, named in the report, and the other directories' syncs go on to the committer.
 */
export async function syncTenantDirectories(
  input: SyncDirectoriesInput,
  deps: SyncDirectoriesDeps,
): Promise<DirectorySyncSummary> {
  const tenant = executionTenant(input.tenant);
  if (deps.tables === undefined) return { ...emptySummary('SKIPPED'), report: null };
  const settings: DirectorySyncSettings = {
    ...(tenant === undefined ? {} : { tenant }),
    ...(deps.country === undefined ? {} : { country: deps.country }),
    zone: deps.zone,
    ...(deps.directories === undefined ? {} : { directories: deps.directories }),
    omitFields: deps.omitFields,
    force: input.force,
    ...(deps.minShareOfPublished === undefined ? {} : { minShareOfPublished: deps.minShareOfPublished }),
    runId: input.runId,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  };
  const result: DirectoriesSyncResult = await deps.sync(
    {
      client: deps.client,
      store: deps.store,
      prefix: deps.prefix,
      tables: deps.tables,
      mode: 'defer',
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
    },
    settings,
  );
  const unread = [
    ...(result.error === undefined
      ? []
      : [{ what: 'the directories could not be listed', error: result.error }]),
    ...result.outcomes
      .filter((o) => o.status === 'failed' && o.error !== undefined)
      .map((o) => ({ what: `directory ${o.directoryId}`, error: o.error as SyncError })),
  ].filter((u) => retryableSyncError(u.error));
  if (unread.length > 0 && (input.attempt ?? 0) < DIRECTORY_SYNC_RETRY.maxAttempts) {
    const first = unread[0] as { what: string; error: SyncError };
    throw new DirectorySyncReadError(
      `${unread.length} directory read(s) failed, ${first.what} first: ${first.error.name}: ${boundedError(first.error).message}; the sync is tried again`,
    );
  }
  const report: DirectorySyncReport = {
    version: 1,
    runId: input.runId,
    tenant: tenant ?? null,
    outcomes: result.outcomes.map((o) => ({
      ...o,
      directoryName: o.directoryName.slice(0, 200),
      ...(o.error === undefined ? {} : { error: boundedError(o.error) }),
    })),
    ...(result.error === undefined ? {} : { error: boundedError(result.error) }),
  };
  const key = directorySyncReportKey(deps.prefix, tenant, input.runId);
  try {
    await deps.store.put(key, JSON.stringify(report), { contentType: 'application/json' });
  } catch (error) {
    throw new StoreFailedError(`Writing the directory sync report ${key}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return summarise(report, key);
}

function emptySummary(status: DirectorySyncSummary['status']): Omit<DirectorySyncSummary, 'report'> {
  return {
    status,
    directories: 0,
    unchanged: 0,
    staged: 0,
    committed: 0,
    held: 0,
    failed: 0,
    newVersions: 0,
    closedVersions: 0,
    deletions: 0,
  };
}

/** The state's summary of a report. */
export function summarise(report: DirectorySyncReport, key: string): DirectorySyncSummary {
  const count = (status: DirectorySyncOutcome['status']) =>
    report.outcomes.filter((o) => o.status === status).length;
  const sum = (pick: (o: DirectorySyncOutcome) => number) => report.outcomes.reduce((n, o) => n + pick(o), 0);
  const firstError = report.error ?? report.outcomes.find((o) => o.status === 'failed')?.error;
  return {
    status: report.error === undefined ? 'SYNCED' : 'FAILED',
    report: key,
    directories: report.outcomes.length,
    unchanged: count('unchanged'),
    staged: count('staged'),
    committed: count('committed'),
    held: count('held'),
    failed: count('failed'),
    newVersions: sum((o) => o.newVersions),
    closedVersions: sum((o) => o.closedVersions),
    deletions: sum((o) => o.deletions),
    ...(firstError === undefined ? {} : { error: firstError }),
  };
}

/** Reads a sync report back (Commit, Finalize); undefined when it is missing. */
export async function readDirectorySyncReport(
  store: ObjectStore,
  key: string,
): Promise<DirectorySyncReport | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readObjectIfPresent(store, key);
  } catch (error) {
    throw new StoreFailedError(`Reading the directory sync report ${key}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (bytes === undefined) return undefined;
  const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as DirectorySyncReport;
  if (parsed.version !== 1 || !Array.isArray(parsed.outcomes)) {
    throw new StoreFailedError(`The directory sync report ${key} is not one this version reads`);
  }
  return parsed;
}

/** The execution's tenant, checked as a tenant id (it names the staging area and the leases). */
export function executionTenant(tenant: string | null): string | undefined {
  if (tenant === null) return undefined;
  if (!TENANT_ID_PATTERN.test(tenant)) {
    throw new InvalidInputError(
      `tenant must be ${TENANT_ID_RULE} (got ${JSON.stringify(tenant.slice(0, 64))})`,
    );
  }
  return tenant;
}
