import {
  choiceValue,
  defineCommand,
  HELP_OPTION,
  integerValue,
  nonEmptyValue,
  UsageError,
} from '../../../command-line';
import { PARQUET_CODECS } from '../../../export/formats/parquet-codecs';
import { SETTINGS_DEFAULTS } from '../../../workflow/settings-defaults';
import { catalogOption } from '../../shared/catalog-option';
import { CONFIG_FILE_OPTION, configOptions } from '../../shared/config';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { DRY_RUN_OPTIONS, EXECUTION_INPUT_OPTIONS } from '../../shared/execution-input-spec';
import { HELD_EXIT_NOTE } from '../../shared/exit-codes';
import { tenantOption } from '../../shared/tenant-option';
import { TENANTS_DEPLOYMENT_OPTIONS } from '../../shared/tenants-spec';

/** `run`: one export on this machine, through the same state machine the deployment runs. */
export const RUN_COMMAND = defineCommand({
  name: 'run',
  usage: 'Usage: report-export run (--date <d> | --from <d> --to <d> | --preset <name>) [options]',
  summary:
    'Runs one export on this machine through the workflow, against any service, into a directory or S3.',
  description: `Executes the synthesized state machine locally (as report-export workflow does), with the
stored login (see login) against its service or the one --base-url/--region names,
into --out (a directory or s3://bucket/prefix). States show on stderr; a summary (or
--json, one line) on stdout.`,
  options: {
    ...EXECUTION_INPUT_OPTIONS,
    ...tenantOption(
      "export as this tenant of the local deployment (tenants add): its entry's zone, workspace and reports and its stored login (tenants login) unless a flag names them; tenant=<id>/ keys, the tables' tenant column",
    ),
    dir: {
      ...TENANTS_DEPLOYMENT_OPTIONS.dir,
      help: "with --tenant: the local deployment's state directory (its registry <dir>/tenants/, its logins <dir>/secrets/<id>.json)",
    },
    out: {
      type: 'string',
      value: '<dir|s3://bucket/prefix>',
      help: 'where the data lake is',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    format: {
      type: 'string',
      value: '<list>',
      help: "formats written: only 'parquet,csv' (both, always) today",
      parse: formatsValue,
    },
    'csv-gzip': { type: 'boolean', help: 'write .csv.gz instead of .csv' },
    catalog: catalogOption(['file', 'hive', 'glue']),
    'parquet-codec': {
      type: 'string',
      value: '<codec>',
      help: Object.values(PARQUET_CODECS).join(', '),
      parse: choiceValue(Object.values(PARQUET_CODECS)),
      default: SETTINGS_DEFAULTS.parquetCodec,
    },
    'wait-ms': {
      type: 'string',
      value: '<ms>',
      help: 'pause between status polls of a report',
      default: CLI_DEFAULTS.pollMs,
      parse: integerValue(0, 600_000),
    },
    ...configOptions([
      'region',
      'baseUrl',
      'authUrl',
      'secretFile',
      'secretId',
      'workspace',
      'timeZone',
      'leaseStore',
      's3Endpoint',
    ]),
    ...CONFIG_FILE_OPTION,
    json: { type: 'boolean', help: 'print one JSON line {status, jobs, rows, partitions, files, ...}' },
    ...DRY_RUN_OPTIONS.run,
    ...HELP_OPTION,
  },
  examples: [
    'report-export run --time-zone Europe/London --date 2026-11-20',
    'report-export run --time-zone Europe/London --from 2026-11-01 --to 2026-11-14 --report "Lost calls" --out ./lake --csv-gzip',
    'report-export run --time-zone Europe/London --preset LastWeek --region uk --out s3://my-lake/calls --json',
    'report-export run --tenant acme --date 2026-11-20 --dry-run',
  ],
  notes: `Exit status: 0 the execution SUCCEEDED, 1 it failed, 2 usage or configuration error: a date
after today in --time-zone, or AWS credentials, region, the --secret-id secret or the
s3:// bucket missing (checked before the service is asked anything), ${HELD_EXIT_NOTE}.`,
});

function formatsValue(raw: string, flag: string): 'parquet,csv' {
  const formats = new Set(raw.split(',').map((f) => f.trim().toLowerCase()));
  for (const f of formats) {
    if (f !== 'parquet' && f !== 'csv') throw new UsageError(`${flag}: unknown format '${f}' (parquet, csv)`);
  }
  if (formats.size !== 2) {
    throw new UsageError(
      `${flag} ${raw}: the export writes Parquet and CSV together; choosing one format is not supported yet (use --format parquet,csv)`,
    );
  }
  return 'parquet,csv';
}
