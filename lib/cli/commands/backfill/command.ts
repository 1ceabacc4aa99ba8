import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { CLI_ERROR_CODES, CommandError, parseOrHelp, UsageError } from '../../../command-line';
import type { HeldReportPartition, PartialDay } from '../../../workflow';
import { checkAws } from '../../aws/preflight';
import {
  followChain,
  type SfnDependencies,
  startExecution,
  stateMachineArnOf,
  stateMachineClient,
} from '../../aws/sfn-executions';
import { resolveConfig } from '../../shared/config';
import { CLI_DEFAULTS } from '../../shared/defaults';
import { DEPLOYED_PLAN_NOTE } from '../../shared/dry-run';
import { executionInputOf } from '../../shared/execution-input-options';
import type { IOStreams } from '../../shared/io-streams';
import { describeHeld, outcomeWarnings, runExitCode, runOutcome } from '../../shared/run-outcome';
import { checkedTenant } from '../../shared/tenant-check';
import { colors, progress, renderTable } from '../../shared/terminal';
import { BACKFILL_COMMAND } from './spec';

type ChunkStatus = 'pending' | 'running' | 'succeeded' | 'failed';

interface ChunkRecord {
  from: string;
  to: string;
  status: ChunkStatus;
  executionArn?: string;
  /** Executions started for this chunk (a retry names its execution by attempt). */
  attempts: number;
  error?: string;
  /** Partitions its executions' shrink guard held (kept as published), and the first of them. */
  heldPartitions?: number;
  held?: HeldReportPartition[];
  /** Days its executions published before they ended. */
  partialDays?: PartialDay[];
}

export interface BackfillState {
  version: 1;
  stateMachineArn: string;
  input: {
    from: string;
    to: string;
    reports?: string[];
    filterId?: string;
    forceReplace?: true;
    tenant?: string;
  };
  chunkDays: number;
  chunks: ChunkRecord[];
}

const DAY_MS = 86_400_000;
const toDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Inclusive [from, to] in consecutive chunks of at most `days` days. */
export function splitRange(from: string, to: string, days: number): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let start = Date.parse(`${from}T00:00:00Z`); start <= end; start += days * DAY_MS) {
    out.push({ from: toDate(start), to: toDate(Math.min(end, start + (days - 1) * DAY_MS)) });
  }
  return out;
}

async function readState(file: string): Promise<BackfillState | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (cause) {
    if ((cause as { code?: string }).code === 'ENOENT') return undefined;
    throw new CommandError(CLI_ERROR_CODES.stateFile, `cannot read the backfill state file ${file}`, {
      cause,
    });
  }
  try {
    return JSON.parse(text) as BackfillState;
  } catch (cause) {
    throw new CommandError(
      CLI_ERROR_CODES.stateFile,
      `the backfill state file ${file} is not JSON; remove it to start over`,
      { cause },
    );
  }
}

