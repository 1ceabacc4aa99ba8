/**
 * One contestant of bench/workflow.ts, in its own process (started by it, not by hand):
 *
 *   --mode workflow  the synthesized state machine run locally (lib/local): Plan ->
 *                    RequestReport -> Wait -> CheckStatus -> ExportResults -> Finalize
 *   --mode direct    the export core called directly: requestReport -> waitForCompletion
 *                    -> openResult -> exportReportResult
 *
 * Both start the same local service in-process through startLocalDeployment (same
 * options and seed, same login, same handlers' runtime: the same client, S3 store on
 * fauxqs and settings), so the only difference is the orchestration. The S3 server runs
 * in the parent process, so this process's peak RSS is the contestant's plus the service's.
 *
 * Args: --mode M --endpoint URL --bucket B --from YYYY-MM-DD --to YYYY-MM-DD
 *       --rows-per-day N --seed N --report NAME --definition FILE (workflow only)
 * Last stdout line: {"contestant",...,"rows","seconds","rows_per_s","peak_rss_mb",...}
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { datesOfWindow, toReportPeriod, windowForDates } from '../lib/calendar';
import { exportReportResult } from '../lib/export/index';
import type { StateMachineDefinition } from '../lib/local/definition';
import { type LocalDeployment, startLocalDeployment } from '../lib/local/local-deployment';
import { createS3Client } from '../lib/stores/s3-store';
import { requireSucceeded, stateTimer } from './state-timing';

/** The local runner's Wait and Retry intervals; direct polling uses the same. */
const LOCAL_WAIT_MS = 20;

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

function log(message: string): void {
  process.stderr.write(`[${arg('mode')}] ${message}\n`);
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(3));
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

interface Measured {
  elapsedMs: number;
  rows: number;
  files: number;
  bytes: number;
  partitions: number;
  /** What each contestant adds to its line. */
  extra: Record<string, unknown>;
}

async function runWorkflow(d: LocalDeployment, reportName: string): Promise<Measured> {
  // Synthesized once by the parent: CDK synthesis is not part of an execution.
  const definition = JSON.parse(await readFile(arg('definition'), 'utf8')) as StateMachineDefinition;
  const { onEvent, stateMs } = stateTimer(log);
  const started = performance.now();
  const result = await d.run(
    { from: arg('from'), to: arg('to'), reports: [reportName] },
    { definition, waitMs: LOCAL_WAIT_MS, retryMs: LOCAL_WAIT_MS, name: 'bench', onEvent },
  );
  const elapsed = performance.now() - started;
  requireSucceeded(result, d);
  const sum = (k: 'rows' | 'files' | 'bytes' | 'partitions') =>
    result.summaries.reduce((n, s) => n + s[k], 0);
  return {
    elapsedMs: elapsed,
    rows: sum('rows'),
    files: sum('files'),
    bytes: sum('bytes'),
    partitions: sum('partitions'),
    extra: {
      jobs: result.summaries.reduce((n, s) => n + s.jobs, 0),
      executions: result.executions.length,
      history_events: result.executions[0]?.historyEvents ?? 0,
      history_events_total: result.executions.reduce((n, e) => n + e.historyEvents, 0),
      state_seconds: Object.fromEntries(Object.entries(stateMs).map(([k, v]) => [k, seconds(v)])),
    },
  };
}

async function runDirect(d: LocalDeployment, reportName: string): Promise<Measured> {
  const report = d.reports.find((r) => r.name === reportName);
  if (report === undefined) throw new Error(`the service has no report named ${reportName}`);
  const zone = d.sim.timeZoneId;
  const window = windowForDates(arg('from'), arg('to'), zone);
  const started = performance.now();
  // The handlers' own client and store: what differs from the workflow is only the orchestration.
  const api = await d.runtime.client();
  const run = await api.reporting.requestReport({ reportId: report.id, period: toReportPeriod(window) });
  const ref = { reportId: report.id, requestId: run.requestId };
  await api.reporting.waitForCompletion(ref, { pollIntervalMs: LOCAL_WAIT_MS, maxPolls: 200 });
  const ready = performance.now();
  const source = await api.reporting.openResult(ref);
  const s = d.runtime.settings;
  const prefix = d.runtime.objects.prefix;
  const summary = await exportReportResult({
    source,
    store: d.runtime.objects.store,
    reportId: report.id,
    ...(prefix === '' ? {} : { prefix }),
    csvGzip: s.csvGzip,
    parquetCodec: s.parquetCodec,
    window,
    windowDates: datesOfWindow(window, zone),
    logger: d.runtime.logger,
  });
  const elapsed = performance.now() - started;
  return {
    elapsedMs: elapsed,
    rows: summary.rows,
    files: summary.files,
    bytes: summary.bytes,
    partitions: summary.partitions.length,
    extra: {
      request_and_wait_seconds: seconds(ready - started),
      export_seconds: seconds(elapsed - (ready - started)),
    },
  };
}

async function main(): Promise<void> {
  const mode = arg('mode');
  if (mode !== 'workflow' && mode !== 'direct') throw new Error('--mode must be workflow or direct');
  const bucket = arg('bucket');
  const client = createS3Client({
    endpoint: arg('endpoint'),
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 2,
  });
  const workDir = join(tmpdir(), `report-export-bench-workflow-${mode}-${process.pid}`);
  const deployment = await startLocalDeployment({
    workDir,
    objectStoreUri: `s3://${bucket}/lake`,
    s3: () => client,
    // The functions run in processes of their own (their bundles): they reach S3 by endpoint.
    s3Endpoint: arg('endpoint'),
    simulator: {
      reportLatencyMs: 0,
      rowsPerDay: Number(arg('rows-per-day')),
      seed: Number(arg('seed')),
    },
    // One job over the whole window (a 28-day window needs more than the default 7).
    settings: { MAX_WINDOW_DAYS: '31' },
  });
  try {
    const rssBefore = process.memoryUsage().rss;
    // Garbage collection time: the workflow's process also holds the engine and CDK's
    // state names module, a larger heap for every collection to mark.
    let gcMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcMs += entry.duration;
    });
    gc.observe({ entryTypes: ['gc'] });
    const cpuBefore = process.cpuUsage();
    const m =
      mode === 'workflow'
        ? await runWorkflow(deployment, arg('report'))
        : await runDirect(deployment, arg('report'));
    const cpu = process.cpuUsage(cpuBefore);
    gc.disconnect();
    process.stdout.write(
      `${JSON.stringify({
        contestant: mode,
        rows: m.rows,
        partitions: m.partitions,
        files: m.files,
        bytes: m.bytes,
        ...m.extra,
        seconds: seconds(m.elapsedMs),
        rows_per_s: Math.round(m.rows / (m.elapsedMs / 1000)),
        cpu_seconds: seconds((cpu.user + cpu.system) / 1000),
        gc_seconds: seconds(gcMs),
        rss_before_mb: mb(rssBefore),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      })}\n`,
    );
  } finally {
    await deployment.close();
    client.destroy();
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
