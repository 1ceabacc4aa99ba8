import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sfnStartCommand } from '../../../lib/cli/commands/start/command';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport';
const EXEC = (n: number) => `arn:aws:states:eu-west-1:123456789012:execution:ReportExport:e${n}`;

const entered = (id: number, name: string): HistoryEvent => ({
  id,
  type: 'TaskStateEntered',
  timestamp: new Date(0),
  stateEnteredEventDetails: { name },
});

/** Streams that keep what a command writes to stdout and stderr; no environment; `cwd` as given. */
function captureOutput(cwd: string): { io: IOStreams; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: IOStreams = {
    stdin: Readable.from([]),
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    cwd,
  };
  return { io, out: () => out, err: () => err };
}

/** An empty working directory: no report-export.config.json is read. */
let cwd: string;

beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'start-cli-'));
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('report-export start (mocked Step Functions)', () => {
  const sfn = mockClient(SFNClient);
  const deps = { sfn: () => new SFNClient({ region: 'eu-west-1' }), sleep: async () => {} };

  beforeEach(() => {
    sfn.reset();
  });

  it('starts the execution with the input of the flags and follows it to SUCCEEDED when the execution succeeds', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXEC(1), startDate: new Date(0) });
    sfn
      .on(DescribeExecutionCommand)
      .resolvesOnce({ status: 'RUNNING' } as never)
      .resolves({ status: 'SUCCEEDED', output: '{"rows":12}' } as never);
    sfn
      .on(GetExecutionHistoryCommand)
      .resolvesOnce({ events: [entered(2, 'Plan')] })
      .resolves({ events: [entered(4, 'Finalize'), entered(3, 'ExportJobs'), entered(2, 'Plan')] });
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(
      [
        '--date',
        '2026-11-20',
        '--report',
        'Lost calls',
        '--report',
        'r2',
        '--state-machine-arn',
        SM,
        '--json',
      ],
      io.io,
      deps,
    );

    // Assess
    expect(code).toBe(0);
    const start = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(start?.stateMachineArn).toBe(SM);
    expect(JSON.parse(start?.input ?? '')).toEqual({ date: '2026-11-20', reports: ['Lost calls', 'r2'] });
    expect(JSON.parse(io.out())).toMatchObject({
      executionArn: EXEC(1),
      status: 'SUCCEEDED',
      output: { rows: 12 },
    });
    // Each state once, in order, though the second page repeated the first event.
    expect(io.err().match(/Plan|ExportJobs|Finalize/g)).toEqual(['Plan', 'ExportJobs', 'Finalize']);
  });

  it('exits 3 and names each held partition with both counts when the execution held some', async () => {
    // Prepare: Finalize's output (the execution's) lists what the shrink guard held.
    const output = {
      rows: 100,
      heldPartitions: 1,
      held: [
        {
          dt: '2026-11-19',
          basis: 'rows',
          publishedRows: 400,
          rows: 100,
          reportId: 'r1',
          reportName: 'Lost calls',
        },
      ],
      partialDays: [],
    };
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXEC(1), startDate: new Date(0) });
    sfn
      .on(DescribeExecutionCommand)
      .resolves({ status: 'SUCCEEDED', output: JSON.stringify(output) } as never);
    sfn.on(GetExecutionHistoryCommand).resolves({ events: [] });
    const text = captureOutput(cwd);
    const json = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(['--date', '2026-11-20', '--state-machine-arn', SM], text.io, deps);
    const jsonCode = await sfnStartCommand(
      ['--date', '2026-11-20', '--state-machine-arn', SM, '--json'],
      json.io,
      deps,
    );

    // Assess
    expect([code, jsonCode]).toEqual([3, 3]);
    expect(text.out()).toContain(
      'held 2026-11-19 "Lost calls": kept the published 400 rows; this run had 100',
    );
    expect(text.err()).toMatch(/the shrink guard held 1 partition/);
    expect(JSON.parse(json.out())).toMatchObject({
      heldPartitions: 1,
      held: [{ dt: '2026-11-19', rows: 100 }],
    });
  });

  it('prints the execution input it would send and starts nothing when given --dry-run', async () => {
    // Prepare
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(
      ['--date', '2026-11-20', '--report', 'Lost calls', '--state-machine-arn', SM, '--dry-run', '--json'],
      io.io,
      deps,
    );

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toEqual({
      dryRun: true,
      stateMachineArn: SM,
      executions: [{ name: null, input: { date: '2026-11-20', reports: ['Lost calls'] } }],
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('puts --contacts in the input, only alone with no dates, and refuses a report option with only', async () => {
    // Prepare
    const dryRun = async (args: string[]) => {
      const io = captureOutput(cwd);
      const code = await sfnStartCommand(
        [...args, '--state-machine-arn', SM, '--dry-run', '--json'],
        io.io,
        deps,
      );
      return { code, input: JSON.parse(io.out()).executions[0].input };
    };

    // Act
    const skip = await dryRun(['--date', '2026-11-20', '--contacts', 'skip']);
    const only = await dryRun(['--contacts', 'only', '--tenant', 'acme', '--force-replace']);
    const withDate = sfnStartCommand(
      ['--contacts', 'only', '--date', '2026-11-20', '--state-machine-arn', SM, '--dry-run'],
      captureOutput(cwd).io,
      deps,
    );
    const unknown = sfnStartCommand(
      ['--contacts', 'all', '--state-machine-arn', SM, '--dry-run'],
      captureOutput(cwd).io,
      deps,
    );

    // Assess
    expect(skip).toEqual({ code: 0, input: { date: '2026-11-20', contacts: 'skip' } });
    expect(only).toEqual({ code: 0, input: { contacts: 'only', forceReplace: true, tenant: 'acme' } });
    await expect(withDate).rejects.toThrow(
      '--contacts only syncs the contact directories alone: it takes no --date',
    );
    await expect(unknown).rejects.toThrow("--contacts must be one of 'sync', 'skip', 'only', got 'all'");
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('puts the tenant in the input and names the execution <tenant>-... when given --tenant', async () => {
    // Prepare
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(
      ['--date', '2026-11-20', '--tenant', 'acme', '--state-machine-arn', SM, '--dry-run', '--json'],
      io.io,
      deps,
    );
    const named = await sfnStartCommand(
      [
        '--date',
        '2026-11-20',
        '--tenant',
        'acme',
        '--name',
        'rerun',
        '--state-machine-arn',
        SM,
        '--dry-run',
        '--json',
      ],
      captureOutput(cwd).io,
      deps,
    );
    const bad = sfnStartCommand(
      ['--date', '2026-11-20', '--tenant', 'Acme!', '--state-machine-arn', SM],
      io.io,
      deps,
    );

    // Assess
    expect(code).toBe(0);
    expect(named).toBe(0);
    const [execution] = (JSON.parse(io.out()) as { executions: { name: string; input: unknown }[] })
      .executions;
    expect(execution?.input).toEqual({ date: '2026-11-20', tenant: 'acme' });
    expect(execution?.name).toMatch(/^acme-\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    await expect(bad).rejects.toThrow(
      /--tenant must be 1-32 lowercase letters, digits and inner hyphens, got 'Acme!'/,
    );
  });

  it('exits 1 with the error when the execution fails', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXEC(1), startDate: new Date(0) });
    sfn
      .on(DescribeExecutionCommand)
      .resolves({ status: 'FAILED', error: 'LoginRequiredError', cause: 'log in' } as never);
    sfn.on(GetExecutionHistoryCommand).resolves({ events: [] });
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(['--preset', 'Yesterday', '--state-machine-arn', SM], io.io, deps);

    // Assess
    expect(code).toBe(1);
    expect(io.out()).toContain('FAILED');
    expect(io.out()).toContain('LoginRequiredError');
  });

  it('follows the execution ContinueAsNew started when the plan continues', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXEC(1), startDate: new Date(0) });
    sfn.on(DescribeExecutionCommand, { executionArn: EXEC(1) }).resolves({ status: 'SUCCEEDED' } as never);
    sfn.on(DescribeExecutionCommand, { executionArn: EXEC(2) }).resolves({ status: 'SUCCEEDED' } as never);
    sfn.on(GetExecutionHistoryCommand, { executionArn: EXEC(1) }).resolves({
      events: [
        {
          id: 9,
          type: 'TaskSucceeded',
          timestamp: new Date(0),
          taskSucceededEventDetails: {
            resourceType: 'aws-sdk:sfn',
            resource: 'startExecution',
            output: JSON.stringify({ ExecutionArn: EXEC(2), StartDate: 0 }),
          },
        },
      ],
    });
    sfn.on(GetExecutionHistoryCommand, { executionArn: EXEC(2) }).resolves({ events: [] });
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(
      ['--from', '2024-01-01', '--to', '2025-12-31', '--state-machine-arn', SM, '--json'],
      io.io,
      deps,
    );

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ executions: [EXEC(1), EXEC(2)], status: 'SUCCEEDED' });
  });

  it('prints only the execution ARN when --no-wait is given', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXEC(7), startDate: new Date(0) });
    const io = captureOutput(cwd);

    // Act
    const code = await sfnStartCommand(
      ['--date', '2026-11-20', '--state-machine-arn', SM, '--no-wait'],
      io.io,
      deps,
    );

    // Assess
    expect(code).toBe(0);
    expect(io.out()).toBe(`${EXEC(7)}\n`);
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
  });
});

describe('report-export start (the built program)', () => {
  it('prints help with an example and exits 0 when --help is given', async () => {
    // Act
    const r = await runCli(['start', '--help'], { cleanEnv: true });
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: report-export start');
    expect(r.stdout).toContain('Examples:');
  });
});

describe('report-export start (usage errors)', () => {
  it.each([
    {
      args: ['--date', '2026-02-30'],
      message: "--date must be a calendar date YYYY-MM-DD, got '2026-02-30'",
    },
    {
      args: ['--date', '2026-11-20', '--preset', 'Today'],
      message: 'give only one of --date, --from/--to, --preset',
    },
    { args: ['--from', '2026-11-20'], message: '--to is required with --from' },
    { args: ['--date', '2026-11-20'], message: 'needs --state-machine-arn' },
    {
      args: ['--date', '2026-11-20', '--state-machine-arn', 'nope'],
      message: "--state-machine-arn must be a state machine ARN, got 'nope'",
    },
    { args: ['--preset', 'Someday'], message: '--preset must be one of' },
  ])('exits 2 naming the flag when $args are given', async ({ args, message }) => {
    // Act
    const r = await runInProcess(['start', ...args], { cleanEnv: true, cwd });
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
