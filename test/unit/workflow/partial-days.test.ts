import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import { exportResults } from '../../../lib/workflow/export-task';
import { firstCursor, type JobTaskInput } from '../../../lib/workflow/job-cursor';
import { partialDaysOf } from '../../../lib/workflow/partial-days';
import { buildRunRecord } from '../../../lib/workflow/run-record';
import { callsOn, resultStreamOf, sampleRow } from '../../support/result-stream';
import { localExportDeps } from './local-export-deps';

const ZONE = 'Europe/London';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'partial-days-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('partialDaysOf', () => {
  it.each([
    ['a window read after it ended', '2026-11-27T08:00:00Z', []],
    [
      'a window whose last day was still going on',
      '2026-11-26T14:00:00Z',
      [{ dt: '2026-11-26', cutOff: '2026-11-26T14:00:00.000Z' }],
    ],
    [
      'a window read before it began',
      '2026-11-24T23:00:00Z',
      [
        { dt: '2026-11-25', cutOff: '2026-11-24T23:00:00.000Z' },
        { dt: '2026-11-26', cutOff: '2026-11-24T23:00:00.000Z' },
      ],
    ],
    ['a window whose request time is unknown', '', []],
  ])('lists the days of %s', (_, requestedAt, expected) => {
    const window = windowForDates('2026-11-25', '2026-11-26', ZONE);
    expect(partialDaysOf(['2026-11-25', '2026-11-26'], [{ ...window, requestedAt }], ZONE)).toEqual(expected);
  });

  it("takes a day's cut-off from its earliest piece that reached past its request", () => {
    const pieces = [
      { from: '2026-11-26T00:00:00Z', to: '2026-11-26T12:00:00Z', requestedAt: '2026-11-26T13:00:00Z' },
      { from: '2026-11-26T12:00:00Z', to: '2026-11-26T18:00:00Z', requestedAt: '2026-11-26T13:05:00Z' },
      { from: '2026-11-26T18:00:00Z', to: '2026-11-27T00:00:00Z', requestedAt: '2026-11-26T13:10:00Z' },
    ];
    expect(partialDaysOf(['2026-11-26'], pieces, ZONE)).toEqual([
      { dt: '2026-11-26', cutOff: '2026-11-26T13:05:00.000Z' },
    ]);
  });
});

describe('ExportResults of a window that includes the day it was requested', () => {
  it('records the day as partial, with its cut-off, in the job and in the run record', async () => {
    // Prepare: two days of calls, requested at 14:00 on the second.
    const dates = ['2026-11-25', '2026-11-26'];
    const window = windowForDates(dates[0] as string, dates[1] as string, ZONE);
    const job = {
      jobId: 'job-1',
      reportId: 'rep-1',
      reportName: 'Calls',
      window: { ...window, firstDate: '2026-11-25', lastDate: '2026-11-26' },
    };
    const requestedAt = '2026-11-26T14:00:00.000Z';
    const cursor = { ...firstCursor(job, new Date(requestedAt)), requestId: 'req-1', requestedAt };
    const input: JobTaskInput = { runId: 'run-1', job, cursor };
    const rows = callsOn(dates, 3, 'c');

    // Act
    const reporting = {
      openResult: async () => resultStreamOf(rows, { displayFields: Object.keys(sampleRow()) }),
    };
    const next = await exportResults(input, localExportDeps(dir, reporting));
    const record = buildRunRecord(
      {
        input: {},
        executionName: 'run-1',
        startedAt: requestedAt,
        results: [
          { jobId: 'job-1', reportId: 'rep-1', reportName: 'Calls', status: 'SUCCEEDED', progress: next },
        ],
      },
      new Date('2026-11-26T14:05:00Z'),
    );

    // Assess
    const partial = [{ dt: '2026-11-26', cutOff: requestedAt }];
    expect(next.partitions).toBe(2);
    expect(next.partialDays).toEqual(partial);
    expect(record.jobs[0]?.partialDays).toEqual(partial);
    expect(record.partialDays).toEqual(partial);
  });
});
