import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { localS3Env } from '../shared/local-s3-env';

/** Run records as Finalize writes them (the members `runs` shows). */
function record(runId: string, startedAt: string, status: 'SUCCEEDED' | 'FAILED', rows: number) {
  return {
    runId,
    parentRunId: null,
    executionName: runId,
    status,
    mode: 'range',
    input: {},
    dateFrom: '2026-03-01',
    dateTo: '2026-03-07',
    startedAt,
    finishedAt: startedAt,
    durationMs: 2100,
    jobs: [],
    jobCount: 3,
    failedJobs: status === 'FAILED' ? 1 : 0,
    rows,
    partitions: 21,
    files: 42,
    bytes: 1000,
    requests: 3,
    polls: 6,
    splits: 0,
    retries: 0,
    newestDate: '2026-03-07',
    continued: false,
    error: status === 'FAILED' ? 'ReportRunFailedError' : null,
    cause: null,
  };
}

/** Three runs over two UTC dates; the newest failed. */
const RECORDS = [
  ['2026-03-08', record('run-a', '2026-03-08T00:05:00.000Z', 'SUCCEEDED', 1200)],
  ['2026-03-09', record('run-b', '2026-03-09T00:05:00.000Z', 'SUCCEEDED', 1300)],
  ['2026-03-09', record('run-c', '2026-03-09T12:00:00.000Z', 'FAILED', 40)],
] as const;

