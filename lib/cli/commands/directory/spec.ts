import { DEFAULT_PHONE_REGION, type PhoneRegion } from '../../../api/phone-region';
import { isGuid } from '../../../api/validate';
import {
  defineCommand,
  HELP_OPTION,
  integerValue,
  nonEmptyValue,
  renderCommandList,
  UsageError,
  type ValueOption,
} from '../../../command-line';
import { DIRECTORY_FIELD_NAMES, type DirectoryFieldName } from '../../../spec';
import { CONFIG_FILE_OPTION, configOptions } from '../../shared/config';
import { tenantOption } from '../../shared/tenant-option';
import { TENANTS_DEPLOYMENT_OPTIONS } from '../../shared/tenants-spec';

/**
 * The specs of `directory` and its subcommands (options, help, completion), and the light
 * constants and value parsers they need: what the program loads for help and completion.
 * The code that runs them (items.ts, sync-command.ts, client.ts) loads the client.
 */

/** Variable naming the directory when `--directory` is not given. */
export const DIRECTORY_ENV = 'REPORT_EXPORT_DIRECTORY';

/** The usage error of a `--default-region` that is no country code the phone library knows. */
export const regionMessage = (flag: string, raw: string): string =>
  `${flag} must be an ISO 3166 country code such as GB, US or DE, got '${raw}'`;

/**
 * Two letters, upper-cased; whether the phone library knows the country is checked when the
 * command runs (supportedRegion in client.ts), so the help and completion need not load it.
 */
const regionValue = (raw: string, flag: string): PhoneRegion => {
  const region = raw.toUpperCase();
  if (!/^[A-Z]{2}$/.test(region)) throw new UsageError(regionMessage(flag, raw));
  return region as PhoneRegion;
};

/** Options every `directory` subcommand takes: where the service and the directory are. */
const CONNECTION_OPTIONS = {
  directory: {
    type: 'string',
    value: '<id|name>',
    help: `the directory: its id, or its exact name (else ${DIRECTORY_ENV})`,
  } as ValueOption<string>,
  ...CONFIG_FILE_OPTION,
  ...configOptions(['region', 'baseUrl', 'authUrl', 'secretFile', 'secretId', 'leaseStore']),
  ...tenantOption(
    "read and write as this tenant of the local deployment (tenants add): its stored login (tenants login), refreshed under its lease, unless a flag names another; with no npm start running, the local service is served on the deployment's kept state (<dir>/service) for the command",
  ),
  dir: {
    ...TENANTS_DEPLOYMENT_OPTIONS.dir,
    help: "with --tenant: the local deployment's state directory (its registry <dir>/tenants/, its logins <dir>/secrets/<id>.json)",
  },
} as const;

/** `--default-region`: the country of phone numbers written without +country code. */
const PHONE_REGION_OPTION = {
  'default-region': {
    type: 'string',
    value: '<CC>',
    help: 'country of phone numbers without a +country code, e.g. GB, US',
    parse: regionValue,
    default: DEFAULT_PHONE_REGION,
  } as ValueOption<PhoneRegion> & { default: PhoneRegion },
} as const;

/** Columns of a search when `--fields` does not choose them. */
export const DEFAULT_SEARCH_COLUMNS = ['crmId', 'fullName', 'companyName', 'phone1', 'email'] as const;

/** Rows in flight at once, unless the caller says otherwise. */
export const DEFAULT_SYNC_CONCURRENCY = 4;

const guidValue = (raw: string, flag: string): string => {
  if (!isGuid(raw))
    throw new UsageError(`${flag} must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), got '${raw}'`);
  return raw;
};

const fieldListValue = (raw: string, flag: string): DirectoryFieldName[] => {
  const names = raw.split(',').map((n) => n.trim());
  for (const n of names) {
    if (!(DIRECTORY_FIELD_NAMES as readonly string[]).includes(n)) {
      throw new UsageError(`${flag}: unknown field '${n}'; fields are ${DIRECTORY_FIELD_NAMES.join(', ')}`);
    }
  }
  return names as DirectoryFieldName[];
};

const COMMON = {
  ...CONNECTION_OPTIONS,
  json: { type: 'boolean', help: 'print JSON (for scripts)' },
  ...HELP_OPTION,
} as const;

