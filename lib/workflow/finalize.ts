import { dayWindow } from '../export/window';
import type { ObjectStore } from '../stores/object-store';
import { toWorkflowError } from './classify';
import { buildRunRecord, type FinalizeInput, runRecordKey } from './run-record';

/** Metrics port (Powertools Metrics in Lambda, a file locally). */
export interface MetricsSink {
  add(name: string, unit: 'Count' | 'Seconds' | 'Bytes', value: number): void;
  flush(): void | Promise<void>;
}

export interface FinalizeDeps {
  store: ObjectStore;
  prefix: string;
  metrics: MetricsSink;
  now?: () => Date;
}

/** What Finalize returns to the state machine: counts and, on failure, the error name. */
export interface FinalizeOutput {
  runId: string;
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
}

/**
 * Finalize: writes the run record (one JSON line) and publishes the run's metrics. Never
 * throws for a failed job: it reports it, and the state machine fails the execution.
 */
export async function finalizeRun(input: FinalizeInput, deps: FinalizeDeps): Promise<FinalizeOutput> {
  const now = deps.now?.() ?? new Date();
  const record = buildRunRecord(input, now);
  const key = runRecordKey(deps.prefix, record, input.failure === undefined ? 'run' : 'failure');
  try {
    await deps.store.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/x-ndjson' });
  } catch (error) {
    throw toWorkflowError(error, 'Writing the run record');
  }
  deps.metrics.add('RowsExported', 'Count', record.rows);
  deps.metrics.add('PartitionsPublished', 'Count', record.partitions);
  deps.metrics.add('RunDuration', 'Seconds', record.durationMs / 1000);
  deps.metrics.add('PartitionsHeld', 'Count', record.heldPartitions);
  deps.metrics.add('SummaryMismatches', 'Count', record.summaryMismatches);
  deps.metrics.add('DuplicateConnIds', 'Count', record.quality.duplicateConnId);
  deps.metrics.add('FailedJobs', 'Count', record.failedJobs + (input.failure === undefined ? 0 : 1));
  if (record.newestDate !== null) {
    // Age of the newest exported day: time since that local day ended in the report's zone.
    const zone = input.plan?.timeZone ?? 'UTC';
    const endOfDay = Date.parse(dayWindow(record.newestDate, zone).to);
    deps.metrics.add('NewestDayAge', 'Seconds', Math.max(0, (now.getTime() - endOfDay) / 1000));
  }
  await deps.metrics.flush();
  return {
    runId: record.runId,
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
  };
}
