import { describe, expect, it } from 'vitest';
import { landedDays, reportPartitions } from '../../../lib/workflow/report-partitions';
import type { RunRecord, RunRecordJob } from '../../../lib/workflow/run-record';

const REPORTS = [{ id: 'r-1', name: 'Lost calls' }];

/** A job of report r-1 as a run record lists it (the members the partitions read). */
function job(members: Partial<RunRecordJob>): RunRecordJob {
  return {
    jobId: 'job-0001',
    reportId: 'r-1',
    reportName: 'Lost calls',
    status: 'SUCCEEDED',
    held: [],
    heldCount: 0,
    partialDays: [],
    commit: null,
    firstDate: null,
    lastDate: null,
    partitions: 0,
    error: null,
    ...members,
  } as RunRecordJob;
}

function record(runId: string, startedAt: string, jobs: RunRecordJob[]): RunRecord {
  return { runId, startedAt, jobs } as RunRecord;
}

describe('landedDays', () => {
  it.each([
    [
      'every day of its range when the count matches',
      { partitions: 3 },
      ['2026-12-01', '2026-12-02', '2026-12-03'],
    ],
    [
      'its range without the days the shrink guard held',
      { partitions: 2, held: [{ dt: '2026-12-02', basis: 'rows', publishedRows: 9, rows: 1 }], heldCount: 1 },
      ['2026-12-01', '2026-12-03'],
    ],
    [
      "only its range's ends when more days were held than listed",
      { partitions: 2, held: [], heldCount: 1 },
      ['2026-12-01', '2026-12-03'],
    ],
    [
      'nothing when its commit failed',
      {
        partitions: 3,
        commit: { status: 'failed', runs: 0, invalidRuns: 0, snapshots: [], reason: 'x', superseded: 0 },
      },
      [],
    ],
    [
      'nothing when the committer refused one of its runs',
      {
        partitions: 3,
        commit: { status: 'invalid', runs: 2, invalidRuns: 1, snapshots: [], reason: 'x', superseded: 0 },
      },
      [],
    ],
  ] as const)('takes %s', (_, members, days) => {
    // Act
    const landed = landedDays(job({ firstDate: '2026-12-01', lastDate: '2026-12-03', ...members } as never));

    // Assess
    expect(landed).toEqual(days);
  });

  it.each([
    ['that published no day', {}],
    [
      'whose dates are not calendar dates',
      { firstDate: '2026-12-01', lastDate: '2026-13-01', partitions: 1 },
    ],
    ['whose range runs backwards', { firstDate: '2026-12-03', lastDate: '2026-12-01', partitions: 1 }],
  ])('takes nothing from a job %s', (_, members) => {
    // Act & Assess
    expect(landedDays(job(members))).toEqual([]);
  });
});

describe('reportPartitions', () => {
  it('keeps each day as last published: settled over provisional, the later as-of over the earlier', () => {
    // Prepare: two refreshes of 12-04 (09:00, 10:00), then the night settles 12-03 again
    const records = [
      record('night', '2026-12-04T02:00:00.000Z', [
        job({ firstDate: '2026-12-03', lastDate: '2026-12-03', partitions: 1 }),
      ]),
      record('refresh-2', '2026-12-04T10:00:00.000Z', [
        job({
          firstDate: '2026-12-04',
          lastDate: '2026-12-04',
          partitions: 1,
          partialDays: [{ dt: '2026-12-04', cutOff: '2026-12-04T10:00:00.000Z' }],
        }),
      ]),
      record('refresh-1', '2026-12-04T09:00:00.000Z', [
        job({
          firstDate: '2026-12-03',
          lastDate: '2026-12-04',
          partitions: 2,
          partialDays: [
            { dt: '2026-12-03', cutOff: '2026-12-03T23:00:00.000Z' },
            { dt: '2026-12-04', cutOff: '2026-12-04T09:00:00.000Z' },
          ],
        }),
      ]),
    ];

    // Act
    const [lost] = reportPartitions(records, REPORTS);

    // Assess
    expect(lost?.days).toEqual(
      expect.arrayContaining([{ dt: '2026-12-03' }, { dt: '2026-12-04', asOf: '2026-12-04T10:00:00.000Z' }]),
    );
    expect(lost?.days).toHaveLength(2);
    expect(lost?.lastRun).toEqual({
      runId: 'refresh-2',
      startedAt: '2026-12-04T10:00:00.000Z',
      status: 'SUCCEEDED',
      error: null,
    });
  });

  it('keeps a held day held until a later run publishes it', () => {
    // Prepare: 12-01 and 12-02 held by the first run; the second publishes 12-02 only
    const held = (dt: string) => ({ dt, basis: 'rows' as const, publishedRows: 40, rows: 4 });
    const records = [
      record('second', '2026-12-03T02:00:00.000Z', [
        job({ firstDate: '2026-12-02', lastDate: '2026-12-02', partitions: 1 }),
      ]),
      record('first', '2026-12-02T02:00:00.000Z', [
        job({
          firstDate: '2026-12-01',
          lastDate: '2026-12-02',
          partitions: 0,
          held: [held('2026-12-01'), held('2026-12-02')],
          heldCount: 2,
        }),
      ]),
    ];

    // Act
    const [lost] = reportPartitions(records, REPORTS);

    // Assess
    expect(lost?.held).toEqual([{ ...held('2026-12-01'), runId: 'first' }]);
  });

  it('gives a report no record ran no days and no last run', () => {
    // Act
    const partitions = reportPartitions(
      [
        record('other', '2026-12-04T02:00:00.000Z', [
          job({ reportId: 'r-9', firstDate: '2026-12-03', lastDate: '2026-12-03', partitions: 1 }),
        ]),
      ],
      REPORTS,
    );

    // Assess
    expect(partitions).toEqual([
      { reportId: 'r-1', reportName: 'Lost calls', days: [], held: [], lastRun: null },
    ]);
  });
});