const ITEM_OPTION = {
  item: { type: 'string', value: '<id>', help: 'the item id', parse: guidValue } as ValueOption<string>,
};
const CRM_OPTION = {
  'crm-id': { type: 'string', value: '<guid>', help: 'the crmId', parse: guidValue } as ValueOption<string>,
};

/** `fullName` -> `full-name`: one flag per item field. */
export const flagOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const FIELD_OPTIONS: Record<string, ValueOption<string>> = Object.fromEntries(
  DIRECTORY_FIELD_NAMES.map((f) => [
    flagOf(f),
    {
      type: 'string',
      value: '<text>',
      help: /^phone[1-4]$/.test(f)
        ? `field ${f} (normalised to E.164)`
        : f === 'crmId'
          ? 'field crmId (a GUID)'
          : `field ${f}`,
    },
  ]),
);

const FIELD_NOTES = `Field options: ${DIRECTORY_FIELD_NAMES.map(flagOf)
  .map((f) => `--${f}`)
  .join(', ')}.`;

const usage = (sub: string, rest: string) =>
  `Usage: report-export directory ${sub} --directory <id|name> ${rest}`;

export const DIRECTORY_SEARCH_COMMAND = defineCommand({
  name: 'search',
  usage: usage('search', '--text <text> [options]'),
  summary: 'Searches items: a CONTAINS match; phone-like texts match the stored E.164 numbers.',
  options: {
    text: {
      type: 'string',
      value: '<text>',
      help: 'search text, e.g. a name part or a phone number',
      parse: nonEmptyValue,
    },
    fields: {
      type: 'string',
      value: '<a,b>',
      help: 'fields searched and shown',
      defaultText: `all searched, shown: ${DEFAULT_SEARCH_COLUMNS.join(',')}`,
      parse: fieldListValue,
    },
    ...PHONE_REGION_OPTION,
    ...COMMON,
  },
  examples: [
    `report-export directory search --directory "Company contacts" --text hart`,
    `report-export directory search --directory "Company contacts" --text "07700 900123" --json`,
  ],
});

export const DIRECTORY_GET_COMMAND = defineCommand({
  name: 'get',
  usage: usage('get', '--item <id> [options]'),
  summary: 'Prints one item.',
  options: { ...ITEM_OPTION, ...COMMON },
  examples: [`report-export directory get --directory "Company contacts" --item 3f2b…`],
});

export const DIRECTORY_GET_BY_CRM_COMMAND = defineCommand({
  name: 'get-by-crm',
  usage: usage('get-by-crm', '--crm-id <guid> [options]'),
  summary: 'Prints the items with a crmId.',
  options: { ...CRM_OPTION, ...COMMON },
  examples: [`report-export directory get-by-crm --directory "Company contacts" --crm-id 0c1d… --json`],
});

export const DIRECTORY_CREATE_COMMAND = defineCommand({
  name: 'create',
  usage: usage('create', '--<field> <text> ... [options]'),
  summary: 'Creates an item from the field options given.',
  options: { ...FIELD_OPTIONS, ...PHONE_REGION_OPTION, ...COMMON },
  examples: [
    `report-export directory create --directory "Company contacts" --full-name "Ann Lee" --phone1 "07700 900123" --crm-id 2b6f…`,
  ],
  notes: `${FIELD_NOTES}\nA create is not repeated after a timeout (it may have been applied): look with get-by-crm first.`,
});

export const DIRECTORY_REPLACE_COMMAND = defineCommand({
  name: 'replace',
  usage: usage('replace', '--item <id> --<field> <text> ... [options]'),
  summary: 'Replaces an item: it then holds exactly the fields given (others are removed).',
  options: { ...ITEM_OPTION, ...FIELD_OPTIONS, ...PHONE_REGION_OPTION, ...COMMON },
  examples: [
    `report-export directory replace --directory "Company contacts" --item 3f2b… --full-name "Ann Lee" --email ann@example.com`,
  ],
  notes: FIELD_NOTES,
});

export const DIRECTORY_DELETE_COMMAND = defineCommand({
  name: 'delete',
  usage: usage('delete', '--item <id> [options]'),
  summary: 'Deletes an item and prints it.',
  options: { ...ITEM_OPTION, ...COMMON },
  examples: [`report-export directory delete --directory "Company contacts" --item 3f2b…`],
});