describe('report-export runs', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'runs-cli-'));
    for (const [dt, r] of RECORDS) {
      const dir = path.join(work, 'lake', 'runs', `dt=${dt}`);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, `${r.runId}.json`), `${JSON.stringify(r)}\n`);
    }
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('lists the newest runs first as JSON when given --json and --limit', async () => {
    // Act
    const run = await runInProcess(['runs', '--dir', path.join(work, 'lake'), '--json', '--limit', '2']);

    // Assess
    expect(run.code).toBe(0);
    const runs = JSON.parse(run.stdout) as { runId: string; rows: number }[];
    expect(runs.map((r) => r.runId)).toEqual(['run-c', 'run-b']);
  });

  it('resolves a relative --dir against its working directory', async () => {
    // Act
    const run = await runInProcess(['runs', '--dir', 'lake', '--json', '--limit', '1'], { cwd: work });

    // Assess
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { runId: string }[]).map((r) => r.runId)).toEqual(['run-c']);
  });

  it('prints a table with status, dates, jobs and rows when run without --json', async () => {
    // Act
    const run = await runInProcess(['runs', '--dir', path.join(work, 'lake')]);

    // Assess
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^started\s+run\s+status\s+mode\s+dates\s+jobs\s+rows\s+partitions\s+held\s+snapshot\s+partial\s+took\s+error$/,
    );
    expect(lines[2]).toMatch(
      /^2026-03-09 12:00:00\s+run-c\s+FAILED\s+range\s+2026-03-01\.\.2026-03-07\s+2\/3\s+40\s+21\s+0\s+2\.1 s\s+ReportRunFailedError$/,
    );
    expect(lines[3]).toMatch(/run-b\s+SUCCEEDED .* 1,300 /);
    expect(lines).toHaveLength(5);
  });

  it('prints each held partition with its day, report and both counts, and the partial days, when a run held some', async () => {
    // Prepare: a run whose 'Summary by user' job held a day, and that published today partial.
    const lake = path.join(work, 'held');
    const dir = path.join(lake, 'runs', 'dt=2026-03-10');
    await mkdir(dir, { recursive: true });
    const held = {
      ...record('run-h', '2026-03-10T00:05:00.000Z', 'SUCCEEDED', 300),
      heldPartitions: 2,
      partialDays: [{ dt: '2026-03-10', cutOff: '2026-03-10T00:05:00.000Z' }],
      jobs: [
        {
          jobId: 'job-0001',
          reportId: 'rep-1',
          reportName: 'Call list by user',
          held: [{ dt: '2026-03-02', basis: 'rows', publishedRows: 400, rows: 100 }],
          heldCount: 1,
        },
        {
          jobId: 'job-0002',
          reportId: 'rep-2',
          reportName: 'Summary by user',
          held: [
            { dt: '2026-03-01', basis: 'calls', publishedRows: 12, rows: 12, publishedCalls: 361, calls: 88 },
          ],
          heldCount: 1,
        },
      ],
    };
    await writeFile(path.join(dir, 'run-h.json'), `${JSON.stringify(held)}\n`);

    // Act
    const table = await runInProcess(['runs', '--dir', lake]);
    const json = await runInProcess(['runs', '--dir', lake, '--json']);

    // Assess
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/run-h\s+SUCCEEDED\s+range\s+\S+\s+3\s+300\s+21\s+2\s+2026-03-10\s/);
    expect(table.stdout).toContain(
      'run-h  held 2026-03-01 "Summary by user": kept the published 361 calls (12 rows); this run had 88 calls (12 rows)\n' +
        'run-h  held 2026-03-02 "Call list by user": kept the published 400 rows; this run had 100\n',
    );
    const [first] = JSON.parse(json.stdout) as { held: { dt: string; reportName: string }[] }[];
    expect(first?.held.map((h) => `${h.dt} ${h.reportName}`)).toEqual([
      '2026-03-01 Summary by user',
      '2026-03-02 Call list by user',
    ]);
  });

  it("names each job's table snapshot in the table, under it and in the JSON, when the jobs committed to tables", async () => {
    // Prepare: one run of one job (its snapshot in the table's cell), one of two (listed
    // under the table), and the older records without the members.
    const lake = path.join(work, 'snapshots');
    const dir = path.join(lake, 'runs', 'dt=2026-03-11');
    await mkdir(dir, { recursive: true });
    const job = (jobId: string, reportName: string, table: string, snapshotId: number, commits: number) => ({
      jobId,
      reportId: `rep-${jobId}`,
      reportName,
      held: [],
      heldCount: 0,
      snapshot: { table, snapshotId },
      commits,
    });
    const one = {
      ...record('run-one', '2026-03-11T00:05:00.000Z', 'SUCCEEDED', 10),
      jobs: [job('job-0001', 'Calls by user', 'calls', 4519931023388711, 1)],
    };
    const two = {
      ...record('run-two', '2026-03-11T01:05:00.000Z', 'SUCCEEDED', 20),
      jobs: [
        job('job-0001', 'Calls by user', 'calls', 111, 2),
        job('job-0002', 'Summary by user', 'summaries', 222, 1),
        { jobId: 'job-0003', reportId: 'rep-3', reportName: 'Hive era', held: [], heldCount: 0 },
      ],
    };
    await writeFile(path.join(dir, 'run-one.json'), `${JSON.stringify(one)}\n`);
    await writeFile(path.join(dir, 'run-two.json'), `${JSON.stringify(two)}\n`);

    // Act
    const table = await runInProcess(['runs', '--dir', lake]);
    const json = await runInProcess(['runs', '--dir', lake, '--json']);

    // Assess
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/run-one\s+SUCCEEDED .* 0\s+calls 4519931023388711\s/);
    expect(table.stdout).toMatch(/run-two\s+SUCCEEDED .* 0\s+2 jobs \(below\)\s/);
    expect(table.stdout).toContain(
      'run-two  Calls by user: calls snapshot 111 (2 commits)\n' +
        'run-two  Summary by user: summaries snapshot 222 (1 commit)\n' +
        'run-one  Calls by user: calls snapshot 4519931023388711 (1 commit)\n',
    );
    const runs = JSON.parse(json.stdout) as { runId: string; snapshots: unknown[] }[];
    expect(runs.map((r) => [r.runId, r.snapshots])).toEqual([
      [
        'run-two',
        [
          {
            jobId: 'job-0001',
            reportId: 'rep-job-0001',
            reportName: 'Calls by user',
            table: 'calls',
            snapshotId: 111,
            commits: 2,
          },
          {
            jobId: 'job-0002',
            reportId: 'rep-job-0002',
            reportName: 'Summary by user',
            table: 'summaries',
            snapshotId: 222,
            commits: 1,
          },
        ],
      ],
      [
        'run-one',
        [
          {
            jobId: 'job-0001',
            reportId: 'rep-job-0001',
            reportName: 'Calls by user',
            table: 'calls',
            snapshotId: 4519931023388711,
            commits: 1,
          },
        ],
      ],
    ]);
  });

  it('reads the run records from S3 when --dir is an s3:// URI', async () => {
    // Prepare
    const s3 = await startLocalS3('runs-bucket');
    try {
      const store = s3.store();
      for (const [dt, r] of RECORDS)
        await store.put(`exports/runs/dt=${dt}/${r.runId}.json`, JSON.stringify(r));

      // Act: the built program, as the AWS SDK reads its endpoint and credentials from the
      // process's own environment.
      const run = await runCli(['runs', '--dir', 's3://runs-bucket/exports', '--json'], {
        env: localS3Env(s3.endpoint),
      });

      // Assess
      // (The AWS SDK may warn about the Node version on stderr; no failure line.)
      expect(run.stderr).not.toMatch(/report-export:/);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { runId: string }[]).map((r) => r.runId)).toEqual([
        'run-c',
        'run-b',
        'run-a',
      ]);
    } finally {
      await s3.close();
    }
  });

  it.each([
    [['runs', '--dir', '/nonexistent/lake'], /--dir \/nonexistent\/lake is not a directory/],
    [['runs', '--limit', '0'], /--limit must be an integer from 1 to 1000, got '0'/],
    [
      ['runs', '--dir', 's3://Bad_Bucket'],
      /--dir "s3:\/\/Bad_Bucket" is not an s3:\/\/bucket\[\/prefix\] URI/,
    ],
  ])('exits 2 naming the flag when argv is %j', async (argv, message) => {
    // Act
    const run = await runInProcess(argv, { cwd: work });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('skips an unreadable record with a warning naming its file when the others are fine', async () => {
    // Prepare
    const lake = path.join(work, 'damaged');
    const dir = path.join(lake, 'runs', 'dt=2026-03-09');
    await mkdir(dir, { recursive: true });
    const [, good] = RECORDS[1];
    await writeFile(path.join(dir, `${good.runId}.json`), `${JSON.stringify(good)}\n`);
    await writeFile(path.join(dir, 'broken.json'), '{not json\n');
    await writeFile(path.join(dir, 'partial.json'), '{"runId":"run-x"}\n');

    // Act
    const run = await runInProcess(['runs', '--dir', lake]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/run-b\s+SUCCEEDED/);
    expect(run.stderr).toContain(
      'skipped the unreadable run record runs/dt=2026-03-09/broken.json: not JSON',
    );
    expect(run.stderr).toContain('runs/dt=2026-03-09/partial.json: no runId or startedAt');
  });

  it('prints the header and says there are no runs when the directory has none', async () => {
    // Prepare
    const empty = path.join(work, 'empty');
    await mkdir(empty, { recursive: true });

    // Act
    const run = await runInProcess(['runs', '--dir', empty]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toHaveLength(3);
    expect(run.stderr).toBe('no run records yet\n');
  });
});
