import { dayWindow } from '../calendar';
import type { HeldPartition } from '../export';
import type { ObjectStore } from '../stores';
import { toWorkflowError } from './classify';
import {
  type DirectorySyncReport,
  directorySyncReportKey,
  readDirectorySyncReport,
} from './directory-sync-task';
import {
  buildRunRecord,
  type FinalizeInput,
  type PartialDay,
  type RunRecordContacts,
  type RunRecordJob,
  runRecordKey,
} from './run-record';

/** Held partitions the output lists (the rest counted): it travels in state (256 KB). */
const MAX_HELD_IN_OUTPUT = 20;

/** A partition the shrink guard held, and whose report it is. */
export type HeldReportPartition = HeldPartition & { reportId: string; reportName: string };

/** Metrics port (Powertools Metrics in Lambda, a file locally). */
export interface MetricsSink {
  add(name: string, unit: 'Count' | 'Seconds' | 'Bytes', value: number): void;
  /**
   * A property of the metrics line, not a dimension (the tenant: a dimension per tenant
   * would make every metric one per tenant, each billed). Sinks without it drop it.
   */
  addProperty?(name: string, value: string): void;
  flush(): void | Promise<void>;
}

interface FinalizeDeps {
  store: ObjectStore;
  prefix: string;
  metrics: MetricsSink;
  /** The execution's tenant (its record goes under `runs/tenant=<t>/`); undefined: none. */
  tenant?: string | undefined;
  now?: () => Date;
}

/** What Finalize returns to the state machine: counts and, on failure, the error name. */
export interface FinalizeOutput {
  runId: string;
  /** The execution's tenant; null when it has none (single-tenant, or an input naming none). */
  tenant: string | null;
  status: 'SUCCEEDED' | 'FAILED';
  jobs: number;
  failedJobs: number;
  rows: number;
  partitions: number;
  files: number;
  bytes: number;
  runRecordKey: string;
  error: string | null;
  cause: string;
  hasContinuation: boolean;
  /** Partitions the shrink guard held (published ones kept), over every job. */
  heldPartitions: number;
  /** The first {@link MAX_HELD_IN_OUTPUT} of them, by day, for the CLI to print. */
  held: HeldReportPartition[];
  /** Days published before they ended (the run record's), each with its cut-off. */
  partialDays: PartialDay[];
  /** The contact directories: the record's status, directories synced, and those that failed or were held. */
  contacts: { status: RunRecordContacts['status']; directories: number; failed: number; held: number };
}

/** The held partitions the jobs list, each with its report, by day (a record older than `held` lists none). */
export function heldReportPartitions(
  jobs: readonly Pick<RunRecordJob, 'reportId' | 'reportName' | 'held'>[],
): HeldReportPartition[] {
  return jobs
    .flatMap((j) => (j.held ?? []).map((h) => ({ ...h, reportId: j.reportId, reportName: j.reportName })))
    .sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0));
}

/**
 * Finalize: writes the run record (one JSON line) and publishes the run's metrics, then
 * deletes the directory sync's report the record now holds. Never throws for a failed job:
 * it reports it, and the state machine fails the execution.
 */