export const DIRECTORY_DELETE_BY_CRM_COMMAND = defineCommand({
  name: 'delete-by-crm',
  usage: usage('delete-by-crm', '--crm-id <guid> [options]'),
  summary: 'Deletes the oldest item with a crmId and prints it.',
  options: { ...CRM_OPTION, ...COMMON },
  examples: [`report-export directory delete-by-crm --directory "Company contacts" --crm-id 0c1d…`],
  notes: 'When several items share the crmId, run it once per item (each run deletes one).',
});

/** `directory sync --csv <file>`: upserts the file's rows by crmId. */
export const DIRECTORY_SYNC_COMMAND = defineCommand({
  name: 'sync',
  usage: 'Usage: report-export directory sync --directory <id|name> --csv <file> [options]',
  summary: 'Makes a directory hold the contacts of a CSV file, matched by crmId.',
  description: `The header row names directory fields (title, fullName, companyName, jobTitle,
phone1..phone4, email, crmId, field1..field10, avatar); a crmId column is required.
Each row is looked up by crmId: created when absent, replaced when a value differs
(fields without a column are kept; an empty cell removes the field), left alone when
equal. Phones are normalised to E.164 (an extension, e.g. 'ext. 12', cannot be kept
there: the row is applied without it and listed under Warnings). Bad rows (malformed, wrong column count,
duplicate crmId, bad phone or crmId) are listed with their line and skipped; the other
rows are applied. Nothing is remembered between runs: run it again after an
interruption and it finishes the job without duplicates.`,
  options: {
    csv: {
      type: 'string',
      value: '<file>',
      help: 'contacts file: CSV (RFC 4180), UTF-8, header row',
      parse: nonEmptyValue,
    },
    'dry-run': { type: 'boolean', help: 'look up every row and print the plan; change nothing' },
    'delete-missing': {
      type: 'boolean',
      help: 'also delete items whose crmId the file does not name (never when a row is unreadable)',
    },
    concurrency: {
      type: 'string',
      value: '<n>',
      help: 'rows in flight at once',
      default: DEFAULT_SYNC_CONCURRENCY,
      parse: integerValue(1, 16),
    },
    ...PHONE_REGION_OPTION,
    ...CONNECTION_OPTIONS,
    json: { type: 'boolean', help: 'print the report as JSON (for scripts)' },
    ...HELP_OPTION,
  },
  examples: [
    'report-export directory sync --directory "Company contacts" --csv contacts.csv --dry-run',
    'report-export directory sync --directory "Company contacts" --csv contacts.csv --default-region US',
    'report-export directory sync --directory 7d0e… --csv contacts.csv --delete-missing --json',
  ],
  notes: `Exit status: 0 when every row is in place, 1 when a row failed or the sync stopped
(the report says which; run again to finish), 2 for a usage error.`,
});

/** The subcommands, in the order the help lists them. */
const DIRECTORY_SUBCOMMANDS = [
  DIRECTORY_SEARCH_COMMAND,
  DIRECTORY_GET_COMMAND,
  DIRECTORY_GET_BY_CRM_COMMAND,
  DIRECTORY_CREATE_COMMAND,
  DIRECTORY_REPLACE_COMMAND,
  DIRECTORY_DELETE_COMMAND,
  DIRECTORY_DELETE_BY_CRM_COMMAND,
  DIRECTORY_SYNC_COMMAND,
];

/** `directory <subcommand>`: the contact directory endpoints, and `sync` from a CSV file. */
export const DIRECTORY_COMMAND = defineCommand({
  name: 'directory',
  usage: 'Usage: report-export directory <subcommand> [options]',
  summary: 'Contact directories: search, get, create, replace, delete items; sync from a CSV file.',
  description: `Every subcommand takes --directory (an id or a name) and uses the login's secret
(report-export login), or REPORT_EXPORT_ACCESS_TOKEN with --base-url. With --tenant <id> of the local
deployment and no npm start running, the command serves the local service itself on the deployment's
kept state (<dir>/service, locked while it runs), so the next npm start syncs what it wrote. See
report-export directory <subcommand> --help.`,
  options: HELP_OPTION,
  examples: [
    'report-export directory search --directory "Company contacts" --text hart',
    'report-export directory sync --directory "Company contacts" --csv contacts.csv --dry-run',
    'report-export directory delete --tenant london --directory "Company contacts" --item <id>',
  ],
  subcommands: DIRECTORY_SUBCOMMANDS,
  notes: renderCommandList(DIRECTORY_SUBCOMMANDS)
    .replace(/^Commands:/, 'Subcommands:')
    .trimEnd(),
});
