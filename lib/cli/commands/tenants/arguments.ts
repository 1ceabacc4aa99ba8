import { UsageError } from '../../../command-line';
import { parseTenantEntry, TenantConfigError, type TenantEntry } from '../../../workflow';

/** The entry members as the flags of add and set give them (strings; the registry's parser checks them). */
export interface EntryFlags {
  name?: string | undefined;
  region?: string | undefined;
  'time-zone'?: string | undefined;
  workspace?: string | undefined;
  reports?: string[] | undefined;
  hour?: string | undefined;
  'look-back'?: string | undefined;
  country?: string | undefined;
  directories?: string[] | undefined;
}

/** The flag of each entry member, for errors. */
const FLAG_OF: Readonly<Record<string, string>> = {
  name: '--name',
  region: '--region',
  timeZone: '--time-zone',
  workspaceId: '--workspace',
  reports: '--reports',
  hour: '--hour',
  lookBackDays: '--look-back',
  country: '--country',
  directories: '--directories',
  enabled: '--enabled/--disabled',
};

/** A whole number as a number (so the parser names the range), anything else as given (so it names the type). */
function numberOrText(raw: string): number | string {
  return /^-?\d{1,6}$/.test(raw.trim()) ? Number(raw) : raw;
}

/** `a,b` (repeatable): the items, trimmed, empty ones dropped. */
function listOf(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `id[=name],...` (repeatable): the reports; a name defaults to the id. */
function reportsOf(values: readonly string[]): { id: string; name: string }[] {
  return listOf(values).map((item) => {
    const at = item.indexOf('=');
    return at === -1
      ? { id: item, name: item }
      : { id: item.slice(0, at).trim(), name: item.slice(at + 1).trim() };
  });
}

/** The members the flags give (only those given). */
export function entryMembers(v: EntryFlags): Partial<Record<keyof TenantEntry, unknown>> {
  const out: Partial<Record<keyof TenantEntry, unknown>> = {};
  if (v.name !== undefined) out.name = v.name;
  if (v.region !== undefined) out.region = v.region;
  if (v['time-zone'] !== undefined) out.timeZone = v['time-zone'];
  if (v.workspace !== undefined) out.workspaceId = v.workspace;
  if (v.reports !== undefined) out.reports = reportsOf(v.reports);
  if (v.hour !== undefined) out.hour = numberOrText(v.hour);
  if (v['look-back'] !== undefined) out.lookBackDays = numberOrText(v['look-back']);
  // `auto` and `all` put back the default: the member is removed (undefined, dropped on write).
  if (v.country !== undefined) {
    const country = v.country.trim().toUpperCase();
    out.country = country === 'AUTO' ? undefined : country;
  }
  if (v.directories !== undefined) {
    const ids = listOf(v.directories);
    out.directories = ids.length === 1 && ids[0] === 'all' ? undefined : ids;
  }
  return out;
}

/**
 * The entry checked by the registry's own parser (what the functions read back); its
 * TenantConfigError, which names each wrong member and its value, becomes a usage error that
 * also names the flag to fix.
 */
export function checkedEntry(raw: Record<string, unknown>): TenantEntry {
  try {
    return parseTenantEntry(raw);
  } catch (cause) {
    if (!(cause instanceof TenantConfigError)) throw cause;
    const flags = Object.keys(FLAG_OF)
      .filter((member) => new RegExp(`\\b${member}\\b`).test(cause.message))
      .map((member) => FLAG_OF[member]);
    throw new UsageError(`${cause.message}${flags.length > 0 ? ` (fix ${flags.join(', ')})` : ''}`, {
      cause,
    });
  }
}

/** The members add requires, by flag, missing from `v`. */
export function missingForAdd(v: EntryFlags): string[] {
  const required: (keyof EntryFlags)[] = [
    'name',
    'region',
    'time-zone',
    'workspace',
    'reports',
    'hour',
    'look-back',
  ];
  return required.filter((k) => v[k] === undefined).map((k) => `--${k}`);
}
