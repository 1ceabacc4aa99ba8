import { defineCommand, HELP_OPTION, nonEmptyValue, renderCommandList } from '../../../command-line';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';

/** What `--catalog` takes when not given: the file catalog beside the data (what `npm start` and `run` write). */
export const DEFAULT_TABLE_CATALOG = 'file';

/** Options of every `tables` subcommand: where the lake and its catalog are. */
const COMMON = {
  dir: {
    type: 'string',
    value: '<dir|s3://bucket/prefix>',
    help: "where the lake is: a local directory, or an s3:// URI (the stack's DataLakeUri)",
    ...LAKE_DIR_DEFAULT,
    parse: nonEmptyValue,
  },
  catalog: {
    type: 'string',
    value: '<file|glue:database>',
    help: "the tables' catalog: file (metadata beside the data) or a deployment's Glue database",
    default: DEFAULT_TABLE_CATALOG,
    parse: nonEmptyValue,
  },
  json: { type: 'boolean', help: 'print JSON (for scripts)' },
  ...HELP_OPTION,
} as const;

const WHERE = `--dir takes a local lake or an s3:// URI (credentials and region from the AWS environment);
--catalog glue:<database> reads the tables a deployment registered in Glue (its TABLE_CATALOG).`;

export const TABLES_SNAPSHOTS_COMMAND = defineCommand({
  name: 'snapshots',
  usage:
    'Usage: report-export tables snapshots [calls|summaries] [--dir <dir|s3://bucket/prefix>] [--catalog file|glue:<database>] [--json]',
  summary: "Lists a table's snapshots (both tables without a name), oldest first, the current one marked.",
  description: `Each snapshot: its id, when it was committed (UTC), its operation, the run and report request that
committed it, the rows it added and deleted, the table's rows then, and a rollback's target.
${WHERE}`,
  options: COMMON,
  examples: [
    'report-export tables snapshots',
    'report-export tables snapshots calls --json',
    'report-export tables snapshots --dir s3://my-lake/exports --catalog glue:report_export',
  ],
});

export const TABLES_ROLLBACK_COMMAND = defineCommand({
  name: 'rollback',
  usage:
    'Usage: report-export tables rollback <calls|summaries> <snapshot-id> [--dir <dir|s3://bucket/prefix>] [--catalog file|glue:<database>] [--json]',
  summary:
    "Rolls a table back to an earlier snapshot: a NEW snapshot with that one's data (history is kept).",
  description: `For a re-export that passed the guards and was still wrong: readers (query, Athena) see the
table as it was at <snapshot-id> from the new snapshot on. Nothing is deleted: every snapshot stays
readable (query --as-of), and rolling back to the snapshot that was current undoes it (the command
prints how). The next export of a rolled-back day replaces it again.
${WHERE}`,
  options: COMMON,
  examples: [
    'report-export tables rollback calls 4519931023388711',
    'report-export tables rollback summaries 812300044412 --dir s3://my-lake/exports --catalog glue:report_export',
  ],
  notes:
    'Exit status: 0 rolled back (or already at that snapshot), 1 the commit failed, 2 usage: an unknown table or snapshot id (tables snapshots lists them).',
});

const SUBCOMMANDS = [TABLES_SNAPSHOTS_COMMAND, TABLES_ROLLBACK_COMMAND];

/** `tables`: the lake's Iceberg tables. */
export const TABLES_COMMAND = defineCommand({
  name: 'tables',
  usage: 'Usage: report-export tables <snapshots|rollback> [options]',
  summary: "Lists the Iceberg tables' snapshots and rolls a table back to one.",
  description: `The calls and summaries datasets are Iceberg tables (<lake>/tables/<dataset>): each run commits one
snapshot per table (a run's id and request are in its summary).

${renderCommandList(SUBCOMMANDS).trimEnd()}`,
  options: { ...HELP_OPTION },
  examples: [
    'report-export tables snapshots calls',
    'report-export tables rollback calls 4519931023388711',
    'report-export help tables rollback',
  ],
  subcommands: SUBCOMMANDS,
});
