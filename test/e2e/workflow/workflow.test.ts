import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledAwsSdkVersion } from '../../../lib/infra/workflow-function';
import { FunctionProcesses } from '../../../lib/local/function-processes';
import { runLocalWorkflow } from '../../../lib/local/run-workflow';
import { listAll } from '../../../lib/stores';
import { EXECUTION_OVERHEAD_EVENTS, worstCaseEventsPerJob } from '../../../lib/workflow/settings';
import { exportedRows, startHarness, type WorkflowHarness } from './harness';

let h: WorkflowHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** No token or secret string anywhere the run leaves text. */
async function expectNoSecrets(
  harness: WorkflowHarness,
  result: Parameters<WorkflowHarness['everything']>[0],
  seen: string[],
) {
  const text = await harness.everything(result);
  for (const secret of new Set([...seen, ...(await harness.secretValues())]))
    expect(text).not.toContain(secret);
}

describe('export workflow (synthesized state machine, local engine, S3 on fauxqs)', () => {
  it('exports the local day before a nightly scheduled time plus the look-back when the time is just after midnight on a DST day', async () => {
    // Prepare: London springs forward on 2026-03-29; 00:05 local on the 30th is 23:05Z on the 29th.
    h = await startHarness({ settings: { LOOKBACK_DAYS: '1' } });
    const before = await h.secretValues();
    // Act
    const result = await h.deployment.run({ scheduledTime: '2026-03-29T23:05:00Z' });
    // Assess
    expect(result.status).toBe('SUCCEEDED');
    const counts = await h.countRows();
    expect(Object.keys(counts.byDay)).toEqual(['2026-03-28', '2026-03-29']);
    expect(counts.parquet).toBe(exportedRows(result));
    expect(counts.csv).toBe(exportedRows(result));
    expect(exportedRows(result)).toBeGreaterThan(0);
    expect(result.executions[0]?.historyEvents).toBeGreaterThan(0);
    await expectNoSecrets(h, result, before);
  }, 180_000); // the first run starts every function's process

  it('runs a 10-day backfill of every report with bounded concurrency and publishes each day once', async () => {
    h = await startHarness({ settings: { MAX_WINDOW_DAYS: '3' } });
    const result = await h.deployment.run({ from: '2026-11-01', to: '2026-11-10' });
    expect(result.status).toBe('SUCCEEDED');
    // Four 3-day windows of every report, over as many executions as the state quota's jobs
    // per execution need (the rest continues in a new execution).
    expect(result.summaries.reduce((n, s) => n + s.jobs, 0)).toBe(4 * h.deployment.reports.length);
    const counts = await h.countRows();
    expect(Object.keys(counts.byDay)).toHaveLength(10);
    expect(counts.parquet).toBe(exportedRows(result));
    // A second run over the same window replaces the same partitions: no duplicates.
    const again = await h.deployment.run({ from: '2026-11-01', to: '2026-11-10' });
    expect(again.status).toBe('SUCCEEDED');
    expect((await h.countRows()).parquet).toBe(counts.parquet);
  }, 180_000); // two backfills of several executions each

  it('splits a day whose result reaches the row limit and exports it whole', async () => {
    // 300 calls on a weekday, a row limit of 100: the day splits into pieces exported together.
    h = await startHarness({ simulator: { rowsPerDay: 300, rowLimit: 100 } });
    const report = h.deployment.reports[0]?.name as string;
    const result = await h.deployment.run({ date: '2026-11-18', reports: [report] });
    expect(result.status).toBe('SUCCEEDED');
    const counts = await h.countRows();
    expect(Object.keys(counts.byDay)).toEqual(['2026-11-18']);
    expect(counts.parquet).toBe(exportedRows(result));
    expect(counts.parquet).toBeGreaterThanOrEqual(100);
    const events = result.executions[0]?.events ?? [];
    expect(
      events.filter((e) => e.type === 'StateEntered' && e.state?.name === 'RequestReport').length,
    ).toBeGreaterThan(2);
    // The pieces' summaries together are the day's: no false mismatch.
    const [record] = await h.runRecords();
    expect(record?.summaryMismatches).toBe(0);
    expect(record?.jobs[0]?.mismatches).toEqual([]);
  });

  it('fails the execution after the other jobs finish when the service fails a report, naming the error, without an immediate notice', async () => {
    h = await startHarness();
    h.deployment.sim.faults.inject({ route: 'request', kind: 'report-fail', times: 1 });
    const result = await h.deployment.run({ date: '2026-11-18' });
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('ReportRunFailedError');
    expect(result.summaries[0]?.failedJobs).toBe(1);
    expect(result.summaries[0]?.jobs).toBe(h.deployment.reports.length);
    expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
    // The other reports were published.
    expect((await h.countRows()).parquet).toBe(exportedRows(result));
  });

  it('ends a report that never completes at the poll budget with nothing published', async () => {
    h = await startHarness({ settings: { MAX_POLLS_PER_JOB: '3' } });
    const report = h.deployment.reports[0]?.name as string;
    h.deployment.sim.faults.inject({ route: 'request', kind: 'report-stuck', times: 1 });
    const result = await h.deployment.run({ date: '2026-11-18', reports: [report] });
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('PollBudgetExhaustedError');
    expect((await h.countRows()).parquet).toBe(0);
    // The history the run made stays within what the planner budgets for one job.
    const budget = worstCaseEventsPerJob(h.deployment.runtime.settings) + EXECUTION_OVERHEAD_EVENTS;
    expect(result.executions[0]?.historyEvents).toBeLessThanOrEqual(budget);
  });

  it('recovers from a storm of 5xx and from 429 with Retry-After', async () => {
    h = await startHarness();
    h.deployment.sim.faults.inject({ route: 'status', kind: 'status', status: 503, times: 6 });
    h.deployment.sim.faults.inject({ route: 'data', kind: 'status', status: 500, times: 4 });
    h.deployment.sim.faults.inject({
      route: 'request',
      kind: 'status',
      status: 429,
      retryAfterSeconds: 1,
      times: 2,
    });
    const result = await h.deployment.run({ date: '2026-11-18' });
    expect(result.status).toBe('SUCCEEDED');
    expect((await h.countRows()).parquet).toBe(exportedRows(result));
  });

  it('refreshes an access token that expires mid-run and keeps every refresh token it is given', async () => {
    // Tokens live 2 s and are used until the service refuses them (a 401, then one refresh).
    h = await startHarness({
      simulator: { accessTokenTtlSeconds: 2, rotateRefreshTokens: true, reportLatencyMs: 3000 },
      expirySkewMs: 0,
    });
    const before = await h.secretValues();
    const result = await h.deployment.run({ date: '2026-11-18' }, { waitMs: 600 });
    expect(result.status).toBe('SUCCEEDED');
    const after = await h.secretValues();
    expect(after).not.toEqual(before);
    await expectNoSecrets(h, result, [...before, ...after]);
  });

  it('ends with LoginRequiredError, not retried, when the refresh token is revoked', async () => {
    h = await startHarness({ simulator: { rotateRefreshTokens: true } });
    // Another client redeems the stored refresh token: in rotation mode the stored one is now spent.
    const fs = await import('node:fs/promises');
    const secret = JSON.parse(await fs.readFile(h.deployment.secretFile, 'utf8')) as {
      service: Record<string, unknown>;
    };
    const { refreshTokens } = await import('../../../lib/api');
    const s = secret.service as {
      authUrl: string;
      clientId: string;
      clientSecret: string;
      redirectUri: string;
      refreshToken: string;
    };
    await refreshTokens(s, s.refreshToken);
    await fs.writeFile(
      h.deployment.secretFile,
      JSON.stringify({ service: { ...secret.service, accessToken: 'expired', accessTokenExpiresAt: 0 } }),
    );
    const result = await h.deployment.run({ date: '2026-11-18' });
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('LoginRequiredError');
    const events = result.executions[0]?.events ?? [];
    expect(events.filter((e) => e.type === 'StateRetried')).toHaveLength(0);
    expect(result.notifications).toHaveLength(1);
  });

  it('never redeems one refresh token twice when two executions run at once in rotation mode, and publishes one run per partition', async () => {
    h = await startHarness({
      simulator: { rotateRefreshTokens: true, accessTokenTtlSeconds: 1 },
      expirySkewMs: 0,
    });
    const report = h.deployment.reports[0]?.name as string;
    // Two fleets of the functions' processes: each execution on its own token source, lease owner, stores.
    const prepared = await h.deployment.prepare();
    const second = prepared.newTasks();
    const [a, b] = await Promise.all([
      h.deployment.run({ date: '2026-11-18', reports: [report] }, { name: 'first', waitMs: 300 }),
      runLocalWorkflow(
        { date: '2026-11-18', reports: [report] },
        { tasks: second, definition: prepared.workflow.definition, name: 'second', waitMs: 300 },
      ),
    ]);
    expect([a.status, b.status]).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    const counts = await h.countRows();
    expect(counts.parquet).toBe(exportedRows(a));
    expect(exportedRows(b)).toBe(exportedRows(a));
    // The secret still holds a refresh token the service accepts.
    const after = await h.deployment.run({ date: '2026-11-17', reports: [report] });
    expect(after.status).toBe('SUCCEEDED');
  });

  it('continues a plan longer than one execution in new executions, even past a failed job', async () => {
    h = await startHarness({ settings: { MAX_JOBS_PER_EXECUTION: '1', MAX_WINDOW_DAYS: '1' } });
    const report = h.deployment.reports[0]?.name as string;
    // The second day's report run fails; the third day must still be exported.
    let requests = 0;
    const inject = () => h?.deployment.sim.faults.inject({ route: 'request', kind: 'report-fail', times: 1 });
    const result = await h.deployment.run(
      { from: '2026-11-16', to: '2026-11-18', reports: [report] },
      {
        onEvent: (e) => {
          if (e.type === 'StateEntered' && e.state?.name === 'RequestReport' && ++requests === 2) inject();
        },
      },
    );
    expect(result.executions.map((e) => e.status)).toEqual(['SUCCEEDED', 'FAILED', 'SUCCEEDED']);
    expect(result.executions[1]?.error).toBe('ReportRunFailedError');
    expect(result.executions.map((e) => (e.input as { from?: string; date?: string }).from)).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
    ]);
    const counts = await h.countRows();
    expect(Object.keys(counts.byDay)).toEqual(['2026-11-16', '2026-11-18']);
    expect(result.status).toBe('FAILED');
    expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
  });

  it('treats a continuation start that finds its execution already there as continued, once', async () => {
    // Prepare: the first StartExecution goes through but answers ExecutionAlreadyExists, as a
    // retried start whose first reply was lost does in AWS.
    h = await startHarness({ settings: { MAX_JOBS_PER_EXECUTION: '1', MAX_WINDOW_DAYS: '1' } });
    const report = h.deployment.reports[0]?.name as string;
    // Act
    const result = await h.deployment.run(
      { from: '2026-11-17', to: '2026-11-18', reports: [report] },
      { existingContinuation: 'RUNNING' },
    );
    // Assess: two executions, each day once, the first one through ContinuationExists.
    expect(result.executions.map((e) => e.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    const entered = (result.executions[0]?.events ?? [])
      .filter((e) => e.type === 'StateEntered')
      .map((e) => e.state?.name);
    expect(entered).toContain('ContinuationExists');
    expect(Object.keys((await h.countRows()).byDay)).toEqual(['2026-11-17', '2026-11-18']);
  });

  it('fails with ContinuationStoppedError, without an immediate notice, when the continuation it would start was stopped earlier', async () => {
    h = await startHarness({ settings: { MAX_JOBS_PER_EXECUTION: '1', MAX_WINDOW_DAYS: '1' } });
    const report = h.deployment.reports[0]?.name as string;
    // Act
    const result = await h.deployment.run(
      { from: '2026-11-17', to: '2026-11-18', reports: [report] },
      { existingContinuation: 'ABORTED' },
    );
    // Assess: this execution's day is published; the stopped child's day is not, and says so.
    expect(result.executions.map((e) => e.status)).toEqual(['FAILED']);
    expect(result.error).toBe('ContinuationStoppedError');
    expect(result.executions[0]?.cause).toMatch(/ended ABORTED: .*run a backfill/);
    expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
    expect(Object.keys((await h.countRows()).byDay)).toEqual(['2026-11-17']);
  });

  it("logs, at every cold start, the AWS SDK version the bundle carries (not the runtime's)", async () => {
    h = await startHarness();
    const result = await h.deployment.run({ date: '2026-11-18' });
    expect(result.status).toBe('SUCCEEDED');
    const coldStarts = h.deployment.logLines
      .filter((l) => l.includes('"cold start"'))
      .map((l) => JSON.parse(l) as { awsSdkVersion: string; function: string });
    // Plan, RequestReport, CheckStatus, ExportResults, SyncDirectories (a run syncs the
    // directories by default), Commit and Finalize each started at least once.
    expect(new Set(coldStarts.map((c) => c.function)).size).toBe(7);
    for (const c of coldStarts) expect(c.awsSdkVersion).toBe(bundledAwsSdkVersion());
  });

  it('runs the same workflow with the handlers in-process (the mode `run` uses), publishing the same rows', async () => {
    h = await startHarness({ functions: 'in-process' });
    const result = await h.deployment.run({ date: '2026-11-18' });
    expect(result.status).toBe('SUCCEEDED');
    expect((await h.countRows()).parquet).toBe(exportedRows(result));
    expect(h.deployment.logLines.some((l) => l.includes('"cold start"'))).toBe(false);
  });

  it('ends an export that outgrows its spill budget with SpillBudgetExceededError, not retried, with nothing published', async () => {
    // Prepare: a budget far below one day's part files (the template's budget is gigabytes).
    h = await startHarness({ settings: { SPILL_BUDGET_BYTES: '20000' } });
    const report = h.deployment.reports[0]?.name as string;
    // Act
    const result = await h.deployment.run({ date: '2026-11-18', reports: [report] });
    // Assess
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('SpillBudgetExceededError');
    const events = result.executions[0]?.events ?? [];
    expect(events.filter((e) => e.type === 'StateRetried' && e.state?.name === 'ExportResults')).toHaveLength(
      0,
    );
    expect((await h.countRows()).parquet).toBe(0);
    expect(await listAll(h.s3.store(), 'lake/calls/')).toEqual([]);
  });

  it('ends an ExportResults that outgrows its memory as AWS does (Runtime.OutOfMemory, retried once), with nothing published', async () => {
    // Prepare: the smallest Lambda memory and a window of ~70,000 rows.
    h = await startHarness({
      stackConfig: { exportMemoryMb: 128 },
      simulator: { rowsPerDay: 10_000, reportLatencyMs: 50 },
    });
    const report = h.deployment.reports[0]?.name as string;
    // Act
    const result = await h.deployment.run({ from: '2026-11-12', to: '2026-11-18', reports: [report] });
    // Assess
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('Runtime.OutOfMemory');
    expect(result.executions[0]?.cause).toMatch(/signal: killed.*of its 128 MB/);
    const events = result.executions[0]?.events ?? [];
    expect(events.filter((e) => e.type === 'StateRetried' && e.state?.name === 'ExportResults')).toHaveLength(
      1,
    );
    expect(await listAll(h.s3.store(), 'lake/calls/')).toEqual([]);
  });

  it("carries the input's filters once in the state: no state is twice their size", async () => {
    // Prepare: 20 KB of conditions (the input may have 32 KiB); the continuation merges them back.
    h = await startHarness({ settings: { MAX_JOBS_PER_EXECUTION: '1', MAX_WINDOW_DAYS: '1' } });
    const report = h.deployment.reports[0]?.name as string;
    const additionalConditions = [1, 2].map((n) => ({
      fieldName: 'callDir',
      operator: '!=',
      values: Array.from({ length: 1000 }, (_, i) => `${n}${i + 10}`),
    }));
    const conditionBytes = JSON.stringify(additionalConditions).length;
    expect(conditionBytes).toBeGreaterThan(10_000);
    // Act
    const result = await h.deployment.run({
      from: '2026-11-17',
      to: '2026-11-18',
      reports: [report],
      additionalConditions,
    });
    // Assess
    expect(result.executions.map((e) => [e.status, e.error, e.cause])).toEqual([
      ['SUCCEEDED', null, null],
      ['SUCCEEDED', null, null],
    ]);
    expect(
      (result.executions[1]?.input as { additionalConditions?: unknown } | undefined)?.additionalConditions,
    ).toEqual(additionalConditions);
    const sizes = result.executions.flatMap((e) =>
      e.events.flatMap((ev) => {
        const state = (ev as { state?: { input?: unknown; output?: unknown } }).state;
        return [state?.input, state?.output].map((v) => JSON.stringify(v ?? null).length);
      }),
    );
    expect(Math.max(...sizes)).toBeGreaterThan(conditionBytes);
    expect(Math.max(...sizes)).toBeLessThan(conditionBytes + 8_000);
  });

  it('fails the execution with States.DataLimitExceeded, caught by nothing (no record, no notice), when a state outgrows 256 KiB, as AWS does', async () => {
    // Prepare: the synthesized definition, its first state padded past the quota.
    h = await startHarness();
    const prepared = await h.deployment.prepare();
    const definition = structuredClone(prepared.workflow.definition);
    const start = definition.States.Start as { Parameters: Record<string, unknown> };
    start.Parameters = { ...start.Parameters, padding: 'x'.repeat(300_000) };
    // Act
    const result = await runLocalWorkflow({ date: '2026-11-18' }, { tasks: prepared.tasks, definition });
    // Assess
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('States.DataLimitExceeded');
    expect(result.executions[0]?.cause).toMatch(/'Start' has an output with a size exceeding/);
    expect(result.notifications).toEqual([]);
    expect(await h.runRecords()).toEqual([]);
  });

  it.each([
    ['Runtime.UnhandledPromiseRejection', 0],
    ['Runtime.ExitError', 1],
  ])(
    'ends a job whose function fails with %s as AWS does (retried %i times), recorded, without an immediate notice',
    async (name, retries) => {
      // Prepare: ExportResults is a function that leaves a rejection unhandled, or exits.
      h = await startHarness();
      const report = h.deployment.reports[0]?.name as string;
      const prepared = await h.deployment.prepare();
      const dir = await fs.mkdtemp(path.join(h.workDir, 'faulty-'));
      const fault =
        name === 'Runtime.ExitError'
          ? 'process.exit(3)'
          : "Promise.reject(new Error('nobody awaits this')); return new Promise(() => {})";
      await fs.writeFile(path.join(dir, 'index.mjs'), `export const handler = async () => { ${fault}; };`);
      const faulty = new FunctionProcesses({
        spec: {
          logicalId: 'Faulty',
          environment: {},
          deployTimeVariables: [],
          memorySizeMb: 256,
          timeoutSeconds: 30,
          ephemeralStorageMb: 512,
          handler: 'index.handler',
          runtime: 'nodejs22.x',
          assetKey: undefined,
        },
        assetDir: dir,
        environment: { PATH: process.env.PATH ?? '' },
        tmpRoot: dir,
      });
      const tasks = {
        invoke: (state: string, event: unknown, signal?: AbortSignal) =>
          state === 'ExportResults'
            ? faulty.invoke(event, signal)
            : prepared.tasks.invoke(state, event, signal),
        close: () => faulty.close(),
      };
      // Act
      const result = await runLocalWorkflow(
        { date: '2026-11-18', reports: [report] },
        { tasks, definition: prepared.workflow.definition },
      ).finally(() => faulty.close());
      // Assess
      expect(result.status).toBe('FAILED');
      expect(result.error).toBe(name);
      const events = result.executions[0]?.events ?? [];
      expect(
        events.filter((e) => e.type === 'StateRetried' && e.state?.name === 'ExportResults'),
      ).toHaveLength(retries);
      expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
      expect((await h.runRecords())[0]?.jobs[0]?.error).toBe(name);
    },
  );

  it('refuses an input too large for the state as InvalidInputError, with the failure recorded, without an immediate notice', async () => {
    // Prepare: 136 KB of conditions, which AWS would accept as an input and then fail on.
    h = await startHarness();
    const additionalConditions = Array.from({ length: 40 }, (_, i) => ({
      fieldName: 'cli',
      operator: 'in',
      values: Array.from({ length: 200 }, (_, j) => `+44123${i}${j}`.padEnd(14, '0')),
    }));
    expect(JSON.stringify(additionalConditions).length).toBeGreaterThan(130_000);
    // Act
    const result = await h.deployment.run({ date: '2026-11-18', additionalConditions });
    // Assess
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('InvalidInputError');
    expect(result.executions[0]?.cause).toMatch(/bytes of JSON exceed the 32768/);
    expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
    const [record] = await h.runRecords();
    expect(record).toMatchObject({ status: 'FAILED', error: 'InvalidInputError' });
  });

  it.each([262_000])(
    'records the refusal of a %i-byte input, which AWS accepts, without an immediate notice',
    async (size) => {
      // Prepare: an input of exactly `size` UTF-8 bytes of JSON.
      h ??= await startHarness();
      const input = {
        date: '2026-11-18',
        additionalConditions: [{ fieldName: 'cli', operator: 'in', values: [''] }],
      };
      const padding = size - Buffer.byteLength(JSON.stringify(input));
      input.additionalConditions[0] = { fieldName: 'cli', operator: 'in', values: ['x'.repeat(padding)] };
      expect(Buffer.byteLength(JSON.stringify(input))).toBe(size);
      const before = (await h.runRecords()).length;
      // Act
      const result = await h.deployment.run(input);
      // Assess: refused by Plan, not killed by the state's quota.
      expect(result.status).toBe('FAILED');
      expect(result.error).toBe('InvalidInputError');
      expect(result.executions[0]?.cause).toContain(`${size} bytes of JSON exceed`);
      expect(result.notifications).toEqual([]); // not urgent: the night's digest names it
      const records = await h.runRecords();
      expect(records).toHaveLength(before + 1);
      expect(records.at(-1)).toMatchObject({ status: 'FAILED', error: 'InvalidInputError', input: null });
    },
  );

  it.each([
    [{ date: '2026-02-30' }, 'date'],
    [{}, 'needs one of'],
    [{ from: '2026-11-10', to: '2026-11-01' }, 'must not be before'],
    [{ date: '2026-11-01', reports: ['No such report'] }, 'No such report'],
    [{ preset: 'Yesterday', date: '2026-11-01' }, 'takes one of'],
  ])('fails at once with InvalidInputError naming the problem for %j', async (input, named) => {
    h ??= await startHarness();
    const result = await h.deployment.run(input);
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('InvalidInputError');
    expect(result.executions[0]?.cause).toContain(named);
    const events = result.executions[0]?.events ?? [];
    expect(events.some((e) => e.state?.name === 'RequestReport')).toBe(false);
    await h.close();
    h = undefined;
  });
});
