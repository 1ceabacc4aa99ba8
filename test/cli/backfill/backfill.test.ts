import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BackfillState, backfillCommand, splitRange } from '../../../lib/cli/commands/backfill/command';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport';

describe('splitRange', () => {
  it('covers the inclusive range in chunks of at most n days when the range is long', () => {
    // Act
    const chunks = splitRange('2026-01-01', '2026-03-05', 31);
    // Assess
    expect(chunks).toEqual([
      { from: '2026-01-01', to: '2026-01-31' },
      { from: '2026-02-01', to: '2026-03-03' },
      { from: '2026-03-04', to: '2026-03-05' },
    ]);
  });
});

describe('report-export backfill (mocked Step Functions)', () => {
  const sfn = mockClient(SFNClient);
  let dir: string;
  /** The command's streams (stdout kept in `out`), no environment, `dir` as its working directory. */
  let io: IOStreams;
  let out: string;
  let running = 0;
  let maxRunning = 0;
  /** Executions by name: started ones run for two polls, then end as `outcome(name)` says. */
  let outcome: (input: { from: string }) => 'SUCCEEDED' | 'FAILED';
  const polls = new Map<string, number>();
  const inputs = new Map<string, { from: string }>();

  beforeEach(async () => {
    sfn.reset();
    polls.clear();
    inputs.clear();
    running = 0;
    maxRunning = 0;
    outcome = () => 'SUCCEEDED';
    dir = await mkdtemp(join(tmpdir(), 'backfill-'));
    out = '';
    io = {
      stdin: Readable.from([]),
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: () => true },
      env: {},
      cwd: dir,
    };
    sfn.on(StartExecutionCommand).callsFake((i: { name: string; input: string }) => {
      const arn = `arn:aws:states:eu-west-1:123456789012:execution:ReportExport:${i.name}`;
      inputs.set(arn, JSON.parse(i.input) as { from: string });
      polls.set(arn, 0);
      running++;
      maxRunning = Math.max(maxRunning, running);
      return { executionArn: arn, startDate: new Date(0) };
    });
    sfn.on(DescribeExecutionCommand).callsFake((i: { executionArn: string }) => {
      const n = (polls.get(i.executionArn) ?? 99) + 1;
      polls.set(i.executionArn, n);
      if (n < 3) return { status: 'RUNNING' };
      if (n === 3) running--;
      const input = inputs.get(i.executionArn);
      return { status: input ? outcome(input) : 'SUCCEEDED' };
    });
    sfn.on(GetExecutionHistoryCommand).resolves({ events: [] });
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (extra: string[] = []) =>
    backfillCommand(
      [
        '--from',
        '2026-01-01',
        '--to',
        '2026-03-31',
        '--chunk-days',
        '14',
        '--parallel',
        '2',
        '--state-machine-arn',
        SM,
        '--state-file',
        join(dir, 'state.json'),
        ...extra,
      ],
      io,
      { sfn: () => new SFNClient({ region: 'eu-west-1' }), sleep: async () => {} },
    );
  const state = async () => JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as BackfillState;

  it('starts one execution per chunk, never more than --parallel at once, when every chunk succeeds', async () => {
    // Act
    const code = await run();

    // Assess
    expect(code).toBe(0);
    const starts = sfn
      .commandCalls(StartExecutionCommand)
      .map((c) => JSON.parse(c.args[0].input.input ?? ''));
    expect(starts).toHaveLength(7);
    // A backfill is history of calls: its chunks never sync the directories.
    expect(starts[0]).toEqual({ from: '2026-01-01', to: '2026-01-14', contacts: 'skip' });
    expect(starts.at(-1)).toEqual({ from: '2026-03-26', to: '2026-03-31', contacts: 'skip' });
    expect(maxRunning).toBe(2);
    expect((await state()).chunks.every((c) => c.status === 'succeeded')).toBe(true);
  });

  it('sends forceReplace in the execution input of every chunk when given --force-replace', async () => {
    // Act
    const code = await run(['--force-replace']);

    // Assess
    expect(code).toBe(0);
    const starts = sfn
      .commandCalls(StartExecutionCommand)
      .map((c) => JSON.parse(c.args[0].input.input ?? '') as { forceReplace?: boolean });
    expect(starts).toHaveLength(7);
    expect(starts.every((input) => input.forceReplace === true)).toBe(true);
    expect((await state()).input.forceReplace).toBe(true);
  });

  it("sends the tenant in every chunk's input and names its executions <tenant>-backfill-... when given --tenant", async () => {
    // Act
    const code = await run(['--tenant', 'acme']);

    // Assess
    expect(code).toBe(0);
    const starts = sfn.commandCalls(StartExecutionCommand).map((c) => c.args[0].input);
    expect(starts).toHaveLength(7);
    expect(starts.every((i) => (JSON.parse(i.input ?? '') as { tenant?: string }).tenant === 'acme')).toBe(
      true,
    );
    expect(starts.every((i) => i.name?.startsWith('acme-backfill-2026-') && i.name.length <= 80)).toBe(true);
    expect((await state()).input.tenant).toBe('acme');
  });

  it('exits 3 and lists the held partitions of every chunk when an execution held some', async () => {
    // Prepare: the chunk from 2026-02-12 held a day (Finalize's output says so).
    const held = {
      dt: '2026-02-13',
      basis: 'rows',
      publishedRows: 50,
      rows: 5,
      reportId: 'r',
      reportName: 'R',
    };
    sfn.on(DescribeExecutionCommand).callsFake((i: { executionArn: string }) => {
      const n = (polls.get(i.executionArn) ?? 99) + 1;
      polls.set(i.executionArn, n);
      const chunk = inputs.get(i.executionArn)?.from === '2026-02-12';
      const output = chunk ? { heldPartitions: 1, held: [held], partialDays: [] } : {};
      return { status: 'SUCCEEDED', output: JSON.stringify(output) };
    });

    // Act
    const code = await run();

    // Assess
    expect(code).toBe(3);
    expect(out).toContain('held 2026-02-13 "R": kept the published 50 rows; this run had 5');
    expect((await state()).chunks.find((c) => c.from === '2026-02-12')).toMatchObject({ heldPartitions: 1 });
  });

  it('prints each chunk with what it would do and its execution, and starts and writes nothing, when given --dry-run', async () => {
    // Act
    const code = await run(['--dry-run', '--json']);

    // Assess
    expect(code).toBe(0);
    const plan = JSON.parse(out) as {
      chunks: { from: string; to: string; action: string; execution: string; input: { from: string } }[];
    };
    expect(plan.chunks).toHaveLength(7);
    expect(plan.chunks[0]).toMatchObject({
      from: '2026-01-01',
      to: '2026-01-14',
      action: 'start',
      input: { from: '2026-01-01', to: '2026-01-14' },
    });
    expect(plan.chunks[0]?.execution).toMatch(/^backfill-2026-01-01-2026-01-14-[0-9a-f]{12}-1$/);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    await expect(readFile(join(dir, 'state.json'))).rejects.toThrow(/ENOENT/);
  });

  it('retries only the failed chunks and skips the finished ones when run again', async () => {
    // Prepare
    outcome = (input) => (input.from === '2026-02-12' ? 'FAILED' : 'SUCCEEDED');
    const first = await run();
    const startedFirst = sfn.commandCalls(StartExecutionCommand).length;
    outcome = () => 'SUCCEEDED';

    // Act
    const second = await run();

    // Assess
    expect(first).toBe(1);
    expect(startedFirst).toBe(7);
    expect(second).toBe(0);
    const again = sfn.commandCalls(StartExecutionCommand).slice(startedFirst);
    expect(again.map((c) => JSON.parse(c.args[0].input.input ?? '').from)).toEqual(['2026-02-12']);
    // A retry is a new attempt with its own name, so StartExecution does not refuse it.
    expect(again[0]?.args[0].input.name).toMatch(/-2$/);
    const chunk = (await state()).chunks.find((c) => c.from === '2026-02-12');
    expect(chunk).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('follows an execution a previous run left running instead of starting another when resumed', async () => {
    // Prepare
    await run();
    const s = await state();
    const left = s.chunks[0];
    if (!left) throw new Error('no chunk');
    left.status = 'running';
    polls.set(left.executionArn ?? '', 0);
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'state.json'), JSON.stringify(s)));
    const before = sfn.commandCalls(StartExecutionCommand).length;

    // Act
    const code = await run();

    // Assess
    expect(code).toBe(0);
    expect(sfn.commandCalls(StartExecutionCommand).length).toBe(before);
    expect((await state()).chunks[0]?.status).toBe('succeeded');
  });

  it('keeps its state under .report-export in its working directory when no --state-file is given', async () => {
    // Act
    const code = await backfillCommand(
      ['--from', '2026-01-01', '--to', '2026-01-20', '--state-machine-arn', SM, '--json'],
      io,
      { sfn: () => new SFNClient({ region: 'eu-west-1' }), sleep: async () => {} },
    );

    // Assess
    expect(code).toBe(0);
    const { stateFile } = JSON.parse(out) as { stateFile: string };
    expect(dirname(stateFile)).toBe(join(dir, '.report-export'));
    expect(basename(stateFile)).toMatch(/^backfill-[0-9a-f]{12}\.json$/);
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as BackfillState;
    expect(saved.chunks.map((c) => c.status)).toEqual(['succeeded']);
  });

  it('refuses a state file of another backfill when the range differs', async () => {
    // Prepare
    await run();

    // Act
    const attempt = backfillCommand(
      [
        '--from',
        '2025-01-01',
        '--to',
        '2025-01-31',
        '--state-machine-arn',
        SM,
        '--state-file',
        join(dir, 'state.json'),
      ],
      io,
      { sfn: () => new SFNClient({ region: 'eu-west-1' }), sleep: async () => {} },
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({ code: 'CLI_STATE_FILE' });
  });
});
