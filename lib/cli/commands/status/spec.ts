import { defineCommand, HELP_OPTION, nonEmptyValue } from '../../../command-line';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { tenantOption } from '../../shared/tenant-option';
import { TENANTS_DEPLOYMENT_OPTIONS } from '../../shared/tenants-spec';

/**
 * The exit status of `status` by its verdict (the worst over every enabled tenant's reports).
 * `error` is 1, as dbt's `source freshness` exits on an error (Nagios' CRITICAL is 2, but 2 is
 * a usage error here, for every command). `warn` is 3, as a run whose shrink guard held
 * partitions is (shared/exit-codes.ts): nothing failed, but someone must look, and a script
 * that reads only the exit status must tell it from both. A failure of the command itself
 * (the lake unreadable) is 1 too: either way the data cannot be trusted to be fresh.
 */
export const FRESHNESS_EXIT_CODES = { ok: 0, warn: 3, error: 1 } as const;

/** `status`: is each tenant's data fresh, judged per day partition against its goals. */
export const STATUS_COMMAND = defineCommand({
  name: 'status',
  usage:
    'Usage: report-export status [--dir <dir|s3://bucket/prefix>] [--state-dir <dir>] [--stack <name>] [--tenant <id>] [--json]',
  summary: "Judges whether each tenant's data is fresh, per report and day partition, against its goals.",
  description: `Per tenant of the registry and per report of its entry, from the run records (runs/tenant=<id>/):
the newest settled day, the provisional days after it and the instant each is as of, the last run
and its outcome, the days the shrink guard still holds, and a verdict (ok, warn, error) of the lag
from the report's data time to now against the tenant's goals (warn_after, error_after).
Judged per day partition, never by when a run ran: a settled day holds data up to its end (the
next local midnight in the tenant's zone), a provisional day up to its cut-off, so a backfill of
an old day never makes stale data look fresh. No published day at all is an error.
Goals: the entry's freshness (warnAfterMinutes, errorAfterMinutes) when set; otherwise nightly
at <hour>: warn after 24 h + <hour> + 2 h, error 24 h later; with intraday refreshes every <n>
minutes, inside [fromHour + n, toHour) local time: warn after 2n + 15 min, error after 4n + 30 min.
Only the records of the last few UTC dates are read (error_after + 12 h back, the longest an
execution runs): an older one could not lift a verdict off error.
Without --stack, the local deployment: the lake --dir (a directory, or s3:// with credentials and
region from the AWS environment) and the registry <state-dir>/tenants/. With --stack <name>, a
deployed multi-tenant stack's outputs (DataLakeUri, TenantRegistryUri; DescribeStacks).`,
  options: {
    dir: {
      type: 'string',
      value: '<dir|s3://bucket/prefix>',
      help: 'the lake whose run records are judged',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    'state-dir': {
      type: 'string',
      value: '<dir>',
      help: "the local deployment's state directory: its registry <dir>/tenants/ (zones, hours, goals)",
      default: CLI_DEFAULTS.stateDir,
      defaultText: `./${CLI_DEFAULTS.stateDir}`,
      parse: nonEmptyValue,
    },
    stack: {
      ...TENANTS_DEPLOYMENT_OPTIONS.stack,
      help: 'a deployed multi-tenant stack: its outputs name the lake and the registry (--dir and --state-dir are not read)',
    },
    ...tenantOption('judge only this tenant of the registry'),
    json: { type: 'boolean', help: 'print one JSON document (docs/status.md lists every member)' },
    ...HELP_OPTION,
  },
  examples: [
    'report-export status',
    'report-export status --tenant london --json',
    'report-export status --stack ReportExport',
  ],
  notes: `Exit status: ${FRESHNESS_EXIT_CODES.ok} every report of every enabled tenant meets its goals, ${FRESHNESS_EXIT_CODES.warn} one is past warn_after (none past error_after), ${FRESHNESS_EXIT_CODES.error} one is past error_after or has no published day (or the command failed), 2 usage or configuration (an unknown tenant included). A disabled tenant is shown and judged but does not count: nothing runs it.`,
});
