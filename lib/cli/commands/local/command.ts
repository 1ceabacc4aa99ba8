import {
  ConfigError,
  defineCommand,
  HELP_OPTION,
  nonEmptyValue,
  parseCommandLine,
  renderHelp,
  UsageError,
  type ValueParser,
} from '../../../command-line/options';
import { DATASETS } from '../../../export/schema';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { calendarDateValue } from '../../shared/execution-input-options';
import { refuseFutureDates } from '../../shared/future-dates';
import type { IOStreams } from '../../shared/io-streams';
import { reserveStdout } from '../../shared/json-output';
import { openLake } from '../../shared/lake-database';
import { checkedLocalDir } from '../../shared/out-location';
import { colors, isInteractive, progress } from '../../shared/terminal';
import { type CallSummary, summarizeCalls, summarizeSummaryReports } from './call-summary';
import type { LocalExportOptions, LocalExportResult } from './export';
import { renderLocalExportReport } from './report';
import { renderSummaryPage, writeSummaryPage } from './summary-page';

/** A count of at least 1; the message says so whatever was given (`-1`, `0`, `many`). */
function positiveIntegerValue(max: number): ValueParser<number> {
  return (raw, flag) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > max) {
      throw new UsageError(`${flag} must be a positive integer (1 to ${max}), got '${raw}'`);
    }
    return n;
  };
}

export { UsageError } from '../../../command-line/options';

