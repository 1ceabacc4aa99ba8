/**
 * Contestants 2 and 3 of the end-to-end bench (bench/e2e.ts), in a process of their own
 * (started by it, not by hand): the synthesized state machine run locally (lib/local), each
 * Lambda function's bundle in its own processes (lib/local/function-processes.ts), from the
 * local service (in this process, as startLocalDeployment has it) into
 *
 *   --store dir  a local directory (OBJECT_STORE_URI file://<lake>)
 *   --store s3   S3 on fauxqs (s3://<bucket>/lake; the server runs in a process of its own)
 *
 * The functions' processes are started through a small wrapper (--export-cpus,
 * --rest-cpus): ExportResults' process is pinned to the export CPUs with `taskset`, every
 * other function's process to the rest (this process is pinned by the parent). So "one core"
 * is ExportResults alone on CPU 0 (a Lambda at 1,769 MB) while the service, the runner and
 * S3 work on the other CPU, as they would outside the function in AWS.
 *
 * Per process: this one (the engine, the local service: it generates and compresses the
 * result), and each function's (CPU seconds and peak RSS from /proc, read after the
 * execution while the environments are still warm: bench/proc-stats.ts). The export
 * core's phase log lines (`export phase <name> done`, lib/export/phases.ts) of the
 * ExportResults process and the time of each state give the by-stage breakdown.
 *
 * Args: --store dir|s3 (--lake DIR | --endpoint URL --bucket B) --from D --to D
 *       --rows-per-day N --seed N --report NAME --export-cpus LIST|all --rest-cpus LIST|all
 * Last stdout line: {"contestant":..,"rows":..,"seconds":..,"rows_per_s":..,"processes":{..},
 *                    "phases_ms":{..},"state_seconds":{..},...}
 */
import { writeFileSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STATE_NAMES } from '../lib/infra/state-names';
import { lambdaAssets } from '../lib/local/lambda-assets';
import { startLocalDeployment } from '../lib/local/local-deployment';
import { createS3Client } from '../lib/stores/s3-store';
import { childPids, procStats } from './proc-stats';
import { requireSucceeded, stateTimer } from './state-timing';

/** The local runner's Wait and Retry intervals. */
const LOCAL_WAIT_MS = 20;

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const store = arg('store');
if (store !== 'dir' && store !== 's3') throw new Error('--store must be dir or s3');

