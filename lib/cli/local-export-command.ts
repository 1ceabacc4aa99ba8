import { parseCalendarDate } from '../export/window';
import { type LocalExportOptions, runLocalExport } from './local-export';
import {
  defineCommand,
  integerValue,
  nonEmptyValue,
  parseCommandLine,
  renderHelp,
  UsageError,
} from './options';

export { UsageError } from './options';

/** Checks a date option before anything starts, so a typo costs no login or report run. */
function calendarDate(raw: string, flag: string): string {
  try {
    parseCalendarDate(flag, raw);
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause });
  }
  return raw;
}

/** `local`: the whole export on this machine. */
export const LOCAL_EXPORT_COMMAND = defineCommand({
  name: 'local',
  usage: 'Usage: npm start -- [options]        (or: npx tsx bin/report-export.ts local [options])',
  summary: 'Runs the whole export on this machine (the default command).',
  description: `It starts the local service, logs in (OAuth code flow), runs every report of the
workspace over a window of local dates, waits for each, and streams the rows into a
local data lake as date-partitioned Parquet and CSV.`,
  options: {
    out: {
      type: 'string',
      value: '<dir>',
      help: 'data lake root (default ./data-lake)',
      parse: nonEmptyValue,
    },
    from: {
      type: 'string',
      value: '<YYYY-MM-DD>',
      help: 'first local date (default: 6 days before --to)',
      parse: calendarDate,
    },
    to: {
      type: 'string',
      value: '<YYYY-MM-DD>',
      help: "last local date, inclusive (default: yesterday in the tenant's zone)",
      parse: calendarDate,
    },
    'rows-per-day': {
      type: 'string',
      value: '<n>',
      help: 'calls the local service generates per weekday (default 2000)',
      parse: integerValue(1, 1_000_000),
    },
    report: { type: 'string', value: '<id>', help: 'export only this report', parse: nonEmptyValue },
    'csv-gzip': { type: 'boolean', help: 'write .csv.gz instead of .csv' },
    'secrets-file': {
      type: 'string',
      value: '<path>',
      help: 'where tokens are kept, mode 0600 (default ./.report-export/secrets.json)',
      parse: nonEmptyValue,
    },
    help: { type: 'boolean', short: 'h', help: 'show this help' },
  },
  examples: ['npm start', 'npm start -- --from 2026-03-23 --to 2026-03-29 --rows-per-day 500 --csv-gzip'],
  notes: `Layout: <out>/calls/format=parquet|csv/report_id=<id>/dt=YYYY-MM-DD/part-00000.<ext>
        with a _manifest.json per partition (rows, bytes, sha256).`,
});

export const LOCAL_EXPORT_USAGE = renderHelp(LOCAL_EXPORT_COMMAND);

/** Parses argv of the local export command; throws UsageError naming the bad option. */
export function parseLocalExportArgs(argv: readonly string[]): LocalExportOptions | 'help' {
  const v = parseCommandLine(LOCAL_EXPORT_COMMAND, argv);
  if (v.help) return 'help';
  const options: LocalExportOptions = {};
  if (v.out !== undefined) options.outDir = v.out;
  if (v.from !== undefined) options.from = v.from;
  if (v.to !== undefined) options.to = v.to;
  if (v.report !== undefined) options.reportId = v.report;
  if (v['secrets-file'] !== undefined) options.secretsFile = v['secrets-file'];
  if (v['csv-gzip']) options.csvGzip = true;
  if (v['rows-per-day'] !== undefined) options.rowsPerDay = v['rows-per-day'];
  return options;
}

/** Runs the command; returns the process exit code. */
export async function localExportCommand(argv: readonly string[]): Promise<number> {
  const options = parseLocalExportArgs(argv);
  if (options === 'help') {
    process.stdout.write(LOCAL_EXPORT_USAGE);
    return 0;
  }
  const started = Date.now();
  const result = await runLocalExport({ ...options, progress: (line) => process.stderr.write(`${line}\n`) });
  const rows = result.exports.reduce((n, e) => n + e.rows, 0);
  const lines = [
    '',
    `Exported ${rows} rows of ${result.exports.length} reports in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    `  window   ${result.window.from} .. ${result.window.to}`,
    `  data     ${result.outDir}`,
    ...result.exports.map(
      (e) =>
        `  ${e.reportName.padEnd(28)} ${String(e.rows).padStart(8)} rows  ${e.partitions.length} days  ${e.files} files`,
    ),
    '',
    'Query it, e.g. with DuckDB:',
    `  SELECT dt, count(*) FROM read_parquet('${result.outDir}/calls/format=parquet/*/*/*.parquet', hive_partitioning=true) GROUP BY dt ORDER BY dt;`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  return 0;
}
