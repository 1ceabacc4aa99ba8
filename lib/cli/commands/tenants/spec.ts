import { defineCommand, HELP_OPTION, nonEmptyValue, renderCommandList } from '../../../command-line';
import { TENANTS_DEPLOYMENT_OPTIONS, TENANTS_LOGIN_COMMAND, TENANTS_WHERE } from '../../shared/tenants-spec';

const JSON_OPTION = { json: { type: 'boolean', help: 'print JSON (for scripts)' } } as const;

/** The members of a registry entry, as flags (add: all but --disabled required; set: any). */
const ENTRY = {
  name: {
    type: 'string',
    value: '<text>',
    help: 'the tenant, for people (1-100 characters)',
    parse: nonEmptyValue,
  },
  region: {
    type: 'string',
    value: '<na|uk|eu|au|local>',
    help: "the service region of the tenant's grant",
    parse: nonEmptyValue,
  },
  'time-zone': {
    type: 'string',
    value: '<iana>',
    help: 'its IANA zone: its days, partitions and nightly hour',
    parse: nonEmptyValue,
  },
  workspace: { type: 'string', value: '<id>', help: 'its workspace id', parse: nonEmptyValue },
  reports: {
    type: 'string',
    value: '<id[=name],...>',
    help: 'the reports its nightly run exports (a name defaults to the id; repeatable)',
    parse: nonEmptyValue,
    multiple: true,
  },
  hour: { type: 'string', value: '<0-23>', help: 'local hour of its nightly run', parse: nonEmptyValue },
  'look-back': {
    type: 'string',
    value: '<days>',
    help: 'earlier days each nightly run exports again (0-90)',
    parse: nonEmptyValue,
  },
  country: {
    type: 'string',
    value: '<CC>',
    help: "ISO country its contacts' national phone numbers are read in (default, or auto: its zone's)",
    parse: nonEmptyValue,
  },
  directories: {
    type: 'string',
    value: '<id,...>',
    help: 'the contact directories it exports to the lake (default, or all: every one; repeatable)',
    parse: nonEmptyValue,
    multiple: true,
  },
  intraday: {
    type: 'string',
    value: '<minutes|off>',
    help: 'refresh today so far every 15, 20, 30, 60, 120 ... 720 minutes (default off; off turns it off)',
    parse: nonEmptyValue,
  },
  'intraday-hours': {
    type: 'string',
    value: '<from-to>',
    help: 'local hours the refreshes run in, e.g. 8-20 (from 08:00 up to 20:00; default 0-24)',
    parse: nonEmptyValue,
  },
  'warn-after': {
    type: 'string',
    value: '<minutes|auto>',
    help: 'freshness goal: warn when its newest data is older (default auto: from its night and refreshes; with --error-after)',
    parse: nonEmptyValue,
  },
  'error-after': {
    type: 'string',
    value: '<minutes|auto>',
    help: 'freshness goal: an error when its newest data is older (with --warn-after)',
    parse: nonEmptyValue,
  },
} as const;

export const TENANTS_ADD_COMMAND = defineCommand({
  name: 'add',
  usage:
    'Usage: report-export tenants add <id> --name <text> --region <r> --time-zone <iana> --workspace <id> --reports <id,...> --hour <h> --look-back <days> [--disabled] [options]',
  summary: 'Adds a tenant to the registry (and, in a stack, its nightly schedule).',
  description: `<id> is 1-32 lowercase letters, digits and inner hyphens. Every member is checked by the
registry's own parser before anything is written; an id already registered is refused. In a stack,
the tenant's schedule runs cron(0 <hour> * * ? *) in its zone (a 30-minute flexible window, the
stack's role, retry policy and dead-letter queue), ENABLED unless --disabled. Log the tenant in next:
report-export tenants login <id>.
${TENANTS_WHERE}`,
  options: {
    ...ENTRY,
    disabled: { type: 'boolean', help: 'registered but not run (its schedule DISABLED)' },
    ...TENANTS_DEPLOYMENT_OPTIONS,
    ...JSON_OPTION,
    ...HELP_OPTION,
  },
  examples: [
    "report-export tenants add acme --name 'Acme Ltd' --region uk --time-zone Europe/London --workspace ws-1 --reports 'r-1=Lost calls,r-2=Agents' --hour 2 --look-back 1",
    'report-export tenants add bruin --name Bruin --region na --time-zone America/New_York --workspace ws-9 --reports r-7 --hour 3 --look-back 0 --stack ReportExport',
  ],
});

