import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../../command-line';
import { dayBefore, shiftDate } from '../../../export/window';
import type { startLocalDeployment } from '../../../local';
import type { ExecutionInput, SettingsEnvironment } from '../../../workflow';
import { InvalidInputError, type Plan, planExecution } from '../../../workflow';
import { CLI_DEFAULTS } from '../../shared/defaults';
import { acquireOutDirLock } from '../../shared/out-dir-lock';
import { type RunOutcome, runOutcome } from '../../shared/run-outcome';
import { heldInRunRecords } from '../../shared/run-records';
import { ExportProgressTracker, type ProgressSink } from './progress';
import { lakeTableDirs, type ReportDays, readReportDays } from './report-days';

/** Options of {@link runLocalExport}; every member has a default. */
export interface LocalExportOptions {
  /** Root of the local data lake. Default `./data-lake`. */
  outDir?: string;
  /** The secret a login fills (client credentials, tokens), mode 0600. Default `./.report-export/secrets.json`. */
  secretsFile?: string;
  /** First local date (YYYY-MM-DD). Default: 6 days before `to` (7 days in all). */
  from?: string;
  /** Last local date (YYYY-MM-DD), inclusive. Default: yesterday in the tenant's time zone. */
  to?: string;
  /** Generated calls per weekday in the local service. Default 2,000. */
  rowsPerDay?: number;
  /** Export only this report (id or name); default every report of the workspace. */
  reportId?: string;
  /** Gzip the CSV files. */
  csvGzip?: boolean;
  /** TABLE_CATALOG of the run: `file` (the default) or `hive`. */
  tableCatalog?: string;
  /** Replace published days even with far fewer rows (the execution input's forceReplace). */
  forceReplace?: boolean;
  /** Where progress goes (a terminal `progress()` in the CLI). */
  progress?: ProgressSink;
  /** Name the running state in the progress status (a live terminal line). */
  progressDetail?: boolean;
  /** Leases of the local workflow. Default the secret file's directory. */
  workDir?: string;
  /** Where relative paths (outDir, secretsFile, workDir) resolve. Default the process's working directory. */
  cwd?: string;
  /** Every Wait state of the state machine lasts this long here. Default 200 ms. */
  waitMs?: number;
  /** Workflow settings on top of the defaults (e.g. MAX_JOBS_PER_EXECUTION, MAX_WINDOW_DAYS). */
  settings?: SettingsEnvironment;
  /**
   * Interrupts the run: the tasks in flight abort (nothing half-published, leases released,
   * staging removed) and the returned promise rejects once they have settled.
   */
  signal?: AbortSignal;
}

export interface LocalExportResult extends RunOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  /** Error name and message of the first failure (a job's, or the execution's). */
  error: string | null;
  cause: string | null;
  outDir: string;
  secretFile: string;
  timeZone: string;
  dates: { from: string; to: string };
  /** Rows per report and day this run published (a held day is in `held`, not here). */
  reports: ReportDays[];
  /** Rows this run published. */
  rows: number;
  /** Run records Finalize wrote, relative to `outDir`. */
  runRecords: string[];
  executions: number;
  /** The lake's Iceberg tables (their directories, `<outDir>/tables/<dataset>`); empty for the Hive layout. */
  tables: string[];
  /** Extension of the CSV files: `csv`, or `csv.gz` with `csvGzip`. */
  csvExtension: 'csv' | 'csv.gz';
}

/** As lib/local's default: a chain longer than this is not run. */
const MAX_EXECUTIONS = 200;

/**
 * The main job on this machine, through the deployed workflow's own definition: starts the
 * local service, logs in (auto-approval), keeps the tokens in a local secret file, and
 * executes the synthesized state machine (lib/local) for every report over the window,
 * writing Parquet and CSV into a local data lake. Rows per report and day: readReportDays.
 */
export async function runLocalExport(options: LocalExportOptions = {}): Promise<LocalExportResult> {
  const resolve = (p: string) => (options.cwd === undefined ? path.resolve(p) : path.resolve(options.cwd, p));
  const outDir = resolve(options.outDir ?? CLI_DEFAULTS.lakeDir);
  const secretFile = resolve(options.secretsFile ?? CLI_DEFAULTS.localSecretsFile);
  const workDir = resolve(options.workDir ?? path.dirname(secretFile));
  const progress = options.progress;
  const signal = options.signal;
  // Before anything starts: a second run into the same lake is refused, not raced.
  const lock = await acquireOutDirLock(outDir);
  try {
    signal?.throwIfAborted();
    progress?.update('starting the local service and signing in');
    // Loaded on use: the engine and CDK take a second to load, which no other command pays.
    const { startLocalDeployment } = await import('../../../local/local-deployment');
    const deployment = await startLocalDeployment({
      workDir,
      secretFile,
      objectStoreUri: pathToFileURL(outDir).href,
      // Every template the local service knows, its own inventions included (summaries,
      // members the schema does not know): what a tenant's workspace holds.
      simulator: {
        rowsPerDay: options.rowsPerDay ?? CLI_DEFAULTS.rowsPerDay,
        reportLatencyMs: 300,
        extraTemplates: true,
      },
      settings: {
        ...options.settings,
        CSV_GZIP: options.csvGzip ? 'true' : 'false',
        ...(options.tableCatalog === undefined ? {} : { TABLE_CATALOG: options.tableCatalog }),
      },
      onBundling: () =>
        progress?.log(
          'building the Lambda bundles as cdk synth does (once after each change of the sources)',
        ),
      // A killed run's staging (and half-done promotion) is recovered before this one starts.
      ...(progress === undefined ? {} : { onStagingRecovery: (_, message: string) => progress.log(message) }),
    });
    try {
      return await runOnDeployment(deployment, options, { outDir, secretFile });
    } finally {
      await deployment.close();
    }
  } finally {
    await lock.release();
  }
}

