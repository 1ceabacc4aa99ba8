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
  intraday?: string | undefined;
  'intraday-hours'?: string | undefined;
  'warn-after'?: string | undefined;
  'error-after'?: string | undefined;
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
  intraday: '--intraday/--intraday-hours',
  freshness: '--warn-after/--error-after',
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

/** `8-20`: the hours a refresh runs in; anything else as given (the parser names it). */
function hoursOf(raw: string): { fromHour: unknown; toHour: unknown } {
  const m = /^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$/.exec(raw);
  if (m === null) {
    throw new UsageError(`--intraday-hours must be <from>-<to> in local hours, such as 8-20, got '${raw}'`);
  }
  return { fromHour: Number(m[1]), toHour: Number(m[2]) };
}

/**
 * The intraday member from --intraday and --intraday-hours over what the entry had (`off`
 * removes it: undefined); undefined in `out` when neither flag is given.
 */
function intradayOf(v: EntryFlags, current: TenantEntry['intraday']): { value: unknown } | undefined {
  if (v.intraday === undefined && v['intraday-hours'] === undefined) return undefined;
  if (v.intraday?.trim().toLowerCase() === 'off') {
    if (v['intraday-hours'] !== undefined)
      throw new UsageError('--intraday-hours needs --intraday <minutes>, not off');
    return { value: undefined };
  }
  const hours = v['intraday-hours'] === undefined ? undefined : hoursOf(v['intraday-hours']);
  const every = v.intraday === undefined ? current?.everyMinutes : numberOrText(v.intraday);
  if (every === undefined)
    throw new UsageError('--intraday-hours needs --intraday <minutes> (the tenant has no refreshes)');
  return {
    value: {
      everyMinutes: every,
      fromHour: hours?.fromHour ?? current?.fromHour ?? 0,
      toHour: hours?.toHour ?? current?.toHour ?? 24,
    },
  };
}

/** The freshness member from --warn-after and --error-after (`auto` on both removes it). */
function freshnessOf(v: EntryFlags, current: TenantEntry['freshness']): { value: unknown } | undefined {
  const [warn, error] = [v['warn-after'], v['error-after']];
  if (warn === undefined && error === undefined) return undefined;
  const auto = (x: string | undefined) => x?.trim().toLowerCase() === 'auto';
  if (auto(warn) || auto(error)) {
    if (!(auto(warn) || warn === undefined) || !(auto(error) || error === undefined)) {
      throw new UsageError('--warn-after and --error-after are auto together, or minutes together');
    }
    return { value: undefined };
  }
  const w = warn === undefined ? current?.warnAfterMinutes : numberOrText(warn);
  const e = error === undefined ? current?.errorAfterMinutes : numberOrText(error);
  if (w === undefined || e === undefined) {
    throw new UsageError('freshness goals need both --warn-after and --error-after (minutes)');
  }
  return { value: { warnAfterMinutes: w, errorAfterMinutes: e } };
}

/** The members the flags give (only those given); `current` is the entry a `set` changes. */
export function entryMembers(
  v: EntryFlags,
  current?: TenantEntry,
): Partial<Record<keyof TenantEntry, unknown>> {
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
  const intraday = intradayOf(v, current?.intraday);
  if (intraday !== undefined) out.intraday = intraday.value;
  const freshness = freshnessOf(v, current?.freshness);
  if (freshness !== undefined) out.freshness = freshness.value;
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

/** The members add requires, by flag. */
const REQUIRED_FOR_ADD: readonly (keyof EntryFlags)[] = [
  'name',
  'region',
  'time-zone',
  'workspace',
  'reports',
  'hour',
  'look-back',
];

/** Every entry member's flag: the required ones and the optional ones. */
const ENTRY_FLAGS: readonly (keyof EntryFlags)[] = [
  ...REQUIRED_FOR_ADD,
  'country',
  'directories',
  'intraday',
  'intraday-hours',
  'warn-after',
  'error-after',
];

/** Whether any entry member's flag is given (what a `set` changes). */
export function entryFlagGiven(v: EntryFlags): boolean {
  return ENTRY_FLAGS.some((f) => v[f] !== undefined);
}

/** The members add requires, by flag, missing from `v`. */
export function missingForAdd(v: EntryFlags): string[] {
  return REQUIRED_FOR_ADD.filter((k) => v[k] === undefined).map((k) => `--${k}`);
}
