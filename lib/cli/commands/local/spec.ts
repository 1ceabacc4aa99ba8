import {
  defineCommand,
  HELP_OPTION,
  nonEmptyValue,
  renderCommandList,
  renderHelp,
  UsageError,
  type ValueParser,
} from '../../../command-line';
import { catalogOption } from '../../shared/catalog-option';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from '../../shared/defaults';
import {
  CONTACTS_OPTION,
  calendarDateValue,
  EXECUTION_INPUT_OPTIONS,
} from '../../shared/execution-input-spec';
import { HELD_EXIT_NOTE } from '../../shared/exit-codes';

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

/** `local`: the main job on this machine (`npm start`). */
export const LOCAL_EXPORT_COMMAND = defineCommand({
  name: 'local',
  usage: 'Usage: report-export [local] [options]        (from a clone: npm start -- [options])',
  summary: 'Runs the whole export on this machine through the workflow (the default command).',
  description: `Starts the local service in-process with its tenants (three by default, in
Europe/London, America/New_York and Australia/Sydney), signs each in with the OAuth flow
as its own user (auto-approval), keeps its tokens in its own secret file (mode 0600) and
its settings in a local tenant registry, and executes the synthesized state machine of
the deployed workflow once per tenant (a few at a time) for every report over a window of
the tenant's local dates, writing tenant- and date-partitioned Parquet and CSV into one
lake. A tenant that fails does not stop the others. Then prints, per tenant, rows per
report and day, and calls, answer rate and average talk time per day read back with
DuckDB, each tenant's contact directories (synced into the contacts and contact_phones
tables beside the reports: items, new versions, deletions) and the share of its external
calls calls_with_contacts matched to a contact, and writes <out>/summary.html (a section
per tenant, charts, no network). The local service's directories and their changes
(directory create, replace, delete) are kept between runs in the state directory.
Running it again replaces the same partitions. Progress goes to stderr, each line naming
its tenant; the report to stdout.`,
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
      defaultText: "yesterday in each tenant's zone",
      parse: calendarDateValue,
    },
    'rows-per-day': {
      type: 'string',
      value: '<n>',
      help: 'calls the local service generates per weekday',
      default: CLI_DEFAULTS.rowsPerDay,
      parse: positiveIntegerValue(1_000_000),
    },
    tenant: {
      type: 'string',
      value: '<id>',
      help: 'export only this tenant of the local service (london, new-york, sydney)',
      parse: nonEmptyValue,
    },
    report: { type: 'string', value: '<id|name>', help: 'export only this report', parse: nonEmptyValue },
    'csv-gzip': { type: 'boolean', help: 'write .csv.gz instead of .csv' },
    catalog: catalogOption(['file', 'hive']),
    'force-replace': EXECUTION_INPUT_OPTIONS['force-replace'],
    intraday: {
      type: 'boolean',
      help: "an intraday refresh: today so far in each tenant's zone, provisional until the day ends (not with --from/--to)",
    },
    contacts: CONTACTS_OPTION,
    'secret-file': {
      type: 'string',
      value: '<path>',
      help: "its directory keeps the local tenants' registry (tenants/) and secrets (secrets/<id>.json, mode 0600)",
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
    'report-export --tenant sydney',
    'report-export --intraday',
    'report-export --contacts only --tenant london',
  ],
  notes: `Layout: Iceberg tables <out>/tables/<dataset>, one per dataset for every tenant, partitioned
        by tenant, report_id and dt (one snapshot per tenant's run; report-export tables
        snapshots lists them), the CSV in
        <out>/<dataset>/format=csv/tenant=<tenant>/report_id=<id>/dt=YYYY-MM-DD/ with a
        _manifest.json per partition; <dataset> is calls, or summaries for a report whose
        rows have no start; run records in <out>/runs/tenant=<tenant>/dt=YYYY-MM-DD/.
Answered: a call whose row has ans = 1; talk time: duration (s) of answered calls;
each call counted once across reports (by conn_id).
Exit status: 0 exported, 1 a tenant failed (the others are published), 2 usage error,
        ${HELD_EXIT_NOTE}.`,
});

export const LOCAL_EXPORT_USAGE = renderHelp(LOCAL_EXPORT_COMMAND);

const LOCAL = LOCAL_EXPORT_COMMAND.options;

/** `contacts sync`: the contact directories alone, on the local deployment (`npm start --contacts only`). */
export const CONTACTS_SYNC_COMMAND = defineCommand({
  name: 'sync',
  usage: 'Usage: report-export contacts sync [--tenant <id>] [--force] [--out <dir>] [--json]',
  summary: "Syncs the tenants' contact directories into the lake now, without a report.",
  description: `Runs the workflow of the local deployment as npm start does, with the execution input
{"contacts": "only"}: each tenant's directories are read whole, versioned into the contacts
and contact_phones tables (a changed item closes its version and opens a new one, an item
gone gets a deletion version, an unchanged one nothing) and committed, one snapshot per
table; no report runs. A directory that cannot be read whole changes nothing; one that
shrank by more than the shrink guard's share is held unless --force. Prints, per tenant,
its directories, items, new versions, closed versions and deletions.
Against a deployment: report-export start --contacts only --stack <name> [--tenant <id>].`,
  options: {
    tenant: {
      ...LOCAL.tenant,
      help: 'sync only this tenant of the local service (london, new-york, sydney)',
    },
    force: {
      type: 'boolean',
      help: "replace a directory's history even when it shrank by more than the shrink guard's share",
    },
    out: LOCAL.out,
    'secret-file': LOCAL['secret-file'],
    json: LOCAL.json,
    ...HELP_OPTION,
  },
  examples: ['report-export contacts sync', 'report-export contacts sync --tenant london --force'],
  notes: `Exit status: 0 synced (a directory the shrink guard held is named in the output), 1 a
        tenant failed (the others are synced), 2 usage error.`,
});

const SUBCOMMANDS = [CONTACTS_SYNC_COMMAND];

/** `contacts`: the contact directories in the lake. */
export const CONTACTS_COMMAND = defineCommand({
  name: 'contacts',
  usage: 'Usage: report-export contacts <sync> [options]',
  summary: "Syncs the contact directories into the lake's contacts tables.",
  description: `Every run syncs the tenants' contact directories beside the reports (--contacts skip leaves
them); this command syncs them alone, now. Query them with report-export query: contacts,
contact_phones and the view calls_with_contacts.

${renderCommandList(SUBCOMMANDS).trimEnd()}`,
  options: { ...HELP_OPTION },
  examples: ['report-export contacts sync --tenant london', 'report-export help contacts sync'],
  subcommands: SUBCOMMANDS,
});