/** Writes the state whole (temp file, rename), so an interruption never leaves half a record. */
async function writeState(file: string, state: BackfillState): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`);
  await fs.rename(tmp, file);
}

/** The execution name of a chunk's attempt: a repeated StartExecution of it is idempotent. */
function executionName(state: BackfillState, chunk: ChunkRecord): string {
  const key = createHash('sha256')
    .update(JSON.stringify([state.stateMachineArn, state.input]))
    .digest('hex');
  // A tenant's first, as `start` names them (at most 32 + 47 characters of Step Functions' 80).
  const tenant = state.input.tenant === undefined ? '' : `${state.input.tenant}-`;
  return `${tenant}backfill-${chunk.from}-${chunk.to}-${key.slice(0, 12)}-${chunk.attempts}`;
}

/**
 * `--dry-run`: each chunk, what this run would do with it (skip it, follow its running
 * execution, start it) and the execution's name and input; nothing started or written.
 */
function printBackfillPlan(state: BackfillState, file: string, json: boolean, io: IOStreams): number {
  const chunks = state.chunks.map((chunk) => {
    const action = chunk.status === 'succeeded' ? 'skip' : chunk.status === 'running' ? 'follow' : 'start';
    const next = action === 'start' ? { ...chunk, attempts: chunk.attempts + 1 } : chunk;
    return {
      from: chunk.from,
      to: chunk.to,
      action,
      execution: action === 'follow' ? (chunk.executionArn ?? '') : executionName(state, next),
      input: chunkInput(state.input, chunk),
    };
  });
  if (json) {
    io.stdout.write(`${JSON.stringify({ dryRun: true, stateFile: file, chunks })}\n`);
    return 0;
  }
  const starts = chunks.filter((c) => c.action === 'start').length;
  io.stdout.write(
    `Dry run: ${chunks.length} chunk(s), ${starts} to start, at most ${state.chunkDays} days each (state ${file}, not written)\n\n`,
  );
  io.stdout.write(renderTable(chunks, ['from', 'to', 'action', 'execution']));
  io.stdout.write(
    `\nEach input: ${JSON.stringify(state.input)} with the chunk's from and to.\n${DEPLOYED_PLAN_NOTE}\n`,
  );
  return 0;
}

/**
 * A chunk's execution input: the backfill's, over the chunk's dates, and no directory sync
 * (history of calls: each chunk syncing the tenant's directories again would read them whole
 * once a chunk, for nothing the nightly run does not do).
 */
function chunkInput<I extends object>(input: I, chunk: { from: string; to: string }) {
  return { ...input, from: chunk.from, to: chunk.to, contacts: 'skip' as const };
}

