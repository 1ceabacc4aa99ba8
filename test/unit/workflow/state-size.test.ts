import { describe, expect, it } from 'vitest';
import { STATE_DATA_LIMIT_BYTES } from '../../../lib/local/data-limits';
import { createPlanHandler } from '../../../lib/workflow/handlers';
import { MAX_EXECUTION_INPUT_BYTES } from '../../../lib/workflow/input';
import {
  MAX_HELD_LISTED,
  MAX_MISMATCHES_LISTED,
  MAX_PARTIAL_DAYS_LISTED,
  MAX_STAGED_KEY_CHARS,
} from '../../../lib/workflow/job-cursor';
import type { WorkflowRuntime } from '../../../lib/workflow/runtime-types';
import {
  jobsWithinBudget,
  MAX_COMMIT_REASON_CHARS,
  MAX_ERROR_CAUSE_CHARS,
  MAX_REPORT_FIELD_CHARS,
  settingsFromEnvironment,
} from '../../../lib/workflow/settings';

/** UTF-8 bytes of a value's JSON, as the local runner counts them. */
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const big = 9_007_199_254_740_991;
const instant = '2026-11-18T23:59:59.999+14:00';
const text = (n: number) => 'x'.repeat(n);

/** The longest tenant id (TENANT_ID_PATTERN: 32 characters). */
const tenant = `a${text(30)}z`;

/** A job of the plan, at its longest (a multi-tenant deployment's: it names its tenant). */
function plannedJob(i: number) {
  return {
    jobId: `job-${String(i + 1).padStart(4, '0')}`,
    reportId: text(MAX_REPORT_FIELD_CHARS),
    reportName: text(MAX_REPORT_FIELD_CHARS),
    window: { from: instant, to: instant, firstDate: '2026-11-01', lastDate: '2026-12-01' },
    tenant,
    forceReplace: true,
  };
}

/** The longest run id the export core makes (defaultRunId: 40 characters, a hash, a uuid's start). */
const runId = text(66);
/** The days a job's staged runs list at most: its window (SETTINGS_DEFAULTS' 7 days) and one per request. */
const stagedDays = (maxRequestsPerJob: number) => 7 + maxRequestsPerJob;

/**
 * A Map iteration's result at its largest: a failed job with every list full. A request's
 * result is either a ready piece or a staged run (exported with the day's last piece): every
 * one a staged run, the larger, with the days spread over them.
 */
function worstJobResult(i: number, maxRequestsPerJob: number) {
  const piece = { requestId: text(36), from: instant, to: instant, requestedAt: instant };
  const quality = { nullConnId: big, duplicateConnId: big, negativeTime: big, flagOutOfRange: big };
  const totals = { ans: big, ref: big, lost: big, ring: big, duration: big };
  return {
    ...plannedJob(i),
    status: 'FAILED',
    error: text(100),
    // The Catch's Cause: the Lambda error as JSON text (its message bounded by the handlers).
    cause: JSON.stringify({
      errorType: text(100),
      errorMessage: `"${text(MAX_ERROR_CAUSE_CHARS)}"`,
      trace: [],
    }),
    progress: {
      queue: Array.from({ length: maxRequestsPerJob + 1 }, () => ({
        from: instant,
        to: instant,
        day: '2026-11-18',
      })),
      ready: [] as (typeof piece)[],
      staged: Array.from({ length: maxRequestsPerJob }, (_, k) => ({
        key: text(MAX_STAGED_KEY_CHARS),
        runId,
        dts: Array.from(
          { length: Math.ceil(stagedDays(maxRequestsPerJob) / maxRequestsPerJob) + (k === 0 ? 1 : 0) },
          () => '2026-11-18',
        ),
      })),
      dataset: 'summaries',
      requestId: text(36),
      requestedAt: instant,
      status: text(20),
      waitSeconds: big,
      polls: big,
      requests: big,
      splits: big,
      retries: big,
      rows: big,
      partitions: big,
      files: big,
      bytes: big,
      held: Array.from({ length: MAX_HELD_LISTED }, () => ({
        dt: '2026-11-18',
        publishedRows: big,
        rows: big,
        basis: 'calls',
        publishedCalls: big,
        calls: big,
      })),
      heldCount: big,
      mismatches: Array.from({ length: MAX_MISMATCHES_LISTED }, () => ({
        requestId: text(36),
        differences: ['ans', 'ref', 'lost', 'ring', 'duration'],
        service: totals,
        rows: totals,
      })),
      mismatchCount: big,
      quality,
      partialDays: Array.from({ length: MAX_PARTIAL_DAYS_LISTED }, () => ({
        dt: '2026-11-18',
        cutOff: instant,
      })),
      snapshot: { table: 'summaries', snapshotId: big },
      commits: big,
      firstDate: '2026-11-01',
      lastDate: '2026-12-01',
      startedAt: instant,
      finishedAt: instant,
      done: false,
    },
  };
}

