import { ConfigError, parseCommandLine, UsageError } from '../../../command-line';
import { DATASETS } from '../../../export';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { refuseWithContactsOnly } from '../../shared/execution-input-options';
import { partialDayWarning, refuseFutureDates } from '../../shared/future-dates';
import { INTERRUPTED_EXIT_CODE } from '../../shared/interrupt';
import type { IOStreams } from '../../shared/io-streams';
import { reserveStdout } from '../../shared/json-output';
import { openLake } from '../../shared/lake-database';
import { checkedLocalDir } from '../../shared/out-location';
import { outcomeWarnings, runExitCode } from '../../shared/run-outcome';
import { colors, isInteractive, progress } from '../../shared/terminal';
import { type CallSummary, summarizeCalls, summarizeSummaryReports } from './call-summary';
import { type ContactMatches, contactMatches } from './contacts-summary';
import type { LocalExportOptions, LocalExportResult } from './export';
import { type LocalReadBack, renderLocalExportReport } from './report';
import { LOCAL_EXPORT_COMMAND, LOCAL_EXPORT_USAGE } from './spec';
import { renderTenantsSummaryPage, writeSummaryPage, writtenTenantSections } from './summary-page';

export { UsageError } from '../../../command-line';

/**
 * Workflow settings the environment may override (not advertised: tests use them to force a
 * long range into several executions cheaply), e.g. REPORT_EXPORT_MAX_JOBS_PER_EXECUTION=3.
 */
const SETTING_VARIABLES = ['MAX_JOBS_PER_EXECUTION', 'MAX_WINDOW_DAYS'] as const;

/** The settings of {@link SETTING_VARIABLES} set in `env`; throws ConfigError naming a bad one. */
function workflowSettingsFromEnv(
  env: IOStreams['env'],
): Partial<Record<(typeof SETTING_VARIABLES)[number], string>> {
  const settings: Partial<Record<(typeof SETTING_VARIABLES)[number], string>> = {};
  for (const name of SETTING_VARIABLES) {
    const raw = env[`REPORT_EXPORT_${name}`];
    if (raw === undefined || raw === '') continue;
    if (!/^[1-9]\d{0,3}$/.test(raw)) {
      throw new ConfigError(`REPORT_EXPORT_${name} must be an integer from 1 to 9999, got '${raw}'`);
    }
    settings[name] = raw;
  }
  return settings;
}

/** Parsed command line: the run's options and how to print. */
type LocalExportArgs = LocalExportOptions & { json?: boolean };

/**
 * Parses argv of the local export command, with the workflow settings `env` (the command's
 * environment) overrides; throws UsageError naming the bad option.
 */
export function parseLocalExportArgs(
  argv: readonly string[],
  env: IOStreams['env'],
): LocalExportArgs | 'help' {
  const v = parseCommandLine(LOCAL_EXPORT_COMMAND, argv);
  if (v.help) return 'help';
  const options: LocalExportArgs = {};
  options.outDir = v.out;
  if (v.from !== undefined) options.from = v.from;
  if (v.to !== undefined) options.to = v.to;
  if (v.from !== undefined && v.to !== undefined && v.from > v.to) {
    throw new UsageError(`--from ${v.from} is after --to ${v.to}`);
  }
  if (v.report !== undefined) options.reportId = v.report;
  if (v.tenant !== undefined) options.tenant = v.tenant;
  if (v['secret-file'] !== undefined && v['secrets-file'] !== undefined) {
    throw new UsageError('--secret-file and --secrets-file are the same option: give one');
  }
  const secretFile = v['secret-file'] ?? v['secrets-file'];
  if (secretFile !== undefined) options.secretsFile = secretFile;
  if (v['csv-gzip']) options.csvGzip = true;
  if (v.catalog !== 'file') options.tableCatalog = v.catalog;
  if (v['force-replace']) options.forceReplace = true;
  if (v.intraday) {
    const dated = [...(v.from === undefined ? [] : ['--from']), ...(v.to === undefined ? [] : ['--to'])];
    if (dated.length > 0) {
      throw new UsageError(
        `--intraday exports today so far in each tenant's zone: it takes no ${dated.join(', ')}`,
      );
    }
    if (v.contacts === 'only') throw new UsageError('--intraday exports reports: not with --contacts only');
    options.intraday = true;
  }
  if (v.contacts !== undefined) {
    const reportOptions = [
      ...(v.from === undefined ? [] : ['--from']),
      ...(v.to === undefined ? [] : ['--to']),
      ...(v.report === undefined ? [] : ['--report']),
    ];
    if (v.contacts === 'only') refuseWithContactsOnly(reportOptions);
    options.contacts = v.contacts;
  }
  options.rowsPerDay = v['rows-per-day'];
  if (v.json) options.json = true;
  const settings = workflowSettingsFromEnv(env);
  if (Object.keys(settings).length > 0) options.settings = settings;
  return options;
}

