import { defineCommand, HELP_OPTION, integerValue, nonEmptyValue } from '../../../command-line';
import { LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { tenantOption } from '../../shared/tenant-option';

/** `runs`: the latest run records. */
export const RUNS_COMMAND = defineCommand({
  name: 'runs',
  usage: 'Usage: report-export runs [--dir <dir>|s3://bucket/prefix] [--tenant <id>] [--limit <n>] [--json]',
  summary: 'Lists the latest run records (one per workflow execution), newest first.',
  description: `Finalize writes one record per execution to <prefix>/runs/dt=<UTC date>/<runId>.json:
status, dates, rows, partitions, files, per-job counts and the error of a failed run; a
multi-tenant deployment's under <prefix>/runs/tenant=<id>/dt=.../ (--tenant lists one tenant's).
--dir takes a local export directory or an s3:// URI (credentials and region from the
AWS environment, as the AWS CLI reads them).`,
  options: {
    dir: {
      type: 'string',
      value: '<dir|s3://bucket/prefix>',
      help: 'where the export is',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    ...tenantOption("only this tenant's runs (runs/tenant=<id>/); every tenant's when omitted"),
    limit: { type: 'string', value: '<n>', help: 'how many runs', parse: integerValue(1, 1000), default: 10 },
    json: { type: 'boolean', help: 'print the records as a JSON array (all members)' },
    ...HELP_OPTION,
  },
  examples: [
    'report-export runs',
    'report-export runs --tenant acme --limit 5',
    'report-export runs --dir s3://my-lake/exports --limit 3 --json',
  ],
  notes:
    'Exit status: 0 listed (none is not an error), 2 usage or configuration error: --dir not a directory, or for s3:// the AWS credentials, region or bucket missing (checked before listing, as every AWS command does).',
});
