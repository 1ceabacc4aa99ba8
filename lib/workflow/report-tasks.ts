import { classifyReportStatus, REPORT_STATE, type ReportingClient } from '../api';
import { toWorkflowError } from './classify';
import { RowLimitError } from './errors';
import { cursorOf, type JobCursor, type JobTaskInput } from './job-cursor';
import type { JobOptions } from './plan';
import type { PollSchedule } from './settings';

/** What the report tasks need: the reporting client and the poll schedule. */
interface ReportTaskDeps {
  reporting: Pick<ReportingClient, 'requestReport' | 'getStatus'>;
  poll: PollSchedule;
  now?: () => Date;
  signal?: AbortSignal;
}

/** RequestReport: asks the service to run the report over the job's current window. */
export async function requestReport(
  input: JobTaskInput & { options: JobOptions },
  deps: ReportTaskDeps,
): Promise<JobCursor> {
  const now = deps.now?.() ?? new Date();
  const cursor = cursorOf(input, now);
  const window = cursor.queue[0];
  if (window === undefined) return { ...cursor, done: true };
  if (cursor.requests >= input.options.maxRequestsPerJob) {
    throw new RowLimitError(
      `Job ${input.job.jobId} (${input.job.reportName}) needed more than ${input.options.maxRequestsPerJob} report requests (its window kept reaching the row limit); add a filter or raise MAX_REQUESTS_PER_JOB`,
    );
  }
  const period = { start: window.from, end: window.to };
  const filters = input.options.filters;
  try {
    const run = await deps.reporting.requestReport(
      {
        reportId: input.job.reportId,
        period,
        ...(filters.filterId === undefined ? {} : { filterId: filters.filterId }),
        ...(filters.additionalConditions === undefined
          ? {}
          : { additionalConditions: filters.additionalConditions }),
      },
      { signal: deps.signal },
    );
    return {
      ...cursor,
      requestId: run.requestId,
      requestedAt: now.toISOString(),
      status: 'Running',
      waitSeconds: deps.poll.initialSeconds,
      requests: cursor.requests + 1,
    };
  } catch (error) {
    throw toWorkflowError(error, `Requesting report ${input.job.reportName}`);
  }
}

/**
 * CheckStatus: one status poll. Returns the status for the Choice state (`Complete`,
 * `Running`, `Failed`) and the next wait, grown by the schedule's factor up to its cap.
 */
export async function checkStatus(input: JobTaskInput, deps: ReportTaskDeps): Promise<JobCursor> {
  const cursor = cursorOf(input, deps.now?.() ?? new Date());
  try {
    const status = await deps.reporting.getStatus(
      { reportId: input.job.reportId, requestId: cursor.requestId },
      { signal: deps.signal },
    );
    const state = classifyReportStatus(status.status);
    return {
      ...cursor,
      status:
        state === REPORT_STATE.complete ? 'Complete' : state === REPORT_STATE.failed ? 'Failed' : 'Running',
      polls: cursor.polls + 1,
      waitSeconds: Math.min(
        deps.poll.maxSeconds,
        Math.max(1, Math.ceil(cursor.waitSeconds * deps.poll.factor)),
      ),
    };
  } catch (error) {
    throw toWorkflowError(error, `Checking report ${input.job.reportName}`);
  }
}