export async function backfillCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: SfnDependencies = {},
): Promise<number> {
  const v = parseOrHelp(BACKFILL_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  if (v.from === undefined || v.to === undefined) throw new UsageError('backfill needs --from and --to');
  const parsed = executionInputOf(v);
  const tenant = checkedTenant(v.tenant);
  const input = {
    from: v.from,
    to: v.to,
    ...(parsed.reports ? { reports: parsed.reports } : {}),
    ...(parsed.filterId ? { filterId: parsed.filterId } : {}),
    // Part of the backfill's identity (its state file): a forced run is not the plain one resumed.
    ...(parsed.forceReplace ? { forceReplace: true as const } : {}),
    // Part of its identity too: another tenant's backfill of the same range is another backfill.
    ...(tenant === undefined ? {} : { tenant }),
  };
  const stateMachineArn = stateMachineArnOf(await resolveConfig({ flags: v, env: io.env, cwd: io.cwd }));
  // Before the state file or any chunk: without AWS every chunk would start and fail.
  const { sfn, target } = stateMachineClient(stateMachineArn, deps);
  await checkAws('backfill', [target], { env: io.env });
  const chunkDays = v['chunk-days'];
  const digest = createHash('sha256')
    .update(JSON.stringify([stateMachineArn, input, chunkDays]))
    .digest('hex');
  const file = path.resolve(
    io.cwd,
    v['state-file'] ?? path.join(CLI_DEFAULTS.stateDir, `backfill-${digest.slice(0, 12)}.json`),
  );
  const fresh: BackfillState = {
    version: 1,
    stateMachineArn,
    input,
    chunkDays,
    chunks: splitRange(v.from, v.to, chunkDays).map((c) => ({ ...c, status: 'pending', attempts: 0 })),
  };
  const previous = await readState(file);
  if (
    previous &&
    JSON.stringify([previous.stateMachineArn, previous.input, previous.chunkDays]) !==
      JSON.stringify([stateMachineArn, input, chunkDays])
  ) {
    throw new CommandError(
      CLI_ERROR_CODES.stateFile,
      `the state file ${file} records another backfill; pass another --state-file or remove it`,
    );
  }
  const state = previous ?? fresh;
  if (v['dry-run']) return printBackfillPlan(state, file, v.json === true, io);
  let saving = Promise.resolve();
  const save = () => {
    saving = saving.then(() => writeState(file, state));
    return saving;
  };
  await save();

  const bar = progress(io.stderr, io.env);
  const c = colors(io.stderr, io.env);
  const skipped = state.chunks.filter((ch) => ch.status === 'succeeded').length;
  const count = (s: ChunkStatus) => state.chunks.filter((ch) => ch.status === s).length;
  const show = () =>
    bar.update(
      `backfill ${count('succeeded')}/${state.chunks.length} chunks done, ${count('running')} running, ${count('failed')} failed`,
    );
  if (skipped > 0) bar.log(`${skipped} chunks already done (${file})`);
  const queue = state.chunks.filter((ch) => ch.status !== 'succeeded');
  const follow = { ...(deps.sleep ? { sleep: deps.sleep } : {}), pollMs: v['poll-ms'] };

  const runChunk = async (chunk: ChunkRecord) => {
    // Re-attach to an execution a previous run left running; else start the next attempt.
    let arn = chunk.status === 'running' ? chunk.executionArn : undefined;
    if (arn !== undefined) {
      const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
      if (d.status !== 'RUNNING' && d.status !== 'SUCCEEDED') arn = undefined;
    }
    if (arn === undefined) {
      chunk.attempts += 1;
      arn = await startExecution(sfn, stateMachineArn, chunkInput(input, chunk), executionName(state, chunk));
    }
    chunk.status = 'running';
    chunk.executionArn = arn;
    delete chunk.error;
    await save();
    show();
    const { last, outcome } = await followChain(sfn, arn, follow);
    chunk.status = last.status === 'SUCCEEDED' ? 'succeeded' : 'failed';
    chunk.heldPartitions = outcome.heldPartitions;
    chunk.held = outcome.held;
    chunk.partialDays = outcome.partialDays;
    if (last.status !== 'SUCCEEDED') chunk.error = `${last.status}${last.error ? `: ${last.error}` : ''}`;
    await save();
    bar.log(
      `${chunk.from}..${chunk.to}  ${chunk.status === 'succeeded' ? c.green('SUCCEEDED') : c.red(chunk.error ?? 'FAILED')}`,
    );
    show();
  };

  show();
  const workers = Array.from({ length: Math.min(v.parallel, Math.max(queue.length, 1)) }, async () => {
    for (let chunk = queue.shift(); chunk !== undefined; chunk = queue.shift()) {
      try {
        await runChunk(chunk);
      } catch (error) {
        // One chunk's AWS error must not stop the others; it is retried on the next run.
        chunk.status = 'failed';
        chunk.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        await save();
        bar.log(`${chunk.from}..${chunk.to}  ${c.red(chunk.error)}`);
      }
    }
  });
  await Promise.all(workers);
  bar.done();
  const failed = count('failed');
  // Every chunk's, those a previous run finished included: the backfill's outcome.
  const outcome = runOutcome(state.chunks);
  if (v.json) {
    io.stdout.write(
      `${JSON.stringify({ stateFile: file, succeeded: count('succeeded'), failed, skipped, heldPartitions: outcome.heldPartitions, chunks: state.chunks })}\n`,
    );
  } else {
    const rows = state.chunks.map((ch) => ({
      from: ch.from,
      to: ch.to,
      status: ch.status,
      held: ch.heldPartitions ?? 0,
      execution: ch.executionArn ?? '',
      error: ch.error ?? '',
    }));
    io.stdout.write(renderTable(rows, ['from', 'to', 'status', 'held', 'execution', 'error']));
    for (const h of outcome.held) io.stdout.write(`  held ${describeHeld(h)}\n`);
    if (failed > 0)
      io.stdout.write(
        `\n${failed} chunks failed; run the same command again to retry them (state: ${file})\n`,
      );
  }
  for (const warning of outcomeWarnings(outcome)) io.stderr.write(`${warning}\n`);
  return runExitCode(failed === 0 ? 'SUCCEEDED' : 'FAILED', outcome);
}
