import { type PhoneRegion, type ServiceClient, ValidationError } from '../../../api';
import { isGuid } from '../../../api/validate';
import {
  defineCommand,
  HELP_OPTION,
  nonEmptyValue,
  parseOrHelp,
  UsageError,
  type ValueOption,
} from '../../../command-line/options';
import {
  DIRECTORY_FIELD_NAMES,
  type DirectoryFieldName,
  type DirectoryItemFields,
} from '../../../spec/types';
import type { IOStreams } from '../../shared/io-streams';
import { CONNECTION_OPTIONS, connect, PHONE_REGION_OPTION, resolveDirectory } from './client';
import { DEFAULT_SEARCH_COLUMNS, itemsTable, itemsText, itemText, writeJson } from './output';

/**
 * `directory search | get | get-by-crm | create | replace | delete | delete-by-crm`: one
 * call each on the contact directory endpoints, printed for people or as `--json`.
 */

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
const flagOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

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

function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`${flag} is required (see --help)`);
  return value;
}

/** The fields given as options; at least one. */
function fieldsOf(v: Readonly<Record<string, unknown>>): DirectoryItemFields {
  const fields: DirectoryItemFields = {};
  for (const name of DIRECTORY_FIELD_NAMES) {
    const value = v[flagOf(name)];
    if (typeof value === 'string') fields[name] = value;
  }
  if (Object.keys(fields).length === 0)
    throw new UsageError('give at least one field option, e.g. --full-name (see --help)');
  return fields;
}

async function open(
  v: Readonly<Record<string, unknown>>,
  io: IOStreams,
): Promise<{ api: ServiceClient; directoryId: string }> {
  const api = await connect({
    flags: v,
    io,
    defaultRegion: v['default-region'] as PhoneRegion | undefined,
  });
  const directory = await resolveDirectory(api, v.directory as string | undefined, io.env);
  return { api, directoryId: directory.id };
}

/** A field the client refused before sending (a phone that is no number, a crmId that is no GUID) names its flag. */
function asUsageError(error: unknown): never {
  const field = error instanceof ValidationError ? /^fields\.(\w+)$/.exec(error.argument)?.[1] : undefined;
  if (field === undefined) throw error;
  throw new UsageError(
    `--${flagOf(field)}: ${error instanceof Error ? error.message.replace(/^fields\.\w+: /, '') : ''}`,
  );
}

export async function directorySearch(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_SEARCH_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const text = required(v.text, '--text');
  const { api, directoryId } = await open(v, io);
  const items = await api.directories.searchItems(
    directoryId,
    text,
    v.fields === undefined ? {} : { fields: v.fields },
  );
  if (v.json) writeJson(io.stdout, items);
  else if (items.length === 0) io.stderr.write(`no item matches '${text}'\n`);
  else io.stdout.write(itemsTable(items, v.fields ?? DEFAULT_SEARCH_COLUMNS));
  return 0;
}

export async function directoryGet(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_GET_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const itemId = required(v.item, '--item');
  const { api, directoryId } = await open(v, io);
  const item = await api.directories.getItem(directoryId, itemId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryGetByCrm(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_GET_BY_CRM_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const crmId = required(v['crm-id'], '--crm-id');
  const { api, directoryId } = await open(v, io);
  const items = await api.directories.getItemsByCrmId(directoryId, crmId);
  if (v.json) writeJson(io.stdout, items);
  else io.stdout.write(itemsText(items));
  return 0;
}

export async function directoryCreate(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_CREATE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const fields = fieldsOf(v);
  const { api, directoryId } = await open(v, io);
  const { item } = await api.directories.createItem(directoryId, fields).catch(asUsageError);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryReplace(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_REPLACE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const itemId = required(v.item as string | undefined, '--item');
  const fields = fieldsOf(v);
  const { api, directoryId } = await open(v, io);
  const { item } = await api.directories.replaceItem(directoryId, itemId, fields).catch(asUsageError);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryDelete(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_DELETE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const itemId = required(v.item, '--item');
  const { api, directoryId } = await open(v, io);
  const item = await api.directories.deleteItem(directoryId, itemId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryDeleteByCrm(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(DIRECTORY_DELETE_BY_CRM_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const crmId = required(v['crm-id'], '--crm-id');
  const { api, directoryId } = await open(v, io);
  const item = await api.directories.deleteItemByCrmId(directoryId, crmId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}
