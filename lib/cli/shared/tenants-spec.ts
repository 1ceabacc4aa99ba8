import { defineCommand, HELP_OPTION, integerValue, nonEmptyValue } from '../../command-line';
import { CONFIG_FILE_OPTION, configOptions } from './config';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from './defaults';

/**
 * What the `tenants` subcommands share, and `tenants login`'s spec (run by the login
 * command's code, which it shares): light, for help and completion.
 */

/** Where the tenants are: a local deployment (`--dir`, `--lake`) or a multi-tenant stack (`--stack`). */
export const TENANTS_DEPLOYMENT_OPTIONS = {
  dir: {
    type: 'string',
    value: '<dir>',
    help: "a local deployment's state directory: registry <dir>/tenants/, secrets <dir>/secrets/<id>.json",
    default: CLI_DEFAULTS.stateDir,
    defaultText: `./${CLI_DEFAULTS.stateDir}`,
    parse: nonEmptyValue,
  },
  lake: {
    type: 'string',
    value: '<dir>',
    help: "a local deployment's lake (run records, partitions)",
    ...LAKE_DIR_DEFAULT,
    parse: nonEmptyValue,
  },
  stack: {
    type: 'string',
    value: '<name>',
    help: "a deployed multi-tenant stack (tenancy 'multi'): its outputs name the registry, secrets and schedules",
    defaultText: 'the local deployment',
    parse: nonEmptyValue,
  },
} as const;

export const TENANTS_WHERE = `Without --stack, the local deployment npm start keeps (--dir, --lake). With --stack <name>, the
deployed stack's outputs (DescribeStacks; AWS credentials and region from the environment): its
registry in S3, each tenant's secret report-export/<stack>/tenants/<id>, and each tenant's EventBridge
Scheduler schedule in the stack's group, created, changed and deleted here (no redeploy).`;

/** The browser sign-in's options, `login`'s and `tenants login`'s. */
export const BROWSER_LOGIN_OPTIONS = {
  timeout: {
    type: 'string',
    value: '<seconds>',
    help: 'give up when no sign-in arrives in time',
    default: 300,
    parse: integerValue(1, 3600),
  },
  'no-open': { type: 'boolean', help: 'only print the URL; do not open a browser' },
} as const;

const LOGIN_JSON_OPTION = {
  json: { type: 'boolean', help: 'print one JSON line (where the secret is, expiry; never a token)' },
} as const;

export const TENANTS_LOGIN_COMMAND = defineCommand({
  name: 'login',
  usage: 'Usage: report-export tenants login <id> --client-id <id> [options]',
  summary: "Signs a tenant in (login's browser flow) and stores the grant in that tenant's secret.",
  description: `The flow of report-export login, into the tenant's own secret: <dir>/secrets/<id>.json locally
(mode 0600), or in a stack the secret report-export/<stack>/tenants/<id> (created with the stack's
KMS key when absent). --region defaults to the tenant's region (a 'local' tenant needs --base-url
and --auth-url). Sign in as a user of that tenant: the grant reaches only its reports.
${TENANTS_WHERE}`,
  options: {
    ...configOptions(['region', 'baseUrl', 'authUrl', 'clientId', 'redirectUri']),
    ...CONFIG_FILE_OPTION,
    ...BROWSER_LOGIN_OPTIONS,
    ...TENANTS_DEPLOYMENT_OPTIONS,
    ...LOGIN_JSON_OPTION,
    ...HELP_OPTION,
  },
  examples: [
    'report-export tenants login acme --client-id my-app',
    'REPORT_EXPORT_CLIENT_SECRET=... report-export tenants login bruin --client-id my-app --stack ReportExport',
  ],
});