function log(message: string): void {
  process.stderr.write(`[e2e ${store}] ${message}\n`);
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

/**
 * The functions' Node: a shell script that pins ExportResults' process (its bundle
 * directory holds encode-worker.mjs, lib/local/lambda-assets.ts) to one CPU list and every
 * other function's to another, then execs this Node (the pid stays the child's).
 */
async function pinningNode(dir: string, exportCpus: string, restCpus: string): Promise<string> {
  const run = (cpus: string) =>
    cpus === 'all'
      ? `exec ${JSON.stringify(process.execPath)} "$@"`
      : `exec taskset -c ${cpus} ${JSON.stringify(process.execPath)} "$@"`;
  // fork() runs: <node> [execArgv] <lambda-host.mjs> <bundle dir>/index.mjs <handler>
  const script = [
    '#!/bin/sh',
    'for a in "$@"; do',
    '  case "$a" in',
    `    */index.mjs) if [ -f "\${a%/index.mjs}/encode-worker.mjs" ]; then ${run(exportCpus)}; fi ;;`,
    '  esac',
    'done',
    run(restCpus),
    '',
  ].join('\n');
  const file = join(dir, 'node-pinned.sh');
  await writeFile(file, script);
  await chmod(file, 0o755);
  return file;
}

/** `{"message":"export phase read done","ms":..}` lines of the ExportResults process, in order. */
function phases(lines: readonly string[]): { name: string; ms: number; rssMb: number }[] {
  const out: { name: string; ms: number; rssMb: number }[] = [];
  for (const line of lines) {
    if (!line.includes('export phase')) continue;
    try {
      const entry = JSON.parse(line) as { message?: string; ms?: number; rssMb?: number };
      const name = /^export phase (\S+) done$/.exec(entry.message ?? '')?.[1];
      if (name !== undefined && typeof entry.ms === 'number')
        out.push({ name, ms: entry.ms, rssMb: entry.rssMb ?? 0 });
    } catch {
      // not a JSON line
    }
  }
  return out;
}

async function main(): Promise<void> {
  const workDir = join(tmpdir(), `report-export-bench-e2e-${store}-${process.pid}`);
  await mkdir(workDir, { recursive: true });
  const client =
    store === 's3'
      ? createS3Client({
          endpoint: arg('endpoint'),
          region: 'us-east-1',
          forcePathStyle: true,
          credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
          maxAttempts: 2,
        })
      : undefined;
  const deployment = await startLocalDeployment({
    workDir,
    objectStoreUri: store === 's3' ? `s3://${arg('bucket')}/lake` : pathToFileURL(arg('lake')).href,
    ...(client === undefined ? {} : { s3: () => client, s3Endpoint: arg('endpoint') }),
    simulator: { reportLatencyMs: 0, rowsPerDay: Number(arg('rows-per-day')), seed: Number(arg('seed')) },
    // One job over the whole window (a 28-day window needs more than the default 7).
    settings: { MAX_WINDOW_DAYS: '31' },
    nodePath: await pinningNode(workDir, arg('export-cpus'), arg('rest-cpus')),
    onBundling: () => log('bundling the functions (the sources changed)'),
  });
  try {
    // Synthesis and bundling are not part of an execution: done before the clock starts.
    const prepared = await deployment.prepare();
    const exportId = prepared.workflow.taskFunctions[STATE_NAMES.exportResults];
    if (exportId === undefined) throw new Error('no function for ExportResults');
    const memorySizeMb = prepared.workflow.functions[exportId]?.memorySizeMb;
    const assets = await lambdaAssets();
    const functionOfDir = new Map(Object.entries(assets).map(([id, dir]) => [dir, id]));
    const statesOf = (id: string) =>
      Object.entries(prepared.workflow.taskFunctions)
        .filter(([, f]) => f === id)
        .map(([s]) => s);

    // This process's peak RSS from here on, not synthesis's (CDK): Linux resets VmHWM on "5".
    let runnerPeakSince = 'the execution';
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      runnerPeakSince = 'the process start (synthesis included)';
    }
    const runnerRssAtStart = Math.round(process.memoryUsage.rss() / 1048576);
    const { onEvent, stateMs } = stateTimer(log);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await deployment.run(
      { from: arg('from'), to: arg('to'), reports: [arg('report')] },
      { waitMs: LOCAL_WAIT_MS, retryMs: LOCAL_WAIT_MS, name: 'bench', onEvent },
    );
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    requireSucceeded(result, deployment);

    // The functions' processes, still warm: CPU since their start, peak RSS since exec.
    const functions: Record<string, Record<string, unknown>> = {};
    for (const pid of childPids(process.pid)) {
      const s = procStats(pid);
      if (s === undefined || !s.argv.some((a) => a.endsWith('lambda-host.mjs'))) continue;
      const bundle = s.argv.find((a) => a.endsWith('/index.mjs'));
      if (bundle === undefined) continue;
      const id = functionOfDir.get(dirname(bundle)) ?? dirname(bundle);
      const name = id === exportId ? 'ExportResults' : statesOf(id).join('+') || id;
      const prior = functions[name];
      functions[name] = {
        processes: Number(prior?.processes ?? 0) + 1,
        cpu_seconds: Number((Number(prior?.cpu_seconds ?? 0) + s.cpuSeconds).toFixed(2)),
        peak_rss_mb: Math.max(Number(prior?.peak_rss_mb ?? 0), s.peakRssMb),
        cpus_allowed: s.cpusAllowed,
      };
    }
    const exportProcess = functions.ExportResults;
    if (exportProcess === undefined) throw new Error('the ExportResults process was not found in /proc');
    const others = Object.entries(functions).filter(([n]) => n !== 'ExportResults');
    const runnerCpu = (cpu.user + cpu.system) / 1e6;
    const functionsCpu = Object.values(functions).reduce((n, f) => n + Number(f.cpu_seconds), 0);
    const sum = (k: 'rows' | 'files' | 'bytes' | 'partitions' | 'jobs') =>
      result.summaries.reduce((n, s) => n + s[k], 0);
    const rows = sum('rows');
    const phaseList = phases(deployment.logLines);
    process.stdout.write(
      `${JSON.stringify({
        contestant: store === 's3' ? 'workflow-s3' : 'workflow-dir',
        export_cpus: arg('export-cpus'),
        rest_cpus: arg('rest-cpus'),
        rows,
        partitions: sum('partitions'),
        files: sum('files'),
        bytes: sum('bytes'),
        jobs: sum('jobs'),
        executions: result.executions.length,
        seconds: seconds(elapsedMs),
        rows_per_s: Math.round(rows / (elapsedMs / 1000)),
        // Every process of the contestant but the S3 server (the parent measures that one).
        cpu_seconds: Number((runnerCpu + functionsCpu).toFixed(2)),
        processes: {
          runner: {
            what: 'state machine engine + local service',
            cpu_seconds: Number(runnerCpu.toFixed(2)),
            peak_rss_mb:
              procStats(process.pid)?.peakRssMb ?? Math.round(process.resourceUsage().maxRSS / 1024),
            peak_rss_since: runnerPeakSince,
            rss_at_start_mb: runnerRssAtStart,
          },
          export_results: { ...exportProcess, memory_size_mb: memorySizeMb },
          other_functions: {
            what: others.map(([n]) => n).join(', '),
            cpu_seconds: Number(others.reduce((n, [, f]) => n + Number(f.cpu_seconds), 0).toFixed(2)),
            peak_rss_mb: Math.max(0, ...others.map(([, f]) => Number(f.peak_rss_mb))),
          },
          functions,
        },
        phases_ms: Object.fromEntries(phaseList.map((p) => [p.name, p.ms])),
        phases_rss_mb: Object.fromEntries(phaseList.map((p) => [p.name, p.rssMb])),
        state_seconds: Object.fromEntries(Object.entries(stateMs).map(([k, v]) => [k, seconds(v)])),
      })}\n`,
    );
  } finally {
    await deployment.close();
    client?.destroy();
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
