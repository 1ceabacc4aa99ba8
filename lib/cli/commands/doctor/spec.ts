import { defineCommand, HELP_OPTION, nonEmptyValue } from '../../../command-line';
import { CONFIG_FILE_OPTION } from '../../shared/config';
import { TENANTS_DEPLOYMENT_OPTIONS } from '../../shared/tenants-spec';

/**
 * The exit status of `doctor`, as `report-export status` judges the data: 0 healthy, 3 only
 * warnings (nothing stops a deployment, but someone should look: a Nagios WARNING, told apart
 * from its CRITICAL), 1 at least one failure (something named would stop a deployment or a
 * run). 2 stays a usage error (a mistyped flag), as in every command; a configuration value
 * doctor finds wrong is a failed check (exit 1), not a usage error: finding it is its job.
 * 3 is also the workflow commands' "held partitions": the same meaning, succeeded but look.
 */
export const DOCTOR_EXIT_CODES = { healthy: 0, failed: 1, warnings: 3 } as const;

const { dir, lake } = TENANTS_DEPLOYMENT_OPTIONS;

export const DOCTOR_COMMAND = defineCommand({
  name: 'doctor',
  usage: 'Usage: report-export doctor [--check] [--stack <name>] [--json] [options]',
  summary:
    'Names what would stop a deployment or a run, before any work: configuration, tenants, logins, lake, AWS.',
  description: `Offline by default, touching no network: the configuration (flags, REPORT_EXPORT_*, the config
file), the stack's settings in ./cdk.json (validated as synthesis validates them), the local
deployment's tenant registry (every entry parsed, a misnamed file named), each tenant's stored
login (present, a refresh token, mode 0600), the single-tenant login file, and the local lake's
Iceberg tables (each one's metadata and manifests readable).

--check also asks AWS (credentials and region from the environment, as the AWS CLI takes them):
STS GetCallerIdentity (whose account); Lake Formation GetDataLakeSettings and ListPermissions
with Glue GetDatabase and GetTables (the stack works only where the catalog uses IAM access
control: IAMAllowedPrincipals holds ALL on the database and its tables, or, before the database
exists, "Use only IAM access control" for new databases and tables); Lambda GetAccountSettings
(the account's concurrent executions against what one execution runs at once, mapConcurrency + 1;
ExportResults' memory, exportMemoryMb, against the 3,008 MB new accounts are held to); with
--stack, CloudFormation DescribeStacks, Scheduler GetScheduleGroup of the stack's group, and the
stack's registry in S3. And it refreshes each login once (the tenants', or --stack's secret), under
its token-refresh lease as a run takes it: the rotated refresh token is stored, nothing is used up.

Every check has an id, a group, a status (ok, warn, fail, skip) and one line naming what is wrong
and the fix. No secret or token is ever printed: values read from a secret or the environment are
redacted from every line, the service's error text included.`,
  options: {
    check: { type: 'boolean', help: 'also ask AWS, and refresh each login once (see above)' },
    stack: {
      type: 'string',
      value: '<name>',
      help: 'a deployed stack (single- or multi-tenant) to check instead of the local deployment; needs --check',
      defaultText: 'the local deployment',
      parse: nonEmptyValue,
    },
    dir,
    lake,
    'cdk-json': {
      type: 'string',
      value: '<path>',
      help: "the CDK app's cdk.json whose context.reportExport the stack deploys",
      defaultText: './cdk.json when present',
      parse: nonEmptyValue,
    },
    ...CONFIG_FILE_OPTION,
    json: {
      type: 'boolean',
      help: 'print one JSON object: {version, status, exitCode, mode, target, counts, checks: [{id, group, subject, status, message, fix}]}',
    },
    ...HELP_OPTION,
  },
  examples: [
    'report-export doctor',
    'report-export doctor --check',
    'report-export doctor --check --stack ReportExport --json',
  ],
  notes: `Exit status: ${DOCTOR_EXIT_CODES.healthy} every check ok (or skipped), ${DOCTOR_EXIT_CODES.warnings} warnings only, ${DOCTOR_EXIT_CODES.failed} at least one check failed, 2 usage (a wrong flag; --stack without --check).`,
});
