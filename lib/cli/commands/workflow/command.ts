import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseOrHelp, UsageError } from '../../../command-line';
import type { LocalWorkflowResult } from '../../../local';
import { INTERRUPTED_EXIT_CODE } from '../../shared/interrupt';
import type { IOStreams } from '../../shared/io-streams';
import { acquireOutDirLock } from '../../shared/out-dir-lock';
import { outcomeWarnings, type RunOutcome, runExitCode, runOutcome } from '../../shared/run-outcome';
import { heldInRunRecords } from '../../shared/run-records';
import { WORKFLOW_COMMAND } from './spec';

/** The one line a script reads: counts, and the partitions held and days partial. */
interface WorkflowLine extends RunOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  jobs: number;
  rows: number;
  partitions: number;
  files: number;
  historyEvents: number;
  executions: number;
  out: string;
  error: string | null;
  /** Why it failed: the failed run's cause (Finalize's), else the failed execution's; null on success. */
  cause: string | null;
}

/** The first cause a failure left: a failed run summary's, else a failed execution's. */
function failureCause(result: LocalWorkflowResult): string | null {
  if (result.status === 'SUCCEEDED') return null;
  const summary = result.summaries.find((s) => s.status === 'FAILED' && s.cause !== '');
  const execution = result.executions.find((e) => e.status === 'FAILED' && e.cause !== null);
  return summary?.cause ?? execution?.cause ?? null;
}

export function workflowLine(result: LocalWorkflowResult, out: string): WorkflowLine {
  const sum = (pick: (s: LocalWorkflowResult['summaries'][number]) => number) =>
    result.summaries.reduce((n, s) => n + pick(s), 0);
  return {
    status: result.status,
    jobs: sum((s) => s.jobs),
    rows: sum((s) => s.rows),
    partitions: sum((s) => s.partitions),
    files: sum((s) => s.files),
    historyEvents: Math.max(0, ...result.executions.map((e) => e.historyEvents)),
    executions: result.executions.length,
    out,
    error: result.error,
    cause: failureCause(result),
    ...runOutcome(result.summaries),
  };
}

export async function workflowCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(WORKFLOW_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  if (v.input === undefined) throw new UsageError('--input is required (try --help)');
  const out = path.resolve(io.cwd, v.out);
  // One run at a time into a lake: a second is refused, not raced.
  const lock = await acquireOutDirLock(out);
  // Ctrl+C (or a TERM, the program's io.signal): the tasks in flight abort and clean up, then
  // the temporary directory (the secret file with the client secret and tokens) goes.
  const signal = io.signal;
  signal?.addEventListener('abort', () => io.stderr.write('interrupted: stopping the tasks in flight\n'), {
    once: true,
  });
  let workDir: string | undefined;
  try {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'report-export-workflow-'));
    // Loaded on use: the engine and CDK take a second to load.
    const { startLocalDeployment } = await import('../../../local/local-deployment');
    const deployment = await startLocalDeployment({
      workDir,
      // An input naming a tenant runs on the multi-tenant deployment (every local tenant in
      // its registry), as it would in a stack of `tenancy: 'multi'`.
      tenancy: hasTenant(v.input) ? 'multi' : 'single',
      objectStoreUri: pathToFileURL(out).href,
      simulator: { rowsPerDay: v['rows-per-day'], reportLatencyMs: 300 },
    });
    try {
      const result = await deployment.run(v.input, {
        waitMs: v['wait-ms'],
        ...(signal === undefined ? {} : { signal }),
        onEvent: (e) => {
          if (e.type === 'StateEntered' && e.state !== undefined) io.stderr.write(`${e.state.name}\n`);
          if (e.type === 'StateRetried' && e.state !== undefined)
            io.stderr.write(`${e.state.name} retried\n`);
          if (e.type === 'ExecutionFailed') io.stderr.write(`failed: ${e.Error ?? ''}\n`);
        },
      });
      const line = workflowLine(result, out);
      const held = await heldInRunRecords(
        result.summaries.map((s) => s.runRecordKey),
        (key) => fs.readFile(path.join(out, key), 'utf8'),
      );
      if (held !== undefined) line.held = held;
      io.stdout.write(`${JSON.stringify(line)}\n`);
      for (const warning of outcomeWarnings(line)) io.stderr.write(`${warning}\n`);
      return runExitCode(line.status, line);
    } finally {
      await deployment.close();
    }
  } catch (error) {
    if (signal?.aborted !== true) throw error;
    io.stderr.write('interrupted: partitions already published stay; run again to finish\n');
    return INTERRUPTED_EXIT_CODE;
  } finally {
    if (workDir !== undefined) await fs.rm(workDir, { recursive: true, force: true });
    await lock.release();
  }
}

function hasTenant(input: unknown): boolean {
  return typeof input === 'object' && input !== null && 'tenant' in input;
}