/** `local`: the main job on this machine (`npm start`). */
export const LOCAL_EXPORT_COMMAND = defineCommand({
  name: 'local',
  usage: 'Usage: report-export [local] [options]        (from a clone: npm start -- [options])',
  summary: 'Runs the whole export on this machine through the workflow (the default command).',
  description: `Starts the local service in-process, signs in with its OAuth flow (auto-approval),
keeps the tokens in a local secret file (mode 0600), and executes the synthesized state
machine of the deployed workflow for every report over a window of local dates, writing
date-partitioned Parquet and CSV. Then prints rows per report and day, where the files
are, and calls, answer rate and average talk time per day read back with DuckDB, and
writes <out>/summary.html (charts, no network). Running it again replaces the same
partitions. Progress goes to stderr; the report to stdout.`,
  options: {
    out: {
      type: 'string',
      value: '<dir>',
      help: 'data lake root',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    from: {
      type: 'string',
      value: '<YYYY-MM-DD>',
      help: 'first local date',
      defaultText: `${CLI_DEFAULTS.days - 1} days before --to`,
      parse: calendarDateValue,
    },
    to: {
      type: 'string',
      value: '<YYYY-MM-DD>',
      help: 'last local date, inclusive',
      defaultText: "yesterday in the tenant's zone",
      parse: calendarDateValue,
    },
    'rows-per-day': {
      type: 'string',
      value: '<n>',
      help: 'calls the local service generates per weekday',
      default: CLI_DEFAULTS.rowsPerDay,
      parse: positiveIntegerValue(1_000_000),
    },
    report: { type: 'string', value: '<id|name>', help: 'export only this report', parse: nonEmptyValue },
    'csv-gzip': { type: 'boolean', help: 'write .csv.gz instead of .csv' },
    'secret-file': {
      type: 'string',
      value: '<path>',
      help: "where the local service's tokens are kept, mode 0600",
      defaultText: `./${CLI_DEFAULTS.localSecretsFile}`,
      parse: nonEmptyValue,
    },
    'secrets-file': {
      type: 'string',
      value: '<path>',
      help: 'the same as --secret-file (the earlier spelling)',
      parse: nonEmptyValue,
    },
    json: { type: 'boolean', help: 'print one JSON document instead of the report' },
    ...HELP_OPTION,
  },
  examples: [
    'report-export',
    'report-export --from 2026-03-23 --to 2026-03-29 --rows-per-day 500 --csv-gzip',
    "report-export --report 'Lost calls' --out /tmp/lake --json",
  ],
  notes: `Layout: <out>/calls/format=parquet|csv/report_id=<id>/dt=YYYY-MM-DD/part-00000.<ext>
        with a _manifest.json per partition; run records in <out>/runs/dt=YYYY-MM-DD/.
Answered: a call whose row has ans = 1; talk time: duration (s) of answered calls;
each call counted once across reports (by connId).`,
});

export const LOCAL_EXPORT_USAGE = renderHelp(LOCAL_EXPORT_COMMAND);

/**
 * Workflow settings the environment may override (not advertised: tests use them to force a
 * long range into several executions cheaply), e.g. REPORT_EXPORT_MAX_JOBS_PER_EXECUTION=3.
 */
const SETTING_VARIABLES = ['MAX_JOBS_PER_EXECUTION', 'MAX_WINDOW_DAYS'] as const;

/** The settings of {@link SETTING_VARIABLES} set in `env`; throws ConfigError naming a bad one. */
export function workflowSettingsFromEnv(
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
export type LocalExportArgs = LocalExportOptions & { json?: boolean };

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
  if (v['secret-file'] !== undefined && v['secrets-file'] !== undefined) {
    throw new UsageError('--secret-file and --secrets-file are the same option: give one');
  }
  const secretFile = v['secret-file'] ?? v['secrets-file'];
  if (secretFile !== undefined) options.secretsFile = secretFile;
  if (v['csv-gzip']) options.csvGzip = true;
  options.rowsPerDay = v['rows-per-day'];
  if (v.json) options.json = true;
  const settings = workflowSettingsFromEnv(env);
  if (Object.keys(settings).length > 0) options.settings = settings;
  return options;
}

/** Reads back what the run published: the per-day sample query and the summary page. */
async function readBack(result: LocalExportResult): Promise<{ summary: CallSummary; page: string }> {
  const db = await openLake(result.outDir);
  try {
    const summary = await summarizeCalls(db, {
      ...result.dates,
      reportIds: result.reports.filter((r) => r.dataset === DATASETS.calls).map((r) => r.reportId),
    });
    const summaryReports = await summarizeSummaryReports(db, {
      ...result.dates,
      reportIds: result.reports.filter((r) => r.dataset === DATASETS.summaries).map((r) => r.reportId),
    });
    const html = renderSummaryPage(summary, {
      title: `Calls ${result.dates.from} to ${result.dates.to}`,
      generatedAt: new Date().toISOString(),
      timeZone: result.timeZone,
      reports: result.reports,
      summaryReports,
    });
    return { summary, page: await writeSummaryPage(result.outDir, html) };
  } finally {
    db.close();
  }
}

/** As shells report a process ended by SIGINT (128 + 2). */
const INTERRUPTED_EXIT_CODE = 130;

/** Runs the command on `io`'s streams, environment and directory; returns the process exit code. */
export async function localExportCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const args = parseLocalExportArgs(argv, io.env);
  if (args === 'help') {
    io.stdout.write(LOCAL_EXPORT_USAGE);
    return 0;
  }
  const { json, ...options } = args;
  // Before anything starts: what the command line asks must be possible.
  if (options.from !== undefined || options.to !== undefined) {
    refuseFutureDates(options, await localTenantZone());
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

/** The time zone of the local service's tenant (its seed's): days are local to it. */
async function localTenantZone(): Promise<string> {
  const { createSeed } = await import('../../../simulator/seed');
  return createSeed().tenant.timeZoneId;
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
  // Ctrl+C (or a TERM): stop the run and let the tasks in flight clean up (nothing
  // half-published, leases released, staging removed) before exiting; a second signal
  // does not wait. The signals (and that exit) are the process's, whoever's streams the
  // command writes to.
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(INTERRUPTED_EXIT_CODE);
    bar.update('interrupted: stopping the tasks in flight');
    interrupt.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: LocalExportResult;
  try {
    // Loaded on use: the workflow (CDK synthesis, handlers) is the heaviest import of the CLI.
    const { runLocalExport } = await import('./export');
    result = await runLocalExport({
      ...options,
      progress: bar,
      progressDetail: isInteractive(io.stderr, io.env),
      signal: interrupt.signal,
    });
    if (result.status === 'SUCCEEDED') bar.update('reading the export back with DuckDB');
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    bar.done();
    io.stderr.write(`${c.yellow('interrupted')}: partitions already published stay; run again to finish\n`);
    return INTERRUPTED_EXIT_CODE;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  const readBackResult = result.status === 'SUCCEEDED' ? await readBack(result) : undefined;
  bar.done();
  const seconds = (performance.now() - started) / 1000;
  if (json) {
    writeOut(
      `${JSON.stringify({ ...result, seconds, perDay: readBackResult?.summary.days ?? null, summaryPage: readBackResult?.page ?? null })}\n`,
    );
  } else {
    writeOut(renderLocalExportReport(result, readBackResult, { seconds, out: io.stdout, env: io.env }));
  }
  if (result.status !== 'SUCCEEDED') {
    io.stderr.write(
      `${c.red('export failed')}: ${result.error ?? 'error'}${result.cause ? `: ${result.cause}` : ''}\n`,
    );
    return 1;
  }
  return 0;
}
