import { parseArgs } from 'node:util';
import { parseCalendarDate } from '../export/window';
import { type LocalExportOptions, runLocalExport } from './local-export';

export const LOCAL_EXPORT_USAGE = `Usage: npm start -- [options]        (or: npx tsx bin/report-export.ts local [options])

Runs the whole export on this machine: starts the local service, logs in (OAuth code
flow), runs every report of the workspace over a window of local dates, waits for each,
and streams the rows into a local data lake as date-partitioned Parquet and CSV.

Options:
  --out <dir>            data lake root (default ./data-lake)
  --from <YYYY-MM-DD>    first local date (default: 6 days before --to)
  --to <YYYY-MM-DD>      last local date, inclusive (default: yesterday in the tenant's zone)
  --rows-per-day <n>     calls the local service generates per weekday (default 2000)
  --report <id>          export only this report
  --csv-gzip             write .csv.gz instead of .csv
  --secrets-file <path>  where tokens are kept, mode 0600 (default ./.report-export/secrets.json)
  -h, --help             show this help

Layout: <out>/calls/format=parquet|csv/report_id=<id>/dt=YYYY-MM-DD/part-00000.<ext>
        with a _manifest.json per partition (rows, bytes, sha256).
`;

/** Usage error: the message names the offending option. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses argv of the local export command; throws UsageError naming the bad option. */
export function parseLocalExportArgs(argv: string[]): LocalExportOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (cause) {
    throw new UsageError((cause as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
  const options: LocalExportOptions = {};
  if (v.out !== undefined) options.outDir = v.out;
  if (v.from !== undefined) options.from = calendarDate('--from', v.from);
  if (v.to !== undefined) options.to = calendarDate('--to', v.to);
  if (v.report !== undefined) options.reportId = v.report;
  if (v['secrets-file'] !== undefined) options.secretsFile = v['secrets-file'];
  if (v['csv-gzip']) options.csvGzip = true;
  if (v['rows-per-day'] !== undefined) {
    const n = Number(v['rows-per-day']);
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000) {
      throw new UsageError(`--rows-per-day must be an integer from 1 to 1000000, got '${v['rows-per-day']}'`);
    }
    options.rowsPerDay = n;
  }
  return options;
}

/** Checks a date option before anything starts, so a typo costs no login or report run. */
function calendarDate(option: string, text: string): string {
  try {
    parseCalendarDate(option, text);
  } catch (cause) {
    throw new UsageError((cause as Error).message);
  }
  return text;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'rows-per-day': { type: 'string' },
      report: { type: 'string' },
      'csv-gzip': { type: 'boolean' },
      'secrets-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Runs the command; returns the process exit code. */
export async function localExportCommand(argv: string[]): Promise<number> {
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
    `  window   ${result.window.start} .. ${result.window.end}`,
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
