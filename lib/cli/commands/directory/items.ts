import { type PhoneRegion, type ServiceClient, ValidationError } from '../../../api';
import { parseOrHelp, UsageError } from '../../../command-line';
import { DIRECTORY_FIELD_NAMES, type DirectoryItemFields } from '../../../spec';
import type { IOStreams } from '../../shared/io-streams';
import { connect, resolveDirectory, supportedRegion } from './client';
import { itemsTable, itemsText, itemText, writeJson } from './output';
import type { ServedServices } from './served-service';
import {
  DEFAULT_SEARCH_COLUMNS,
  DIRECTORY_CREATE_COMMAND,
  DIRECTORY_DELETE_BY_CRM_COMMAND,
  DIRECTORY_DELETE_COMMAND,
  DIRECTORY_GET_BY_CRM_COMMAND,
  DIRECTORY_GET_COMMAND,
  DIRECTORY_REPLACE_COMMAND,
  DIRECTORY_SEARCH_COMMAND,
  flagOf,
} from './spec';

/**
 * `directory search | get | get-by-crm | create | replace | delete | delete-by-crm`: one
 * call each on the contact directory endpoints, printed for people or as `--json`.
 */

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
  services: ServedServices,
): Promise<{ api: ServiceClient; directoryId: string }> {
  const api = await connect({
    flags: v,
    io,
    services,
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

export async function directorySearch(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_SEARCH_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  supportedRegion(v['default-region']);
  const text = required(v.text, '--text');
  const { api, directoryId } = await open(v, io, services);
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

export async function directoryGet(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_GET_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const itemId = required(v.item, '--item');
  const { api, directoryId } = await open(v, io, services);
  const item = await api.directories.getItem(directoryId, itemId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryGetByCrm(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_GET_BY_CRM_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const crmId = required(v['crm-id'], '--crm-id');
  const { api, directoryId } = await open(v, io, services);
  const items = await api.directories.getItemsByCrmId(directoryId, crmId);
  if (v.json) writeJson(io.stdout, items);
  else io.stdout.write(itemsText(items));
  return 0;
}

export async function directoryCreate(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_CREATE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  supportedRegion(v['default-region']);
  const fields = fieldsOf(v);
  const { api, directoryId } = await open(v, io, services);
  const { item } = await api.directories.createItem(directoryId, fields).catch(asUsageError);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryReplace(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_REPLACE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  supportedRegion(v['default-region']);
  const itemId = required(v.item as string | undefined, '--item');
  const fields = fieldsOf(v);
  const { api, directoryId } = await open(v, io, services);
  const { item } = await api.directories.replaceItem(directoryId, itemId, fields).catch(asUsageError);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryDelete(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_DELETE_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const itemId = required(v.item, '--item');
  const { api, directoryId } = await open(v, io, services);
  const item = await api.directories.deleteItem(directoryId, itemId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}

export async function directoryDeleteByCrm(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_DELETE_BY_CRM_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const crmId = required(v['crm-id'], '--crm-id');
  const { api, directoryId } = await open(v, io, services);
  const item = await api.directories.deleteItemByCrmId(directoryId, crmId);
  if (v.json) writeJson(io.stdout, item);
  else io.stdout.write(itemText(item));
  return 0;
}
