import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { datesOfWindow, windowForDates } from '../../../lib/calendar';
import { LocalDirectoryStore, listAll } from '../../../lib/stores';
import { DeadlineError, RowLimitError } from '../../../lib/workflow/errors';
import { type ExportTaskDeps, exportResults } from '../../../lib/workflow/export-task';
import type { JobTaskInput } from '../../../lib/workflow/job-cursor';
import { resultStreamOf, type TestStreamOptions } from '../../support/result-stream';
import { localExportDeps } from './local-export-deps';

/**
 * A summary report's rows are totals over its window (one row per user, hunt group ...): a
 * window of several days runs again day by day, and a day is never split into pieces (two
 * halves of a day would publish two rows per user, each with half of the day's totals).
 */

const ZONE = 'Europe/London';
const SUMMARY_FIELDS = ['userName', 'ans', 'lost'];
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ userName: `user-${i}`, ans: 1, lost: 0 }) as never);

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'summary-splits-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function input(from: string, to: string): JobTaskInput {
  const window = windowForDates(from, to, ZONE);
  return {
    runId: 'run-1',
    job: {
      jobId: 'job-1',
      reportId: 'rep-s',
      reportName: 'Summary by user',
      window: { ...window, firstDate: from, lastDate: to },
    },
    cursor: {},
  };
}

function deps(
  stream: TestStreamOptions & { rows?: number },
  extra: Partial<ExportTaskDeps> = {},
): ExportTaskDeps {
  const reporting = {
    openResult: async () =>
      resultStreamOf(rows(stream.rows ?? 3), {
        displayFields: SUMMARY_FIELDS,
        requestId: 'req-s',
        ...stream,
      }),
  };
  return localExportDeps(dir, reporting, extra);
}

describe('ExportResults with a summary report', () => {
  it('queues a window of three days again as three one-day windows, even when it reached the row limit', async () => {
    // Act
    const cursor = await exportResults(
      input('2026-06-01', '2026-06-03'),
      deps({ totalCount: 1_000_000, rowLimitExceeded: true }),
    );

    // Assess: one piece per local day, nothing published.
    expect(cursor.done).toBe(false);
    expect(
      cursor.queue.map((p) =>
        p.from === undefined ? '' : datesOfWindow({ from: p.from, to: p.to as string }, ZONE),
      ),
    ).toEqual([['2026-06-01'], ['2026-06-02'], ['2026-06-03']]);
    expect(cursor.queue.every((p) => p.day === undefined)).toBe(true);
    expect(await listAll(new LocalDirectoryStore(path.join(dir, 'lake')), '')).toEqual([]);
  });

  it('fails with RowLimitError naming the report and the day when one day reaches the row limit, and never splits the day', async () => {
    // Act
    const error = await exportResults(
      input('2026-06-02', '2026-06-02'),
      deps({ totalCount: 1_000_000, rowLimitExceeded: true }),
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(RowLimitError);
    expect((error as Error).message).toMatch(
      /^The summary report Summary by user for 2026-06-0[12]T.* has 1000000 rows, at the service's row limit \(1000000\): a summary totals its day and cannot be split below it/,
    );
  });

  it('passes a deadline on for the state machine to retry, rather than split the day', async () => {
    // Prepare: the export is stopped by the task's deadline signal before it starts.
    const deadline = new AbortController();
    deadline.abort(new DeadlineError('the task deadline is near'));

    // Act
    const error = await exportResults(
      input('2026-06-02', '2026-06-02'),
      deps({}, { signal: deadline.signal }),
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(DeadlineError);
  });

  it('publishes one day of a summary as one partition when it fits', async () => {
    // Act
    const cursor = await exportResults(input('2026-06-02', '2026-06-02'), deps({ rows: 4 }));

    // Assess
    expect([cursor.rows, cursor.partitions]).toEqual([4, 1]);
  });
});
