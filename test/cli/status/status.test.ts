import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateInZone, shiftDate } from '../../../lib/calendar';
import { statusCommand } from '../../../lib/cli/commands/status/command';
import { LocalDirectoryStore, type ObjectStore } from '../../../lib/stores';
import { TenantRegistry, tenantRegistryFromUri } from '../../../lib/workflow';
import { finalizeRun } from '../../../lib/workflow/finalize';
import type { JobCursor } from '../../../lib/workflow/job-cursor';
import type { TenantEntry } from '../../../lib/workflow/tenant-registry';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const LOST = { id: 'r-1', name: 'Lost calls' };
const AGENTS = { id: 'r-2', name: 'Call list by user' };

/** A registry entry (nightly at 02:00 unless `members` say otherwise). */
function entry(id: string, members: Partial<TenantEntry> = {}): TenantEntry {
  return {
    id,
    name: `Tenant ${id}`,
    region: 'uk',
    timeZone: 'UTC',
    workspaceId: 'ws-1',
    reports: [LOST],
    hour: 2,
    lookBackDays: 0,
    enabled: true,
    ...members,
  };
}

/** A job's outcome as the Map hands it to Finalize: its report and its cursor's counts. */
interface JobOutcome {
  report: { id: string; name: string };
  progress: Partial<JobCursor>;
}

/** The published days of a job: `from`..`to`, one partition each, none held or partial unless given. */
function published(from: string, to: string, more: Partial<JobCursor> = {}): Partial<JobCursor> {
  const days = (Date.parse(to) - Date.parse(from)) / DAY + 1;
  return { firstDate: from, lastDate: to, partitions: days, rows: 10 * days, ...more };
}