/**
 * Reads back what the run published, per tenant that succeeded (its rows of the one lake:
 * `tenant = '<id>'`): the per-day sample query, and the summary page with a section per tenant.
 */
async function readBack(result: LocalExportResult, oneTenant: boolean): Promise<LocalReadBack | undefined> {
  const published = result.tenants.filter((t) => t.status === 'SUCCEEDED');
  if (published.length === 0) return undefined;
  const db = await openLake(result.outDir);
  try {
    const summaries = new Map<string, CallSummary>();
    const matches = new Map<string, ContactMatches>();
    const sections = [];
    const generatedAt = new Date().toISOString();
    for (const t of published) {
      const ofDataset = (dataset: string) =>
        t.reports.filter((r) => r.dataset === dataset).map((r) => r.reportId);
      const scope = { ...t.dates, tenant: t.tenant };
      const summary = await summarizeCalls(db, { ...scope, reportIds: ofDataset(DATASETS.calls) });
      const summaryReports = await summarizeSummaryReports(db, {
        ...scope,
        reportIds: ofDataset(DATASETS.summaries),
      });
      summaries.set(t.tenant, summary);
      const matched =
        t.contacts === null
          ? undefined
          : await contactMatches(db, { ...scope, reportIds: ofDataset(DATASETS.calls) });
      if (matched !== undefined) matches.set(t.tenant, matched);
      sections.push({
        tenant: t.tenant,
        tenantName: t.tenantName,
        summary,
        context: {
          generatedAt,
          timeZone: t.timeZone,
          reports: t.reports,
          summaryReports,
          outcome: t,
          ...(t.contacts === null ? {} : { contacts: { sync: t.contacts, matches: matched } }),
        },
      });
    }
    // --tenant: the page keeps the other tenants' sections (their last runs), this one's replaced.
    const kept = oneTenant ? await writtenTenantSections(result.outDir) : [];
    const count = new Set([...kept.map((k) => k.tenant), ...sections.map((s) => s.tenant)]).size;
    const html = renderTenantsSummaryPage(sections, `Calls of ${count} tenant(s)`, kept);
    return { summaries, matches, page: await writeSummaryPage(result.outDir, html) };
  } finally {
    db.close();
  }
}

/** Runs the command on `io`'s streams, environment and directory; returns the process exit code. */
export async function localExportCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const args = parseLocalExportArgs(argv, io.env);
  if (args === 'help') {
    io.stdout.write(LOCAL_EXPORT_USAGE);
    return 0;
  }
  const { json, ...options } = args;
  // Before anything starts: the dates must have happened in each tenant's zone (days are
  // local to it). The registry's zones are checked again once it is read.
  if (options.from !== undefined || options.to !== undefined) {
    for (const zone of await localTenantZones(options.tenant)) refuseFutureDates(options, zone);
  }
  options.outDir = await checkedLocalDir('--out', options.outDir ?? LAKE_DIR_DEFAULT.default, io.cwd);
  options.cwd = io.cwd;
  // --json: stdout is the one document's; anything else printed meanwhile goes to stderr.
  const stdout = json ? reserveStdout(io) : undefined;
  try {
    return await runCommand(options, json === true, stdout?.write ?? ((text) => io.stdout.write(text)), io);
  } finally {
    stdout?.release();
  }
}

