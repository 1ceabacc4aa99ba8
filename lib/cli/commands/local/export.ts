import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dayBefore, shiftDate } from '../../../calendar';
import { UsageError } from '../../../command-line';
import type { startLocalDeployment } from '../../../local';
import type { ExecutionInput, RunRecord, SettingsEnvironment, WorkflowSettings } from '../../../workflow';
import { InvalidInputError, type Plan, parseRunRecord, planExecution } from '../../../workflow';
import { CLI_DEFAULTS } from '../../shared/defaults';
import { acquireOutDirLock, type OutDirLock } from '../../shared/out-dir-lock';
import { type RunOutcome, runOutcome } from '../../shared/run-outcome';
import { heldInRecords } from '../../shared/run-records';
import { type TenantContacts, tenantContacts } from './contacts-summary';
import { type ExportTenant, exportTenants, missingLogin, selectTenants } from './export-tenants';
import { removeOrphanDataFiles } from './orphan-files';
import { ExportProgressTracker, type ProgressSink } from './progress';
import { lakeTableDirs, type ReportDays, readReportDays } from './report-days';
import { TenantLogLines } from './tenant-log-lines';

/** Options of {@link runLocalExport}; every member has a default. */
export interface LocalExportOptions {
  /** Root of the local data lake. Default `./data-lake`. */
  outDir?: string;
  /**
   * Its directory keeps the local deployment's state: the tenant registry (`tenants/`), each
   * tenant's secret (`secrets/<id>.json`, mode 0600) and the leases. Default `./.report-export/secrets.json`.
   */
  secretsFile?: string;
  /** Export only this tenant of the local service (its id); default every tenant. */
  tenant?: string;
  /** First local date (YYYY-MM-DD). Default: 6 days before `to` (7 days in all). */
  from?: string;
  /** Last local date (YYYY-MM-DD), inclusive. Default: yesterday in each tenant's time zone. */
  to?: string;
  /** Generated calls per weekday in the local service. Default 2,000. */
  rowsPerDay?: number;
  /** Export only this report (id or name); default every report of each tenant's registry entry. */
  reportId?: string;
  /** Gzip the CSV files. */
  csvGzip?: boolean;
  /** TABLE_CATALOG of the run: `file` (the default) or `hive`. */
  tableCatalog?: string;
  /** Replace published days even with far fewer rows (the execution input's forceReplace). */
  forceReplace?: boolean;
  /**
   * An intraday refresh (the execution input's `intraday`): today so far in each tenant's zone,
   * provisional until the day ends there; not with `from`/`to`.
   */
  intraday?: boolean;
  /**
   * The contact directories (the execution input's `contacts`): `sync` them beside the
   * reports (the default), `skip` them, or sync `only` them (no report, no dates).
   */
  contacts?: 'sync' | 'skip' | 'only';
  /**
   * Checks `--from`/`--to` in a tenant's zone (days are local to it) before any report runs:
   * throws to refuse them (a UsageError), returns a warning to print (a partial day).
   */
  checkDates?: (dates: { from?: string; to?: string }, timeZone: string) => string | undefined;
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

/** One tenant's export: its executions, what they published, held and left partial. */
export interface TenantExportResult extends RunOutcome {
  /** The tenant's id in the registry, and its name. */
  tenant: string;
  tenantName: string;
  status: 'SUCCEEDED' | 'FAILED';
  /** Error name and message of the first failure (a job's, or the execution's). */
  error: string | null;
  cause: string | null;
  /** The tenant's secret file. */
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
  /** The contact directories' sync of the run; null when it synced none (`contacts: skip`, a failure before). */
  contacts: TenantContacts | null;
}

export interface LocalExportResult {
  /** FAILED when any tenant failed. */
  status: 'SUCCEEDED' | 'FAILED';
  /** The tenants that failed, by id. */
  failedTenants: string[];
  /** Each tenant exported, in the registry's order. */
  tenants: TenantExportResult[];
  /** Rows this run published, over every tenant. */
  rows: number;
  /** Partitions the shrink guard held, over every tenant. */
  heldPartitions: number;
  outDir: string;
  /** The deployment's state: the tenant registry (`tenants/`) and secrets (`secrets/`). */
  stateDir: string;
  /** The lake's Iceberg tables (their directories, `<outDir>/tables/<dataset>`); empty for the Hive layout. */
  tables: string[];
  /** Extension of the CSV files: `csv`, or `csv.gz` with `csvGzip`. */
  csvExtension: 'csv' | 'csv.gz';
  /** `contacts: only`: the run synced the directories alone (no report). */
  contactsOnly: boolean;
}

/** As lib/local's default: a chain longer than this is not run. */
const MAX_EXECUTIONS = 200;

/**
 * Tenants whose executions run at once: a local tenant's night is a few reports, so three
 * keep the two shared cores busy without one tenant waiting for all the others.
 */
export const TENANT_CONCURRENCY = 3;

type Deployment = Awaited<ReturnType<typeof startLocalDeployment>>;

/**
 * The main job on this machine, through the deployed workflow's own definition: starts the
 * local service with its tenants, logs each in (auto-approval, its own user), keeps its
 * tokens in its secret file and its settings in the local tenant registry, and executes the
 * synthesized state machine (lib/local) once per tenant, a few tenants at a time, for every
 * report of the tenant over the window of its local dates, into one lake. A tenant that
 * fails does not stop the others. Rows per report and day: readReportDays.
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
  let serviceLock: OutDirLock | undefined;
  try {
    // Loaded on use: the engine and CDK take a second to load, which no other command pays.
    const { keptServiceOptions, LOCAL_SERVICE_DIR } = await import('../../../local/kept-service');
    // And the local service's kept state: a `directory` command serving it meanwhile would
    // write it behind this run's back (or this run behind the command's).
    serviceLock = await acquireOutDirLock(path.join(workDir, LOCAL_SERVICE_DIR));
    signal?.throwIfAborted();
    progress?.update('starting the local service and signing its tenants in');
    const { startLocalDeployment } = await import('../../../local/local-deployment');
    const deployment = await startLocalDeployment({
      workDir,
      tenancy: 'multi',
      objectStoreUri: pathToFileURL(outDir).href,
      // Every template the local service knows, its own inventions included (summaries,
      // members the schema does not know): what a tenant's workspace holds.
      simulator: {
        rowsPerDay: options.rowsPerDay ?? CLI_DEFAULTS.rowsPerDay,
        reportLatencyMs: 300,
        // Its directories change as days pass and keep their API writes between runs.
        ...keptServiceOptions(workDir),
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
    let result: LocalExportResult;
    try {
      result = await runOnDeployment(deployment, options, { outDir, stateDir: workDir });
    } finally {
      await deployment.close();
    }
    // The lake's maintenance, as Glue's optimizers do it in AWS: data files no snapshot names.
    for (const { table, removed } of await removeOrphanDataFiles(outDir)) {
      if (removed.length > 0)
        progress?.log(`${table}: removed ${removed.length} data file(s) no snapshot names (orphans)`);
    }
    return result;
  } finally {
    await serviceLock?.release();
    await lock.release();
  }
}

async function runOnDeployment(
  deployment: Deployment,
  options: LocalExportOptions,
  paths: { outDir: string; stateDir: string },
): Promise<LocalExportResult> {
  const { outDir } = paths;
  const { progress, signal } = options;
  // The local service's tenants and those added to the registry (tenants add, tenants login).
  const every = await exportTenants(deployment.tenants, paths.stateDir, (id, message) =>
    progress?.log(`${id}: skipped, its registry entry is invalid: ${message}`),
  );
  const tenants = selectTenants(every, options.tenant);
  // A tenant disabled in the registry has no nightly run, and none here unless named.
  for (const t of every.filter((t) => !t.entry.enabled && options.tenant === undefined)) {
    progress?.log(
      `${t.id}: disabled in the registry (${path.join(paths.stateDir, 'tenants', `${t.id}.json`)}): skipped`,
    );
  }
  progress?.log(
    `local service ${deployment.sim.baseUrl}; tenants ${tenants.map((t) => `${t.id} (${t.entry.timeZone}, ${t.signedIn})`).join(', ')}; state in ${paths.stateDir}`,
  );
  signal?.throwIfAborted();
  // Every tenant's plans before any report runs: what the command line asks must be
  // possible for each (exit 2), and progress counts the whole range.
  const planned = await Promise.all(tenants.map((t) => planTenant(deployment, t, options)));
  // Synthesizing the state machine (CDK) takes seconds, and building the Lambda bundles more
  // after a change of the sources: say so rather than sit silent.
  progress?.update('preparing the workflow definition');
  await deployment.prepare();
  signal?.throwIfAborted();
  const lines = new TenantLogLines(deployment.logLines);
  const results = await forEachBounded(planned, TENANT_CONCURRENCY, (p) =>
    runTenant(deployment, p, options, { outDir, lines }),
  );
  const failed = results.filter((r) => r.status === 'FAILED');
  return {
    status: failed.length === 0 ? 'SUCCEEDED' : 'FAILED',
    failedTenants: failed.map((r) => r.tenant),
    tenants: results,
    rows: results.reduce((n, r) => n + r.rows, 0),
    heldPartitions: results.reduce((n, r) => n + r.heldPartitions, 0),
    outDir,
    stateDir: paths.stateDir,
    tables: await lakeTableDirs(outDir),
    csvExtension: options.csvGzip ? 'csv.gz' : 'csv',
    contactsOnly: options.contacts === 'only',
  };
}

/** A tenant's input and the plans of its chain. */
interface TenantPlan {
  tenant: ExportTenant;
  input: ExecutionInput;
  dates: { from: string; to: string };
  plans: Plan[];
}

async function planTenant(
  deployment: Deployment,
  tenant: ExportTenant,
  options: LocalExportOptions,
): Promise<TenantPlan> {
  if (options.from !== undefined || options.to !== undefined) {
    const asked = {
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
    };
    const warning = options.checkDates?.(asked, tenant.entry.timeZone);
    if (warning !== undefined) options.progress?.log(`${tenant.id}: ${warning}`);
  }
  const to = options.to ?? dayBefore(new Date(), tenant.entry.timeZone);
  const from = options.from ?? shiftDate(to, -(CLI_DEFAULTS.days - 1));
  const force = options.forceReplace === true ? { forceReplace: true } : {};
  const reports = {
    ...(options.reportId === undefined ? {} : { reports: [options.reportId] }),
    ...force,
    ...(options.contacts === undefined ? {} : { contacts: options.contacts }),
  };
  const input: ExecutionInput =
    options.contacts === 'only'
      ? { tenant: tenant.id, contacts: 'only', ...force }
      : options.intraday === true
        ? { tenant: tenant.id, intraday: true, ...reports }
        : { tenant: tenant.id, from, to, ...reports };
  const settings = (await deployment.runtime.forTenant(tenant.id)).settings;
  const plans = planChainOrUsage(input, settings, { report: options.reportId, tenant: tenant.id });
  // An intraday refresh's days are the plan's (today in the tenant's zone, as it starts).
  const dates = options.intraday === true ? (plans[0]?.dates ?? { from, to }) : { from, to };
  return { tenant, input, dates, plans };
}

/**
 * Runs `work` on every item, at most `limit` at once; the results in the items' order. A
 * rejection (an interruption) starts no further item and is thrown once every item in
 * flight has settled: their tasks clean up (leases, staging) before the deployment closes.
 */
async function forEachBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      const i = next++;
      try {
        results[i] = await work(items[i] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/** A sink whose lines and status name the tenant. */
function tenantSink(sink: ProgressSink | undefined, tenant: string): ProgressSink | undefined {
  if (sink === undefined) return undefined;
  return {
    update: (text) => sink.update(`${tenant}: ${text}`),
    log: (line) => sink.log(`${tenant}: ${line}`),
  };
}

/**
 * One tenant's chain of executions and what it published. A failure of the tenant's run
 * (anything but an interruption) is its result, FAILED, so the other tenants go on.
 */
async function runTenant(
  deployment: Deployment,
  planned: TenantPlan,
  options: LocalExportOptions,
  shared: { outDir: string; lines: TenantLogLines },
): Promise<TenantExportResult> {
  const { tenant, input, dates, plans } = planned;
  const { outDir } = shared;
  const signal = options.signal;
  const progress = tenantSink(options.progress, tenant.id);
  const base = {
    tenant: tenant.id,
    tenantName: tenant.entry.name,
    secretFile: tenant.secretFile,
    timeZone: tenant.entry.timeZone,
    dates,
  };
  const tracker = new ExportProgressTracker(
    plans.map((p) => p.jobs),
    progress,
    options.progressDetail ?? false,
  );
  const logLines = shared.lines.of(tenant.id);
  progress?.update(tracker.status());
  // An added tenant not signed in yet fails alone, saying how to sign it in.
  const noLogin = await missingLogin(tenant);
  if (noLogin !== undefined) return failedTenant(base, 'LoginRequiredError', noLogin);
  try {
    const result = await deployment.run(input, {
      waitMs: options.waitMs ?? CLI_DEFAULTS.localWaitMs,
      name: `start-${tenant.id}`,
      maxExecutions: MAX_EXECUTIONS,
      ...(signal === undefined ? {} : { signal }),
      onEvent: (event, execution) => tracker.onEvent(event, logLines(), execution),
    });
    tracker.finish(logLines());
    const reports = await readReportDays(outDir, plans, dates, tracker.requestIds, tenant.id);
    const failed = result.executions.find((e) => e.status === 'FAILED');
    const runRecords = result.summaries.map((s) => s.runRecordKey);
    const outcome = runOutcome(result.summaries);
    // Finalize's output lists only the first held partitions (it travels in the state): the
    // run records list every one.
    const records = await Promise.all(
      runRecords.map(async (k) =>
        parseRunRecord(await fs.readFile(path.join(outDir, k), 'utf8').catch(() => '')),
      ),
    );
    const held = heldInRecords(records);
    if (held !== undefined) outcome.held = held;
    return {
      ...base,
      status: result.status,
      error: result.error,
      cause: failed?.cause ?? result.summaries.find((s) => s.cause !== null)?.cause ?? null,
      reports,
      rows: reports.reduce((n, r) => n + r.rows, 0),
      runRecords,
      executions: result.executions.length,
      contacts: tenantContacts(records.filter((r): r is RunRecord => typeof r !== 'string')),
      ...outcome,
    };
  } catch (error) {
    if (signal?.aborted) throw error;
    const e = error instanceof Error ? error : new Error(String(error));
    return failedTenant(base, e.name, e.message);
  }
}

/** A tenant's result when its run failed before publishing anything. */
function failedTenant(
  base: Pick<TenantExportResult, 'tenant' | 'tenantName' | 'secretFile' | 'timeZone' | 'dates'>,
  error: string,
  cause: string,
): TenantExportResult {
  return {
    ...base,
    status: 'FAILED',
    error,
    cause,
    reports: [],
    rows: 0,
    runRecords: [],
    executions: 0,
    contacts: null,
    ...runOutcome([]),
  };
}

/**
 * The plans of every execution of the chain (Plan continues a long range in new executions),
 * before any report runs, so progress counts the whole range.
 */
function planChainOrUsage(
  input: ExecutionInput,
  settings: WorkflowSettings,
  context: { report: string | undefined; tenant: string },
): Plan[] {
  const plans = [planOrUsage(input, settings, context)];
  for (let next = plans[0]?.continuation; next !== undefined; ) {
    if (plans.length >= MAX_EXECUTIONS) {
      throw new UsageError(
        `--from/--to: the range needs more than ${MAX_EXECUTIONS} executions; export it in parts or use backfill`,
      );
    }
    const plan = planOrUsage(next, settings, context);
    plans.push(plan);
    next = plan.continuation;
  }
  return plans;
}

/** The plan Plan would make, before any report runs: an unknown report or a bad range is the user's to fix (exit 2). */
function planOrUsage(
  input: ExecutionInput,
  settings: WorkflowSettings,
  context: { report: string | undefined; tenant: string },
): Plan {
  try {
    return planExecution(input, settings, { executionName: 'start-preview' });
  } catch (cause) {
    // Only the input is the user's to fix; anything else (settings) is a failure, exit 1.
    if (!(cause instanceof InvalidInputError)) throw cause;
    const message = cause.message;
    if (context.report !== undefined && message.startsWith('reports:')) {
      throw new UsageError(
        `--report '${context.report}' is not a report of tenant ${context.tenant}'s workspace (${message}); --tenant exports one tenant`,
        { cause },
      );
    }
    throw new UsageError(`--from/--to: ${message}`, { cause });
  }
}
