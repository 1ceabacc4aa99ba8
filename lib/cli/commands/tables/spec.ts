import { defineCommand, HELP_OPTION, nonEmptyValue, renderCommandList } from '../../../command-line';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { tenantOption } from '../../shared/tenant-option';

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
    'Usage: report-export tables snapshots [calls|summaries|contacts|contact_phones] [--dir <dir|s3://bucket/prefix>] [--catalog file|glue:<database>] [--json]',
  summary: "Lists a table's snapshots (every table without a name), oldest first, the current one marked.",
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

/** `tables rollback`'s own options: the tenant, and how the operator confirms the plan. */
const ROLLBACK_OPTIONS = {
  ...tenantOption(
    "the tenant whose partitions are rolled back (required in a multi-tenant lake; other tenants' rows stay)",
  ),
  'if-current': {
    type: 'string',
    multiple: true,
    value: '<snapshot-id>',
    help: 'confirms the plan: the current snapshot of each table as the plan showed it (repeat or comma-separate); refused if a snapshot of the tenant landed after it',
    parse: nonEmptyValue,
  },
  force: {
    type: 'boolean',
    help: 'rolls back without a plan to confirm (discards whatever the tenant committed after the target)',
  },
  'dry-run': { type: 'boolean', help: 'prints the plan and changes nothing' },
} as const;

export const TABLES_ROLLBACK_COMMAND = defineCommand({
  name: 'rollback',
  usage:
    'Usage: report-export tables rollback [<table>] <snapshot-id> [--tenant <id>] [--dry-run | --if-current <id>... | --force] [--dir <dir|s3://bucket/prefix>] [--catalog file|glue:<database>] [--json]',
  summary:
    "Rolls a tenant's partitions back to a snapshot: a NEW snapshot per table (history is kept), the CSV rewritten to match.",
  description: `For a re-export that passed the guards and was still wrong: readers (query, Athena) see the tenant's
partitions as they were at <snapshot-id> from the new snapshots on. The id is a snapshot of one table
(tables snapshots lists them; the table name is optional), and it moves that table's group: a calls
or summaries id the report tables (the other one to its snapshot current at that time), a contacts or
contact_phones id the contact tables (a directory sync's; they have no CSV). The other group stays:
a run and a directory sync commit apart. In a multi-tenant lake --tenant is required and only that tenant's partitions
change: another tenant's rows, and its commits since, stay. In a single-tenant lake the whole tables
go back. The CSV of every partition that changes is written again from the restored rows (emptied
where the target had none), so the CSV and the tables agree.

Plan, then confirm (as terraform plan/apply): without --if-current or --force the command prints
what it would do (per table: the current snapshot, the target, the tenant's snapshots it discards,
the partitions and rows that change) and, on a terminal, asks; without a terminal it stops there
(exit 2). --if-current <id> confirms the plan for a script: the rollback is refused (exit 1, naming
them) when a snapshot changing the tenant's partitions landed after the one given, so an export that
committed after the operator looked is never discarded unseen. --force skips the plan. A target
whose data files no longer exist (a removed tenant's) is refused, naming them. Nothing is deleted:
every snapshot stays readable (query --as-of), and the command prints the rollback that undoes it.
The next export of a rolled-back day replaces it again. A local lake is held while the rollback runs, as
npm start, run and workflow hold it: one of them writing it meanwhile is refused, naming the holder.
${WHERE}`,
  options: { ...ROLLBACK_OPTIONS, ...COMMON },
  examples: [
    'report-export tables rollback 4519931023388711 --tenant acme',
    'report-export tables rollback calls 4519931023388711 --tenant acme --if-current 7716254399811,902288017763',
    'report-export tables rollback summaries 812300044412 --force --dir s3://my-lake/exports --catalog glue:report_export',
    'report-export tables rollback contacts 3310876502291 --tenant acme --dry-run',
  ],
  notes:
    "Exit status: 0 rolled back (or nothing to roll back, or --dry-run), 1 refused (a snapshot of the tenant landed after --if-current; the target's files are gone) or the commit failed, 2 usage: an unknown table, snapshot or tenant, --tenant missing in a multi-tenant lake, or no confirmation without a terminal.",
});

const SUBCOMMANDS = [TABLES_SNAPSHOTS_COMMAND, TABLES_ROLLBACK_COMMAND];

/** `tables`: the lake's Iceberg tables. */
export const TABLES_COMMAND = defineCommand({
  name: 'tables',
  usage: 'Usage: report-export tables <snapshots|rollback> [options]',
  summary: "Lists the Iceberg tables' snapshots and rolls a tenant's partitions back to one.",
  description: `The calls and summaries datasets, and the contact directories' contacts and contact_phones, are
Iceberg tables (<lake>/tables/<table>): each run commits one snapshot per report table, each directory
sync one per contact table (a run's id and request are in its summary).

${renderCommandList(SUBCOMMANDS).trimEnd()}`,
  options: { ...HELP_OPTION },
  examples: [
    'report-export tables snapshots calls',
    'report-export tables rollback 4519931023388711 --tenant acme',
    'report-export help tables rollback',
  ],
  subcommands: SUBCOMMANDS,
});
