import { choiceValue, defineCommand, HELP_OPTION, nonEmptyValue } from '../../../command-line';
import { asOfValue } from '../../shared/as-of';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { tenantOption } from '../../shared/tenant-option';

/** What `--format` takes; without it (and without --json) the answer is a table. */
const FORMATS = ['table', 'csv', 'json'] as const;
export const DEFAULT_FORMAT: (typeof FORMATS)[number] = 'table';

/** `query`: SQL over a local export directory. */
export const QUERY_COMMAND = defineCommand({
  name: 'query',
  usage:
    'Usage: report-export query [--dir <dir>] [--tenant <id>] [--as-of <snapshot-id|timestamp>] [--format table|csv|json] <sql | -f file.sql | - >     (a piped stdin with no <sql> is read too)',
  summary: 'Runs SQL with DuckDB over a local export (tables calls, summaries and runs, as in Glue).',
  description: `Tables, named and typed as the Glue catalog has them (also as report_export.<table>, so
the deploy guide's Athena queries run here unchanged, json_extract_scalar included):
  calls      the Iceberg table <dir>/tables/calls at its current snapshot: every column of the
             schema (start is local wall time, report_id text) and dt, the local date of start,
             a DATE as in the Iceberg table; members the schema does not know are in extra
             (JSON text): json_extract_scalar(extra, '$.accountCode')
  summaries  the rows of summary reports (no start): dt is the local day they total
  runs       the run records (JSON lines under <dir>/runs/dt=*/, a multi-tenant lake's under
             runs/tenant=*/dt=*/), dt the UTC date of the run
A multi-tenant lake's tables have a tenant column (one table for every tenant); --tenant <id>
reads only that tenant's rows and run records.
A lake without tables (an older one, or TABLE_CATALOG=hive) reads its Hive-layout Parquet
(<dir>/<dataset>/format=parquet/report_id=*/dt=*/), report_id and dt strings as in its Glue tables.
--as-of reads each table as it was: a snapshot id is one table's (report-export tables snapshots
lists them), and the other table reads its snapshot current at that snapshot's time; a timestamp
reads the snapshot current then in each; a table with none then is empty.
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
    'as-of': {
      type: 'string',
      value: '<snapshot-id|timestamp>',
      help: 'read the tables as of a snapshot id or an ISO 8601 time with offset (2026-11-25T18:00:00Z)',
      defaultText: 'the current snapshots',
      parse: asOfValue,
    },
    ...tenantOption("only this tenant's rows and runs (a multi-tenant lake); every tenant's when omitted"),
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
    'report-export query --as-of 2026-11-25T06:00:00Z "SELECT dt, count(*) FROM calls GROUP BY dt"',
    "echo 'SELECT count(*) FROM summaries' | report-export query -",
  ],
});
