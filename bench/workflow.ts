/**
 * `npx tsx bench/workflow.ts` (npm run bench:workflow): the export workflow against the
 * export core called directly, and the Lambda bundles.
 *
 * 1. Workflow: one local execution of the synthesized state machine (lib/local) over one
 *    report and one window that is a single job under the service's row limit: local
 *    service -> Plan -> RequestReport -> CheckStatus -> ExportResults -> Finalize -> S3
 *    (fauxqs on 127.0.0.1). Rows/s = rows exported / wall time of the execution.
 * 2. Direct: the same service options and seed, report, window and store kind, through
 *    requestReport -> waitForCompletion -> openResult -> exportReportResult. Rows/s.
 * 3. The orchestration overhead ratio (workflow rows/s / direct rows/s), each one's peak
 *    RSS (each runs in its own process, bench/workflow-contestant.ts; the S3 server runs
 *    here, the service in the contestant's process as startLocalDeployment has it) and
 *    the execution's history events as AWS would count them.
 * 4. Each Lambda bundle's size and median cold import time (bench/workflow-bundles.ts), as it
 *    ships (the AWS SDK inside, `bundleAwsSDK: true`) and, for comparison, with `@aws-sdk/*`
 *    external; each without and with NODE_OPTIONS=--enable-source-maps (as deployed).
 *
 * Each contestant runs `--rounds` times (default 2, the order alternating); the figures are
 * each one's best run (least disturbed by other work on the machine), every run is listed.
 *
 * Options: --rows-per-day N (50000) --from D (2026-10-26) --to D (2026-11-22) --rounds N (2)
 * --seed N --report NAME ('Call list by user') --import-runs N (7) --node PATH.
 * Progress goes to stderr; stdout gets the table, then one JSON line with every figure.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { synthesizedDefinition } from '../lib/local/definition';
import { DEFAULT_SEED } from '../lib/simulator/seed';
import { listAll } from '../lib/stores/object-store';
import { startLocalS3 } from '../test/integration/stores/local-s3';
import {
  bundleEncodeWorker,
  bundleHandler,
  HANDLER_MODULES,
  lambdaLikeNode,
  medianImportMs,
} from './workflow-bundles';
import {
  type ContestantRun,
  type MeasuredBundle,
  printWorkflowReport,
  type WorkflowBenchFigures,
} from './workflow-report';

const CONTESTANT_TIMEOUT_MS = 20 * 60_000;
/** The service's row limit: the one job must stay under it (else its window is split). */
const ROW_LIMIT = 1_000_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function log(message: string): void {
  process.stderr.write(`[bench:workflow] ${message}\n`);
}

/** Runs a child to its end (killed after the timeout); its last stdout line parsed as JSON. */
async function runContestant(args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'workflow-contestant.ts'), ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: CONTESTANT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    },
  );
  const lines: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => lines.push(c));
  try {
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    if (code !== 0) throw new Error(`the ${args[1]} contestant ended with ${signal ?? code}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const last = lines.join('').trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as Record<string, unknown>;
}

/** Data files (Parquet, CSV) a contestant left in its bucket: a cross-check of both runs. */
async function lakeFiles(s3: Awaited<ReturnType<typeof startLocalS3>>) {
  const files = (await listAll(s3.store(), 'lake/calls/')).filter((o) =>
    /\.(parquet|csv|csv\.gz)$/.test(o.key),
  );
  return { files: files.length, bytes: files.reduce((n, o) => n + o.size, 0) };
}

async function main(): Promise<void> {
  const window = { from: arg('from', '2026-10-26'), to: arg('to', '2026-11-22') };
  const rowsPerDay = Number(arg('rows-per-day', '50000'));
  const seed = Number(arg('seed', String(DEFAULT_SEED)));
  const report = arg('report', 'Call list by user');
  const importRuns = Number(arg('import-runs', '7'));
  const rounds = Number(arg('rounds', '2'));
  const node = arg('node', lambdaLikeNode());
  if (!Number.isInteger(rowsPerDay) || rowsPerDay < 1)
    throw new Error('--rows-per-day must be a positive integer');
  if (!Number.isInteger(importRuns) || importRuns < 1 || importRuns > 50)
    throw new Error('--import-runs must be 1..50');
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10) throw new Error('--rounds must be 1..10');

  // Inside the repository so the bundles' external @aws-sdk/* resolve from node_modules,
  // as they do from the Lambda runtime's.
  const loadBefore = loadavg()[0] as number;
  const work = await mkdtemp(join(import.meta.dirname, '.bench-workflow-'));
  try {
    log('synthesizing the state machine (once, outside the measured execution)');
    const definitionFile = join(work, 'definition.json');
    await writeFile(definitionFile, JSON.stringify(synthesizedDefinition()));

    const common = [
      ...['--from', window.from, '--to', window.to, '--rows-per-day', String(rowsPerDay)],
      ...['--seed', String(seed), '--report', report, '--definition', definitionFile],
    ];
    const runs: ContestantRun[] = [];
    const lakes: Record<string, { files: number; bytes: number }> = {};
    for (let round = 0; round < rounds; round++) {
      // Alternating order, so neither contestant always runs on a warmer (or busier) machine.
      const order = round % 2 === 0 ? (['direct', 'workflow'] as const) : (['workflow', 'direct'] as const);
      for (const mode of order) {
        // A fresh S3 server per run: no run writes over another's partitions.
        const s3 = await startLocalS3(`bench-${mode}`);
        try {
          log(`round ${round + 1}/${rounds}: running ${mode} (S3 on ${s3.endpoint})`);
          const line = await runContestant([
            '--mode',
            mode,
            '--endpoint',
            s3.endpoint,
            '--bucket',
            `bench-${mode}`,
            ...common,
          ]);
          runs.push({ mode, round: round + 1, line });
          lakes[mode] = await lakeFiles(s3);
          log(`${mode}: ${JSON.stringify(line)}`);
        } finally {
          await s3.close();
        }
      }
    }

    log(`bundling the ${HANDLER_MODULES.length} handlers as the CDK construct does`);
    const bundles: MeasuredBundle[] = [];
    const workerBytes = await bundleEncodeWorker(join(work, 'lambdas'));
    for (const module of HANDLER_MODULES) {
      log(`cold imports of ${module} (4 x ${importRuns} processes)`);
      const measure = async (bundleSdk: boolean) => {
        const b = await bundleHandler(module, join(work, 'lambdas'), { bundleSdk });
        return {
          bytes: b.bytes,
          mapBytes: b.mapBytes,
          importMs: await medianImportMs(node, b.file, importRuns),
          // NODE_OPTIONS as the function's environment sets it (lib/infra/workflow-function.ts).
          importMsSourceMaps: await medianImportMs(node, b.file, importRuns, '--enable-source-maps'),
        };
      };
      // What ships (bundleAwsSDK: true), then the SDK-external build it replaced.
      const shipped = await measure(true);
      bundles.push({ module, shipped, sdkExternal: await measure(false) });
    }

    const figures: WorkflowBenchFigures = {
      window,
      rowsPerDay,
      seed,
      report,
      rowLimit: ROW_LIMIT,
      runs,
      lakes,
      bundles,
      encodeWorkerBytes: workerBytes,
      importNode: node,
      importNodeVersion: await nodeVersion(node),
      importRuns,
      // Figures on a shared machine move with its load: both readings go with them.
      loadAverage: { before: loadBefore, after: loadavg()[0] as number },
    };
    printWorkflowReport(figures);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function nodeVersion(node: string): Promise<string> {
  const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  await once(child, 'close');
  return out.trim();
}

await main();