export async function finalizeRun(input: FinalizeInput, deps: FinalizeDeps): Promise<FinalizeOutput> {
  const now = deps.now?.() ?? new Date();
  const report = await directoryReport(input, deps);
  const record = buildRunRecord(input, now, deps.tenant, report?.report);
  const key = runRecordKey(deps.prefix, record, input.failure === undefined ? 'run' : 'failure');
  try {
    await deps.store.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/x-ndjson' });
  } catch (error) {
    throw toWorkflowError(error, 'Writing the run record');
  }
  if (deps.tenant !== undefined) deps.metrics.addProperty?.('tenant', deps.tenant);
  deps.metrics.add('RowsExported', 'Count', record.rows);
  deps.metrics.add('PartitionsPublished', 'Count', record.partitions);
  deps.metrics.add('RunDuration', 'Seconds', record.durationMs / 1000);
  deps.metrics.add('PartitionsHeld', 'Count', record.heldPartitions);
  deps.metrics.add('SummaryMismatches', 'Count', record.summaryMismatches);
  deps.metrics.add('DuplicateConnIds', 'Count', record.quality.duplicateConnId);
  deps.metrics.add('FailedJobs', 'Count', record.failedJobs + (input.failure === undefined ? 0 : 1));
  if (record.contacts.status !== 'skipped') {
    const dirs = record.contacts.directories;
    const count = (status: string) => dirs.filter((d) => d.status === status).length;
    deps.metrics.add('DirectoriesSynced', 'Count', count('committed'));
    deps.metrics.add('DirectoriesUnchanged', 'Count', count('unchanged'));
    deps.metrics.add('DirectoriesHeld', 'Count', count('held'));
    // A listing that failed counts as one failed sync: none of the directories was read.
    deps.metrics.add(
      'DirectoriesFailed',
      'Count',
      count('failed') + (record.contacts.status === 'failed' && dirs.length === 0 ? 1 : 0),
    );
    deps.metrics.add(
      'ContactVersions',
      'Count',
      dirs.reduce((n, d) => n + d.newVersions, 0),
    );
    deps.metrics.add(
      'ContactDeletions',
      'Count',
      dirs.reduce((n, d) => n + d.deletions, 0),
    );
  }
  if (record.newestDate !== null) {
    // Age of the newest exported day: time since that local day ended in the report's zone.
    const zone = input.plan?.timeZone ?? 'UTC';
    const endOfDay = Date.parse(dayWindow(record.newestDate, zone).to);
    deps.metrics.add('NewestDayAge', 'Seconds', Math.max(0, (now.getTime() - endOfDay) / 1000));
  }
  await deps.metrics.flush();
  // Last, once the record and the metrics are out: a retry of Finalize after the deletion
  // would find no report and record the directories' outcomes as unknown.
  if (report !== undefined && report.report !== 'unreadable') await deleteReport(deps.store, report.key);
  return {
    runId: record.runId,
    tenant: deps.tenant ?? null,
    status: record.status,
    jobs: record.jobs.length,
    failedJobs: record.failedJobs,
    rows: record.rows,
    partitions: record.partitions,
    files: record.files,
    bytes: record.bytes,
    runRecordKey: key,
    error: record.error,
    // A Fail state's CausePath must resolve to a string.
    cause: record.cause ?? '',
    // A failed job does not stop a long backfill: the rest continues, then this one fails.
    hasContinuation: record.continued,
    heldPartitions: record.heldPartitions,
    held: heldReportPartitions(record.jobs).slice(0, MAX_HELD_IN_OUTPUT),
    partialDays: record.partialDays,
    contacts: {
      status: record.contacts.status,
      directories: record.contacts.directories.length,
      failed: record.contacts.directories.filter((d) => d.status === 'failed').length,
      held: record.contacts.directories.filter((d) => d.status === 'held').length,
    },
  };
}

/**
 * The directory sync's report and its key, read with the execution's stores (the tenant's
 * session: its own staging area) at the key derived from the run; 'unreadable' when the
 * branch wrote one that cannot be read now (the record then says the outcomes are unknown,
 * and the report is left for the staging area's lifecycle rule).
 */
async function directoryReport(
  input: FinalizeInput,
  deps: FinalizeDeps,
): Promise<{ key: string; report: DirectorySyncReport | 'unreadable' } | undefined> {
  const summary = input.contacts;
  if (summary === undefined || summary === null || summary.report === null) return undefined;
  const runId = input.plan?.runId ?? input.executionName;
  const key = directorySyncReportKey(deps.prefix, deps.tenant, runId);
  try {
    return { key, report: (await readDirectorySyncReport(deps.store, key)) ?? 'unreadable' };
  } catch {
    return { key, report: 'unreadable' };
  }
}

/**
 * Deletes the sync's report once the run record holds its outcomes (Commit read it before).
 * Best effort: the record is written, and a report left behind expires with the staging area.
 */
async function deleteReport(store: ObjectStore, key: string): Promise<void> {
  try {
    await store.deleteMany([key]);
  } catch {
    // left to the staging area's lifecycle rule
  }
}