export const TENANTS_SET_COMMAND = defineCommand({
  name: 'set',
  usage:
    'Usage: report-export tenants set <id> [--name ...] [--hour <h>] [--enabled|--disabled] ... [options]',
  summary: "Changes a tenant's entry (and, in a stack, its schedule).",
  description: `Only the members given change; the entry is checked whole by the registry's parser. In a
stack, the schedule is replaced with the entry's hour, zone and state (created if it was missing).
${TENANTS_WHERE}`,
  options: {
    ...ENTRY,
    enabled: { type: 'boolean', help: 'run it again (its schedule ENABLED)' },
    disabled: { type: 'boolean', help: 'stop running it (its schedule DISABLED; executions fail at Plan)' },
    ...TENANTS_DEPLOYMENT_OPTIONS,
    ...JSON_OPTION,
    ...HELP_OPTION,
  },
  examples: [
    'report-export tenants set acme --hour 4',
    'report-export tenants set bruin --disabled --stack ReportExport',
  ],
});

export const TENANTS_LIST_COMMAND = defineCommand({
  name: 'list',
  usage: 'Usage: report-export tenants list [--json] [options]',
  summary:
    'Lists the registered tenants: id, name, region, zone, hour, look-back, reports, country, directories, enabled.',
  description: TENANTS_WHERE,
  options: { ...TENANTS_DEPLOYMENT_OPTIONS, ...JSON_OPTION, ...HELP_OPTION },
  examples: ['report-export tenants list', 'report-export tenants list --stack ReportExport --json'],
});

export const TENANTS_REMOVE_COMMAND = defineCommand({
  name: 'remove',
  usage: 'Usage: report-export tenants remove <id> [--delete-data [--yes]] [options]',
  summary: 'Removes a tenant: its schedule, its secret and its registry entry; its data stays unless asked.',
  description: `In a stack the secret is scheduled for deletion with a 30-day recovery window (restore-secret
undoes it); locally the secret file is deleted. --delete-data also deletes every object of the
tenant's partitions, staging and run records (tenant=<id>/ under the lake), after a confirmation
(--yes skips it; without a terminal --yes is required). Iceberg tables keep the removed files in
their history: later snapshots no longer list the tenant's partitions only after its rows are
overwritten; query and Athena read the current snapshot.
${TENANTS_WHERE}`,
  options: {
    'delete-data': { type: 'boolean', help: "also delete the tenant's objects in the lake" },
    yes: { type: 'boolean', short: 'y', help: 'do not ask before deleting data' },
    ...TENANTS_DEPLOYMENT_OPTIONS,
    ...JSON_OPTION,
    ...HELP_OPTION,
  },
  examples: [
    'report-export tenants remove acme',
    'report-export tenants remove bruin --delete-data --yes --stack ReportExport',
  ],
});

export const TENANTS_STATUS_COMMAND = defineCommand({
  name: 'status',
  usage: 'Usage: report-export tenants status [<id>] [--check-login] [--json] [options]',
  summary:
    'Per tenant: last run and outcome, newest exported day, held partitions, freshness verdict, login, schedule.',
  description: `Reads the run records (runs/tenant=<id>/), the tenant's secret (is there a login, when its access
token expires) and, in a stack, its schedule (absent, ENABLED or DISABLED). --check-login refreshes
each login once, under the tenant's token-refresh lease as the deployment's runs take it (a rotated
refresh token is stored, nothing is consumed): 'refreshes' or why not. The verdict (ok, warn, error)
is report-export status's judgement of its data, the worst of its reports (status shows each).
${TENANTS_WHERE}`,
  options: {
    'check-login': { type: 'boolean', help: "refresh each tenant's login now to see that it still works" },
    ...TENANTS_DEPLOYMENT_OPTIONS,
    ...JSON_OPTION,
    ...HELP_OPTION,
  },
  examples: [
    'report-export tenants status',
    'report-export tenants status acme --check-login --stack ReportExport',
  ],
  notes:
    "Exit status: 0 shown (whatever the tenants' state), 1 failure, 2 usage (an unknown tenant included).",
});

const SUBCOMMANDS = [
  TENANTS_ADD_COMMAND,
  TENANTS_SET_COMMAND,
  TENANTS_LIST_COMMAND,
  TENANTS_LOGIN_COMMAND,
  TENANTS_REMOVE_COMMAND,
  TENANTS_STATUS_COMMAND,
];

/** `tenants`: the tenants of a multi-tenant deployment. */
export const TENANTS_COMMAND = defineCommand({
  name: 'tenants',
  usage: 'Usage: report-export tenants <add|set|list|login|remove|status> [<id>] [options]',
  summary: 'Manages the tenants of a multi-tenant deployment: add, change, list, log in, remove, status.',
  description: `A multi-tenant deployment keeps one registry entry per tenant (its zone, workspace, reports,
nightly hour, look-back), one secret per tenant, and in AWS one schedule per tenant. Adding,
changing or removing one needs no redeploy.

${renderCommandList(SUBCOMMANDS).trimEnd()}`,
  options: { ...HELP_OPTION },
  examples: [
    'report-export tenants list',
    'report-export tenants status --stack ReportExport',
    'report-export help tenants add',
  ],
  subcommands: SUBCOMMANDS,
});
