import { choiceValue, defineCommand, HELP_OPTION, nonEmptyValue } from '../../../command-line';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';

/** What `--format` takes; without it (and without --json) the answer is a table. */
const FORMATS = ['table', 'csv', 'json'] as const;
export const DEFAULT_FORMAT: (typeof FORMATS)[number] = 'table';

/** `query`: SQL over a local export directory. */
export const QUERY_COMMAND = defineCommand({
  name: 'query',
  usage:
    'Usage: report-export query [--dir <dir>] [--format table|csv|json] <sql | -f file.sql | - >     (a piped stdin with no <sql> is read too)',
  summary: 'Runs SQL with DuckDB over a local export (tables calls, summaries and runs, as in Glue).',
  description: `Tables, named and typed as the Glue catalog has them (also as report_export.<table>, so
the deploy guide's Athena queries run here unchanged, json_extract_scalar included):
  calls      the Parquet dataset with its hive partitions: report_id and dt (strings, as in Glue; dt the
             local date of start) and every column of the schema (start is local wall time);
             members the schema does not know are in extra (JSON text):
             json_extract_scalar(extra, '$.accountCode')
  summaries  the rows of summary reports (no start): dt is the local day they total
  runs       the run records (JSON lines under <dir>/runs/dt=*/), dt the UTC date of the run
A table without files yet is empty. Nothing is fetched from the network.`,
  options: {
    dir: {
      type: 'string',
      value: '<dir>',
      help: 'the export directory',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    format: {
      type: 'string',
      value: '<table|csv|json>',
      help: 'output: a table, CSV with a header, or a JSON array of row objects',
      // Not a `default`: --json must tell a --format given from one left out.
      defaultText: DEFAULT_FORMAT,
      parse: choiceValue(FORMATS),
    },
    json: { type: 'boolean', help: 'same as --format json' },
    file: {
      type: 'string',
      short: 'f',
      value: '<file.sql>',
      help: "read the SQL from a file ('-' for stdin) instead of the argument",
      parse: nonEmptyValue,
    },
    ...HELP_OPTION,
  },
  examples: [
    'report-export query --dir ./data-lake "SELECT dt, count(*) FROM calls GROUP BY dt ORDER BY dt"',
    'report-export query --format csv "SELECT report_id, dt, count(*) AS n FROM calls GROUP BY ALL" > counts.csv',
    'report-export query --json "SELECT runId, status, rows FROM runs ORDER BY startedAt DESC LIMIT 5"',
    'report-export query -f daily.sql --format csv',
    "echo 'SELECT count(*) FROM summaries' | report-export query -",
  ],
});