/** The zones of the local service's tenants (their seeds'), or of the one `tenant` names (none when unknown). */
async function localTenantZones(tenant: string | undefined): Promise<string[]> {
  const { createTenantSeeds } = await import('../../../simulator/tenant-seeds');
  const { DEFAULT_SEED, DEFAULT_TENANT_COUNT } = await import('../../../simulator/defaults');
  const { localTenantIds } = await import('../../../local/local-tenants');
  const tenants = createTenantSeeds(DEFAULT_SEED, DEFAULT_TENANT_COUNT).map((s) => s.tenant);
  const ids = localTenantIds(tenants);
  return tenants.filter((_, i) => tenant === undefined || ids[i] === tenant).map((t) => t.timeZoneId);
}

async function runCommand(
  options: LocalExportOptions,
  json: boolean,
  writeOut: (text: string) => void,
  io: IOStreams,
): Promise<number> {
  const started = performance.now();
  const bar = progress(io.stderr, io.env);
  const c = colors(io.stderr, io.env);
  // Ctrl+C (or a TERM, the program's io.signal): stop the run and let the tasks in flight
  // clean up (nothing half-published, leases released, staging removed) before exiting.
  const signal = io.signal;
  signal?.addEventListener('abort', () => bar.update('interrupted: stopping the tasks in flight'), {
    once: true,
  });
  let result: LocalExportResult;
  try {
    // Loaded on use: the workflow (CDK synthesis, handlers) is the heaviest import of the CLI.
    const { runLocalExport } = await import('./export');
    result = await runLocalExport({
      ...options,
      // What the command line asks must be possible in each tenant's zone (days are local
      // to it), before any of its reports runs.
      checkDates: (dates, zone) => {
        refuseFutureDates(dates, zone);
        return partialDayWarning(dates, zone);
      },
      progress: bar,
      progressDetail: isInteractive(io.stderr, io.env),
      ...(signal === undefined ? {} : { signal }),
    });
    bar.update('reading the export back with DuckDB');
  } catch (error) {
    if (signal?.aborted !== true) throw error;
    bar.done();
    io.stderr.write(`${c.yellow('interrupted')}: partitions already published stay; run again to finish\n`);
    return INTERRUPTED_EXIT_CODE;
  }
  // --contacts only publishes no call: the page and the calls per day stay the last export's.
  const readBackResult = result.contactsOnly
    ? undefined
    : await readBack(result, options.tenant !== undefined);
  bar.done();
  const seconds = (performance.now() - started) / 1000;
  if (json) {
    writeOut(
      `${JSON.stringify({
        ...result,
        tenants: result.tenants.map((t) => ({
          ...t,
          perDay: readBackResult?.summaries.get(t.tenant)?.days ?? null,
          contactMatches: readBackResult?.matches.get(t.tenant) ?? null,
        })),
        seconds,
        summaryPage: readBackResult?.page ?? null,
      })}\n`,
    );
  } else {
    writeOut(renderLocalExportReport(result, readBackResult, { seconds, out: io.stdout, env: io.env }));
  }
  for (const t of result.tenants) {
    for (const warning of outcomeWarnings(t, { intraday: options.intraday === true }))
      io.stderr.write(`${c.yellow(`${t.tenant}: ${warning}`)}\n`);
  }
  // Every tenant that failed, by name; the others' partitions are published.
  for (const t of result.tenants.filter((t) => t.status !== 'SUCCEEDED')) {
    io.stderr.write(
      `${c.red(`export failed for tenant ${t.tenant}`)}: ${t.error ?? 'error'}${t.cause ? `: ${t.cause}` : ''}\n`,
    );
  }
  return runExitCode(result.status, result);
}