/** Writes a run record through Finalize, the record's one writer, as an execution's end does. */
async function finalizeInto(
  lake: { store: ObjectStore; prefix: string },
  tenant: string,
  runId: string,
  startedAt: number,
  jobs: JobOutcome[],
  timeZone = 'UTC',
): Promise<void> {
  await finalizeRun(
    {
      input: { tenant },
      executionName: `${tenant}-${runId}`,
      startedAt: new Date(startedAt).toISOString(),
      plan: {
        runId,
        mode: runId.startsWith('backfill') ? 'range' : 'nightly',
        tenant,
        timeZone,
        dates: { from: jobs[0]?.progress.firstDate ?? '', to: jobs[0]?.progress.lastDate ?? '' },
        jobCount: jobs.length,
        hasContinuation: false,
      },
      results: jobs.map((j, i) => ({
        jobId: `job-000${i + 1}`,
        reportId: j.report.id,
        reportName: j.report.name,
        status: 'SUCCEEDED' as const,
        progress: j.progress,
      })),
    },
    {
      ...lake,
      tenant,
      metrics: { add: () => undefined, flush: () => undefined },
      now: () => new Date(startedAt + MINUTE),
    },
  );
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('report-export status', () => {
  let work: string;
  let lake: string;
  let state: string;
  let now: number;
  /** Today and yesterday in London, for the fresh tenant. */
  let today: string;
  let yesterday: string;
  /** The provisional day's cut-off (10 minutes before the lake was written). */
  let cutOff: string;
  const finalize = (tenant: string, runId: string, startedAt: number, jobs: JobOutcome[], zone = 'UTC') =>
    finalizeInto({ store: new LocalDirectoryStore(lake), prefix: '' }, tenant, runId, startedAt, jobs, zone);

  const run = (argv: string[]) => runInProcess(['status', '--dir', lake, '--state-dir', state, ...argv]);

  beforeAll(async () => {
    // Prepare: a local deployment's registry and lake, each tenant's run records written by Finalize
    work = await mkdtemp(path.join(tmpdir(), 'status-cli-'));
    lake = path.join(work, 'data-lake');
    state = path.join(work, '.report-export');
    now = Date.now();
    today = dateInZone(now, 'Europe/London');
    yesterday = shiftDate(today, -1);
    cutOff = new Date(now - 10 * MINUTE).toISOString();
    const registry = tenantRegistryFromUri('test', pathToFileURL(path.join(state, 'tenants')).href);
    for (const e of [
      entry('fresh', { timeZone: 'Europe/London', reports: [LOST, AGENTS] }),
      entry('warned', { freshness: { warnAfterMinutes: 60, errorAfterMinutes: 7 * 24 * 60 } }),
      entry('stale'),
      entry('backfilled'),
      entry('paused', { enabled: false }),
      entry('nightly'),
    ])
      await registry.put(e, { create: true });
    // (a) fresh: a refresh 10 minutes ago settled yesterday and read today so far; its second
    // report published today, and the shrink guard held its yesterday.
    const partialToday = { partialDays: [{ dt: today, cutOff }] };
    await finalize(
      'fresh',
      'refresh-1',
      now - 10 * MINUTE,
      [
        { report: LOST, progress: published(yesterday, today, partialToday) },
        {
          report: AGENTS,
          progress: published(today, today, {
            ...partialToday,
            held: [{ dt: yesterday, basis: 'rows', publishedRows: 40, rows: 4 }],
            heldCount: 1,
          }),
        },
      ],
      'Europe/London',
    );
    // Past warn_after (60 min), not past error_after: the day before yesterday, settled an hour ago.
    const twoDaysAgo = utcDate(now - 2 * DAY);
    await finalize('warned', 'night-1', now - HOUR, [
      { report: LOST, progress: published(twoDaysAgo, twoDaysAgo) },
    ]);
    // (b) its newest settled day is 3-4 days old (past 52 h), though a run succeeded 30 hours ago.
    const fourDaysAgo = utcDate(now - 4 * DAY);
    await finalize('stale', 'late-1', now - 30 * HOUR, [
      { report: LOST, progress: published(fourDaysAgo, fourDaysAgo) },
    ]);
    // (c) the only new data: a backfill of a day a month old, 10 minutes ago.
    const monthAgo = utcDate(now - 30 * DAY);
    await finalize('backfilled', 'backfill-1', now - 10 * MINUTE, [
      { report: LOST, progress: published(monthAgo, monthAgo) },
    ]);
    // Last night's run settled yesterday a minute ago; a run two days back held a day (shown
    // only if its record were read: no later run published that day).
    const older = utcDate(now - 4 * DAY);
    await finalize('nightly', 'night-2', now - 50 * HOUR, [
      {
        report: LOST,
        progress: {
          ...published(older, older),
          partitions: 0,
          held: [{ dt: older, basis: 'rows', publishedRows: 9, rows: 1 }],
          heldCount: 1,
        },
      },
    ]);
    const yesterdayUtc = utcDate(now - DAY);
    await finalize('nightly', 'night-3', now - MINUTE, [
      { report: LOST, progress: published(yesterdayUtc, yesterdayUtc) },
    ]);
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('judges a fresh lake, a stale one and a backfilled one per day partition when given --json', async () => {
    // Act
    const r = await run(['--json']);

    // Assess
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ version: 1, lake: pathToFileURL(lake).href, verdict: 'error', exitCode: 1 });
    const byId = new Map(doc.tenants.map((t: { tenant: string }) => [t.tenant, t]));
    expect([...byId.keys()]).toEqual(['backfilled', 'fresh', 'nightly', 'paused', 'stale', 'warned']);
    // (a) fresh: today's provisional data 10 minutes old, against the nightly goals at 02:00
    const fresh = byId.get('fresh') as { verdict: string; reports: Record<string, unknown>[] };
    expect(fresh.verdict).toBe('ok');
    expect(fresh.reports[0]).toMatchObject({
      reportId: 'r-1',
      reportName: 'Lost calls',
      verdict: 'ok',
      newestSettledDay: yesterday,
      provisionalDays: [{ dt: today, asOf: cutOff }],
      dataTime: cutOff,
      goals: { warnAfterMinutes: 28 * 60, errorAfterMinutes: 52 * 60, basis: 'nightly' },
      lastRun: { runId: 'refresh-1', status: 'SUCCEEDED', error: null },
      heldDays: [],
    });
    expect(fresh.reports[0]?.lagMinutes).toBeGreaterThanOrEqual(10);
    expect(fresh.reports[0]?.lagMinutes).toBeLessThan(60);
    expect(fresh.reports[1]).toMatchObject({
      reportName: 'Call list by user',
      newestSettledDay: null,
      heldDays: [{ dt: yesterday, basis: 'rows', publishedRows: 40, rows: 4, runId: 'refresh-1' }],
    });
    // (b) stale: its run is recent, its newest settled day is not
    expect(byId.get('stale')).toMatchObject({
      verdict: 'error',
      lastRun: { runId: 'late-1', status: 'SUCCEEDED' },
      reports: [{ verdict: 'error', newestSettledDay: utcDate(now - 4 * DAY) }],
    });
    // (c) backfilled: a run 10 minutes ago, data a month old: not fresh
    const backfilled = byId.get('backfilled') as { reports: { verdict: string; lagMinutes: number }[] };
    expect(backfilled).toMatchObject({
      verdict: 'error',
      lastRun: { runId: 'backfill-1', status: 'SUCCEEDED' },
      reports: [{ verdict: 'error', newestSettledDay: utcDate(now - 30 * DAY) }],
    });
    expect(backfilled.reports[0]?.lagMinutes).toBeGreaterThan(29 * 24 * 60);
    expect(byId.get('warned')).toMatchObject({
      verdict: 'warn',
      reports: [{ goals: { warnAfterMinutes: 60, errorAfterMinutes: 7 * 24 * 60, basis: 'explicit' } }],
    });
    // No run at all: no data time, an error (shown; not counted: the tenant is disabled)
    expect(byId.get('paused')).toMatchObject({
      enabled: false,
      verdict: 'error',
      lastRun: null,
      reports: [{ dataTime: null, lagMinutes: null, verdict: 'error' }],
    });
  });

  it.each([
    ['fresh', 0],
    ['warned', 3],
    ['stale', 1],
    ['backfilled', 1],
    ['paused', 0],
  ])('exits for tenant %s with %i', async (tenant, code) => {
    // Act
    const r = await run(['--tenant', tenant, '--json']);

    // Assess
    expect(r.code).toBe(code);
    expect(JSON.parse(r.stdout).exitCode).toBe(code);
  });

  it('names tenant, report and verdict in its table, and the held days and missing data under it', async () => {
    // Act
    const r = await run([]);

    // Assess
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^tenant\s+report\s+verdict\s+lag\s+goals \(warn \/ error\)\s+newest settled/m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^fresh\\s+Lost calls\\s+ok\\s+\\d+ min\\s+28 h / 52 h nightly\\s+${yesterday}\\s+${today} as of `,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^warned\s+Lost calls\s+warn\s+/m);
    expect(r.stdout).toMatch(/^stale\s+Lost calls\s+error\s+3 d( \d\d h)?\s+/m);
    expect(r.stdout).toMatch(/^backfilled\s+Lost calls\s+error\s+/m);
    expect(r.stdout).toMatch(/^paused \(disabled\)\s+Lost calls\s+error\s+no data\s+/m);
    expect(r.stdout).toContain(
      `fresh  held ${yesterday} "Call list by user": kept the published 40 rows; this run had 4 (run refresh-1)`,
    );
    expect(r.stdout).toMatch(
      /^paused {2}"Lost calls": no published day in its run records of \d{4}-\d\d-\d\d\.\./m,
    );
    expect(r.stdout).toMatch(
      /^verdict: error \(exit 1\): 3 ok, 1 past warn_after, 2 past error_after, of 6 report\(s\)/m,
    );
  });

  it('refuses a tenant the registry does not hold with exit 2, naming those it does', async () => {
    // Act
    const r = await run(['--tenant', 'fressh']);

    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--tenant 'fressh' is not a tenant of the local deployment");
    expect(r.stderr).toContain('its tenants: backfilled, fresh, nightly, paused, stale, warned');
  });

  it('exits 1, never 0, when it has no enabled tenant to judge (an empty or mistyped state dir)', async () => {
    // Act
    const empty = await mkdtemp(path.join(tmpdir(), 'status-empty-'));
    const r = await runInProcess(['status', '--dir', lake, '--state-dir', empty, '--json']).finally(() =>
      rm(empty, { recursive: true, force: true }),
    );

    // Assess
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'error', exitCode: 1, tenants: [] });
    expect(r.stderr).toContain('nothing to judge: no enabled tenant');
  });

  it('gives each tenant the same verdict in tenants status', async () => {
    // Act
    const r = await runInProcess(['tenants', 'status', '--dir', state, '--lake', lake, '--json']);

    // Assess: its exit status stays 0 (it shows; status judges)
    expect(r.code).toBe(0);
    const verdicts = Object.fromEntries(
      JSON.parse(r.stdout).map((t: { tenant: string; verdict: string }) => [t.tenant, t.verdict]),
    );
    expect(verdicts).toEqual({
      backfilled: 'error',
      fresh: 'ok',
      nightly: 'ok',
      paused: 'error',
      stale: 'error',
      warned: 'warn',
    });
  });

  it('exits 3 from the built program when a report is past warn_after only', async () => {
    // Act
    const r = await runCli(['status', '--dir', lake, '--state-dir', state, '--tenant', 'warned']);

    // Assess
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^warned\s+Lost calls\s+warn\s+/m);
  });

  it('stops reading older records once none could hold a newer day', async () => {
    // Prepare
    const yesterdayUtc = utcDate(now - DAY);

    // Act
    const r = await run(['--tenant', 'nightly', '--json']);

    // Assess: the record of two days back is inside the bound (64 h) but was not read
    expect(r.code).toBe(0);
    const [nightly] = JSON.parse(r.stdout).tenants;
    expect(nightly.records).toEqual({ from: yesterdayUtc, to: utcDate(now), read: 1 });
    expect(nightly.reports[0]).toMatchObject({ newestSettledDay: yesterdayUtc, verdict: 'ok', heldDays: [] });
  });
});

describe('report-export status --stack (a multi-tenant stack; CloudFormation mocked, the lake on a local S3)', () => {
  const cfn = mockClient(CloudFormationClient);
  let s3: Awaited<ReturnType<typeof startLocalS3>>;

  beforeAll(async () => {
    // Prepare: the stack's outputs name the registry and the lake in one bucket
    s3 = await startLocalS3('status-lake');
    cfn.on(DescribeStacksCommand, { StackName: 'ReportExport' }).resolves({
      Stacks: [
        {
          StackName: 'ReportExport',
          CreationTime: new Date(0),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: Object.entries({
            StateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport',
            BucketName: 'status-lake',
            DataLakeUri: 's3://status-lake/exports',
            GlueDatabase: 'report_export',
            TenantRegistryUri: 's3://status-lake/_tenants',
            TenantSecretUri: 'secretsmanager:report-export/ReportExport/tenants/{tenant}',
            TenantSecretKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/k-1',
            TenantScheduleGroup: 'ReportExportTenants',
            TenantSchedulerRoleArn: 'arn:aws:iam::123456789012:role/Scheduler',
            TenantDeadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:DeadLetters',
          }).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    });
    const registry = new TenantRegistry({ store: s3.store(), prefix: '_tenants' });
    await registry.put(entry('acme'), { create: true });
    await registry.put(entry('bruin'), { create: true });
    const now = Date.now();
    const lake = { store: s3.store(), prefix: 'exports' };
    const yesterday = utcDate(now - DAY);
    await finalizeInto(lake, 'acme', 'night-1', now - HOUR, [
      { report: LOST, progress: published(yesterday, yesterday) },
    ]);
  });

  afterAll(async () => {
    cfn.restore();
    await s3.close();
  });

  it("judges the stack's tenants from the registry and run records its outputs name", async () => {
    // Prepare
    let out = '';
    const io = {
      stdin: Readable.from([]),
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: () => true },
      env: {},
      cwd: '/nonexistent',
    };

    // Act
    const code = await statusCommand(['--stack', 'ReportExport', '--json'], io, {
      cloudFormation: () => new CloudFormationClient({ region: 'eu-west-1' }),
      s3: () => s3.client,
    });

    // Assess: bruin never ran
    expect(code).toBe(1);
    const doc = JSON.parse(out);
    expect(doc.lake).toBe('s3://status-lake/exports');
    expect(doc.tenants.map((t: { tenant: string; verdict: string }) => [t.tenant, t.verdict])).toEqual([
      ['acme', 'ok'],
      ['bruin', 'error'],
    ]);
  });
});