describe('the state at the settings extremes', () => {
  // Poll and request limits at their bounds and between (the schema's MAX_POLLS_PER_JOB 1..500,
  // MAX_REQUESTS_PER_JOB 1..200), each with as many jobs as the settings allow.
  it.each([
    [1, 1],
    [10, 4],
    [40, 16],
    [1, 200],
    [500, 1],
    [500, 200],
  ])(
    'keeps the state after Commit and the Finalize payload under 256 KiB at %i polls and %i requests a job',
    (maxPollsPerJob, maxRequestsPerJob) => {
      // Prepare: the largest input Plan accepts, its filters in the plan's options.
      const jobs = jobsWithinBudget({ poll: { maxPollsPerJob } as never, maxRequestsPerJob });
      const input = {
        tenant,
        date: '2026-11-18',
        additionalConditions: [{ fieldName: 'f', operator: 'in', values: [''] }],
      };
      input.additionalConditions[0] = {
        fieldName: 'f',
        operator: 'in',
        values: [text(MAX_EXECUTION_INPUT_BYTES - bytes(input))],
      };
      expect(bytes(input)).toBe(MAX_EXECUTION_INPUT_BYTES);
      const context = { executionName: text(80), startedAt: instant };
      const planned = Array.from({ length: jobs }, (_, i) => plannedJob(i));
      const plan = {
        runId: text(80),
        mode: 'preset',
        tenant,
        timeZone: 'America/Argentina/ComodRivadavia',
        dates: { from: '2026-01-01', to: '2026-12-31' },
        jobs: planned,
        options: {
          filters: { additionalConditions: input.additionalConditions },
          maxPollsPerJob,
          maxRequestsPerJob,
        },
        jobCount: jobs,
        continuation: {
          tenant,
          from: '2026-01-01',
          to: '2026-12-31',
          reports: planned.map((j) => j.reportId),
          forceReplace: true,
          parentRunId: text(80),
        },
        hasContinuation: true,
      };
      const results = planned.map((_, i) => worstJobResult(i, maxRequestsPerJob));
      // The Commit task's output: every job's runs partly refused, with the longest reason.
      const snapshots = [
        { table: 'calls', snapshotId: big },
        { table: 'summaries', snapshotId: big },
      ];
      const commit = {
        status: 'COMMITTED',
        tables: snapshots,
        jobs: planned.map((j) => ({
          jobId: j.jobId,
          status: 'invalid',
          runs: big,
          invalidRuns: big,
          snapshots,
          reason: text(MAX_COMMIT_REASON_CHARS),
          superseded: big,
        })),
      };
      // Act
      const commitOutput = bytes({ ...context, plan, results, commit });
      const finalizePayload = bytes({
        input,
        ...context,
        plan: { ...plan, jobs: undefined, options: undefined },
        results,
        commit,
      });
      // Assess
      expect(commitOutput).toBeLessThanOrEqual(STATE_DATA_LIMIT_BYTES);
      expect(finalizePayload).toBeLessThanOrEqual(STATE_DATA_LIMIT_BYTES);
    },
  );
});

describe('a handler failure', () => {
  it('carries a message of at most MAX_ERROR_CAUSE_CHARS and no stack frames into the state when the error is long', async () => {
    // Prepare: 100 reports of 300 characters, each named by the error with its value.
    const settings = settingsFromEnvironment({
      TIME_ZONE: 'UTC',
      WORKSPACE_ID: 'ws',
      REPORTS: JSON.stringify([{ id: 'r', name: 'R' }]),
    });
    const logged: unknown[] = [];
    const runtime = {
      settings,
      logger: { info() {}, warn() {}, error: (...a: unknown[]) => logged.push(a) },
    };
    const plan = createPlanHandler(runtime as unknown as WorkflowRuntime);
    const reports = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(300, 'x'));
    // Act
    const error = await plan({ input: { date: '2026-11-18', reports }, executionName: 'x' }).then(
      () => undefined,
      (e: Error) => e,
    );
    // Assess
    expect(error?.name).toBe('InvalidInputError');
    expect(error?.message.length).toBe(MAX_ERROR_CAUSE_CHARS);
    expect(error?.stack).toBe(`InvalidInputError: ${error?.message}`);
    expect(JSON.stringify(logged).length).toBeGreaterThan(20_000);
  });
});