type Deployment = Awaited<ReturnType<typeof startLocalDeployment>>;

async function runOnDeployment(
  deployment: Deployment,
  options: LocalExportOptions,
  paths: { outDir: string; secretFile: string },
): Promise<LocalExportResult> {
  const { outDir, secretFile } = paths;
  const { progress, signal } = options;
  const { sim } = deployment;
  progress?.log(`local service ${sim.baseUrl}; signed in as ${sim.username}; tokens in ${secretFile}`);
  signal?.throwIfAborted();
  const to = options.to ?? dayBefore(new Date(), sim.timeZoneId);
  const from = options.from ?? shiftDate(to, -(CLI_DEFAULTS.days - 1));
  const input: ExecutionInput = {
    from,
    to,
    ...(options.reportId === undefined ? {} : { reports: [options.reportId] }),
    ...(options.forceReplace === true ? { forceReplace: true } : {}),
  };
  const plans = planChainOrUsage(input, deployment, options.reportId);
  // Synthesizing the state machine (CDK) takes seconds, and building the Lambda bundles more
  // after a change of the sources: say so rather than sit silent.
  progress?.update('preparing the workflow definition');
  await deployment.prepare();
  signal?.throwIfAborted();
  const tracker = new ExportProgressTracker(
    plans.map((p) => p.jobs),
    progress,
    options.progressDetail ?? false,
  );
  progress?.update(tracker.status());
  const result = await deployment.run(input, {
    waitMs: options.waitMs ?? CLI_DEFAULTS.localWaitMs,
    name: 'start',
    maxExecutions: MAX_EXECUTIONS,
    ...(signal === undefined ? {} : { signal }),
    onEvent: (event, execution) => tracker.onEvent(event, deployment.logLines, execution),
  });
  tracker.finish(deployment.logLines);
  const reports = await readReportDays(outDir, plans, { from, to }, tracker.requestIds);
  const failed = result.executions.find((e) => e.status === 'FAILED');
  const runRecords = result.summaries.map((s) => s.runRecordKey);
  const outcome = runOutcome(result.summaries);
  // Finalize's output lists only the first held partitions (it travels in the state): the
  // run records list every one.
  const held = await heldInRunRecords(runRecords, (key) => fs.readFile(path.join(outDir, key), 'utf8'));
  if (held !== undefined) outcome.held = held;
  return {
    status: result.status,
    error: result.error,
    cause: failed?.cause ?? result.summaries.find((s) => s.cause !== null)?.cause ?? null,
    outDir,
    secretFile: deployment.secretFile,
    timeZone: sim.timeZoneId,
    dates: { from, to },
    reports,
    rows: reports.reduce((n, r) => n + r.rows, 0),
    runRecords,
    executions: result.executions.length,
    tables: await lakeTableDirs(outDir),
    csvExtension: options.csvGzip ? 'csv.gz' : 'csv',
    ...outcome,
  };
}

/**
 * The plans of every execution of the chain (Plan continues a long range in new executions),
 * before any report runs, so progress counts the whole range.
 */
function planChainOrUsage(
  input: ExecutionInput,
  deployment: { runtime: { settings: Parameters<typeof planExecution>[1] } },
  report: string | undefined,
): Plan[] {
  const plans = [planOrUsage(input, deployment, report)];
  for (let next = plans[0]?.continuation; next !== undefined; ) {
    if (plans.length >= MAX_EXECUTIONS) {
      throw new UsageError(
        `--from/--to: the range needs more than ${MAX_EXECUTIONS} executions; export it in parts or use backfill`,
      );
    }
    const plan = planOrUsage(next, deployment, report);
    plans.push(plan);
    next = plan.continuation;
  }
  return plans;
}

/** The plan Plan would make, before any report runs: an unknown report or a bad range is the user's to fix (exit 2). */
function planOrUsage(
  input: ExecutionInput,
  deployment: { runtime: { settings: Parameters<typeof planExecution>[1] } },
  report: string | undefined,
): Plan {
  try {
    return planExecution(input, deployment.runtime.settings, { executionName: 'start-preview' });
  } catch (cause) {
    // Only the input is the user's to fix; anything else (settings) is a failure, exit 1.
    if (!(cause instanceof InvalidInputError)) throw cause;
    const message = cause.message;
    if (report !== undefined && message.startsWith('reports:')) {
      throw new UsageError(`--report '${report}' is not a report of the workspace (${message})`, { cause });
    }
    throw new UsageError(`--from/--to: ${message}`, { cause });
  }
}
