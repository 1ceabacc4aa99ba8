import { z } from 'zod';
import { REGIONS, requireRegion } from '../api';
import { isIanaZone } from '../calendar';
import { checkTenantId, TENANT_ID_PATTERN, TENANT_ID_RULE } from '../export';
import { type ObjectStore, readObjectIfPresent } from '../stores';
import { type AdapterOptions, objectStoreFromUri } from '../stores/aws';
import { TenantConfigError } from './errors';
import { describeIssues } from './input';
import { jobsWithinBudget, MAX_REPORT_FIELD_CHARS, SETTINGS_DEFAULTS } from './settings';

/** Service regions a tenant's grant may be in: the service's, and `local` (the local service). */
export const TENANT_REGIONS = [...REGIONS, 'local'] as const;

/**
 * One tenant of a multi-tenant deployment: what the deployment-wide settings TIME_ZONE,
 * WORKSPACE_ID, REPORTS and LOOKBACK_DAYS are for a single tenant, plus the hour of its
 * nightly run and whether it runs at all. Stored as `<registry prefix>/<id>.json`.
 */
export interface TenantEntry {
  /** The key (TENANT_ID_PATTERN): in every key, lease, secret name and session tag of its runs. */
  id: string;
  /** For people, 1..100 characters. */
  name: string;
  /** The service region of its grant. */
  region: (typeof TENANT_REGIONS)[number];
  /** IANA zone: its days, `dt` partitions and "yesterday". */
  timeZone: string;
  workspaceId: string;
  /** The reports it exports by default, 1..the jobs one execution may run. */
  reports: { id: string; name: string }[];
  /** Local hour (0..23) of its nightly run (its schedule's; Plan does not read it). */
  hour: number;
  /** Earlier days every nightly run re-exports, 0..90. */
  lookBackDays: number;
  /** A disabled tenant's executions fail at Plan (TenantDisabledError). */
  enabled: boolean;
  /**
   * ISO 3166 alpha-2 country (`GB`) its national phone numbers are read in, for contacts'
   * E.164; absent: the country of its time zone, where one zone names one country.
   */
  country?: string;
  /** The contact directories it exports to the lake, by id; absent: every directory it has. */
  directories?: string[];
  /** Intraday refreshes of today so far (its own schedule); absent: nightly only. */
  intraday?: IntradaySchedule;
  /** Its freshness goals; absent: derived from its night and intraday refreshes (lib/workflow/freshness). */
  freshness?: FreshnessGoals;
}

/**
 * The minute within each interval a tenant's refreshes start at: a stable hash of its id
 * (FNV-1a), below the interval (below 60 for one of hours). A thousand tenants on the same
 * interval start spread over all of it, not together at :00, :15 ...: at 15 minutes the
 * state transitions a second are a fifteenth of the peak a shared minute would make.
 */
export function intradayMinute(id: string, everyMinutes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash % Math.min(everyMinutes, 60);
}

/**
 * The cron expression of refreshes every `everyMinutes` from `fromHour`:00 up to `toHour`:00,
 * starting `minute` into each interval: `minute/every` for an interval under an hour (it
 * divides one), else the hours listed (`8,10,12`): EventBridge Scheduler documents `/` as a
 * start and an increment, not on a range.
 */
export function intradayCron(schedule: IntradaySchedule, minute = 0): string {
  const { everyMinutes: every, fromHour, toHour } = schedule;
  const step = Math.max(1, every / 60);
  const listed = Array.from({ length: Math.ceil((toHour - fromHour) / step) }, (_, i) => fromHour + i * step);
  const hours = step === 1 && listed.length > 1 ? `${fromHour}-${toHour - 1}` : listed.join(',');
  return every < 60 ? `cron(${minute}/${every} ${hours} * * ? *)` : `cron(${minute} ${hours} * * ? *)`;
}

/** Minutes between intraday refreshes a tenant may choose: divisors of a day, 15 at the least. */
export const INTRADAY_INTERVALS = [15, 20, 30, 60, 120, 180, 240, 360, 480, 720] as const;

/**
 * When a tenant's intraday refreshes run: every `everyMinutes`, at local times from `fromHour`:00
 * up to (not including) `toHour`:00 in its zone. Each refresh exports today so far (and
 * yesterday too, when the refresh before it was yesterday), replacing those days' partitions.
 */
export interface IntradaySchedule {
  everyMinutes: (typeof INTRADAY_INTERVALS)[number];
  /** 0..23, default 0. */
  fromHour: number;
  /** 1..24, after fromHour, default 24. */
  toHour: number;
}

/**
 * How old a report's data may grow, judged per day partition: from the newest instant its
 * published days hold (the end of the newest settled day, or a provisional day's as-of)
 * to now. Past `warnAfterMinutes` a warning, past `errorAfterMinutes` an error.
 */
export interface FreshnessGoals {
  warnAfterMinutes: number;
  errorAfterMinutes: number;
}

/** The longest freshness goal an entry may set: 31 days. */
export const MAX_FRESHNESS_MINUTES = 31 * 24 * 60;

/** Most directories an entry may name. */
export const MAX_TENANT_DIRECTORIES = 100;

function isPhoneCountry(code: string): boolean {
  try {
    requireRegion(code);
    return true;
  } catch {
    return false;
  }
}

/**
 * Most reports an entry may list by default: the jobs one execution runs at the default
 * poll and request limits (a deployment with other limits passes its own bound).
 */
export const DEFAULT_MAX_TENANT_REPORTS = jobsWithinBudget(SETTINGS_DEFAULTS);

const field = z.string().min(1).max(MAX_REPORT_FIELD_CHARS);

/**
 * An intraday schedule as an entry (and a single-tenant stack's cdk.json) gives it: an interval
 * of INTRADAY_INTERVALS, hours defaulting to 0-24, toHour after fromHour.
 */
export const INTRADAY_SCHEDULE_SCHEMA = z
  .strictObject({
    everyMinutes: z
      .number()
      .refine(
        (m) => (INTRADAY_INTERVALS as readonly number[]).includes(m),
        `must be one of ${INTRADAY_INTERVALS.join(', ')} (minutes)`,
      ),
    fromHour: z.number().int().min(0).max(23).default(0),
    toHour: z.number().int().min(1).max(24).default(24),
  })
  .refine((s) => s.toHour > s.fromHour, { message: 'toHour must be after fromHour', path: ['toHour'] });

function entrySchema(maxReports: number) {
  return z.strictObject({
    id: z.string().regex(TENANT_ID_PATTERN, `must be ${TENANT_ID_RULE}`),
    name: z.string().min(1).max(100),
    region: z.enum(TENANT_REGIONS),
    timeZone: z.string().refine(isIanaZone, 'is not an IANA time zone'),
    workspaceId: z.string().min(1).max(200),
    reports: z
      .array(z.strictObject({ id: field, name: field }))
      .min(1)
      .max(maxReports, `lists more than the ${maxReports} reports one execution may run`),
    hour: z.number().int().min(0).max(23),
    lookBackDays: z.number().int().min(0).max(90),
    enabled: z.boolean(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code in capitals, such as GB')
      .refine(isPhoneCountry, 'is not a country phone numbers can be read in')
      .optional(),
    directories: z
      .array(field)
      .min(1, 'names no directory (leave it out to export every directory)')
      .max(MAX_TENANT_DIRECTORIES, `names more than ${MAX_TENANT_DIRECTORIES} directories`)
      .refine((ids) => new Set(ids).size === ids.length, 'names a directory twice')
      .optional(),
    intraday: INTRADAY_SCHEDULE_SCHEMA.optional(),
    freshness: z
      .strictObject({
        warnAfterMinutes: z.number().int().min(1).max(MAX_FRESHNESS_MINUTES),
        errorAfterMinutes: z.number().int().min(1).max(MAX_FRESHNESS_MINUTES),
      })
      .refine((g) => g.errorAfterMinutes >= g.warnAfterMinutes, {
        message: 'errorAfterMinutes must be at least warnAfterMinutes',
        path: ['errorAfterMinutes'],
      })
      .optional(),
  });
}

/**
 * Validates a registry entry; the TenantConfigError names the tenant (when the entry has a
 * readable id), each wrong member and its value.
 */
export function parseTenantEntry(raw: unknown, options: { maxReports?: number } = {}): TenantEntry {
  const parsed = entrySchema(options.maxReports ?? DEFAULT_MAX_TENANT_REPORTS).safeParse(raw);
  if (parsed.success) {
    // Optional members stay absent (never `undefined`), as the entry is written back.
    const { country, directories, intraday, freshness, ...entry } = parsed.data;
    return {
      ...entry,
      ...(country === undefined ? {} : { country }),
      ...(directories === undefined ? {} : { directories }),
      ...(intraday === undefined
        ? {}
        : {
            intraday: {
              ...intraday,
              everyMinutes: intraday.everyMinutes as IntradaySchedule['everyMinutes'],
            },
          }),
      ...(freshness === undefined ? {} : { freshness }),
    };
  }
  const id = (raw as { id?: unknown } | null)?.id;
  const whose = typeof id === 'string' && TENANT_ID_PATTERN.test(id) ? ` '${id}'` : '';
  throw new TenantConfigError(
    `Invalid tenant entry${whose}: ${describeIssues(parsed.error.issues, raw, 'entry')}`,
  );
}

/** Key of a tenant's entry: `<prefix>/<id>.json` (the IAM policy of a tenant's runs names it). */
export function tenantEntryKey(prefix: string, id: string): string {
  return `${prefix === '' ? '' : `${prefix}/`}${id}.json`;
}

export interface TenantRegistryOptions {
  store: ObjectStore;
  /** Key prefix of the entries in the store ('' for the store's root). */
  prefix: string;
  /** Most reports an entry may list. Default {@link DEFAULT_MAX_TENANT_REPORTS}. */
  maxReports?: number;
}

/** Entries read at once by {@link TenantRegistry.list}. */
const LIST_READ_CONCURRENCY = 16;

/**
 * The tenants of a deployment, one JSON object per tenant in an object store (S3 in AWS,
 * a directory locally): adding, changing or removing one is a write, no redeploy.
 *
 * @example
 * const registry = tenantRegistryFromUri('TENANT_REGISTRY_URI', 'file:///srv/lake/tenants');
 * await registry.put(entry, { create: true }); // refuses an id already registered
 * const acme = await registry.get('acme');      // undefined when not registered
 */
export class TenantRegistry {
  readonly #store: ObjectStore;
  readonly #prefix: string;
  readonly #maxReports: number;

  constructor(options: TenantRegistryOptions) {
    this.#store = options.store;
    this.#prefix = options.prefix;
    this.#maxReports = options.maxReports ?? DEFAULT_MAX_TENANT_REPORTS;
  }

  /** The tenant's entry, validated; undefined when it has none. */
  async get(id: string): Promise<TenantEntry | undefined> {
    checkTenantId(id, 'tenant');
    const key = tenantEntryKey(this.#prefix, id);
    const bytes = await readObjectIfPresent(this.#store, key);
    return bytes === undefined ? undefined : this.#parse(id, bytes);
  }

  /**
   * Every entry, by id. An invalid entry throws, unless `onInvalid` is given: then it is
   * reported there and skipped, so one damaged entry does not hide the others.
   */
  async list(
    options: { onInvalid?: (id: string, error: TenantConfigError) => void } = {},
  ): Promise<TenantEntry[]> {
    const ids: string[] = [];
    const start = this.#prefix === '' ? '' : `${this.#prefix}/`;
    for await (const info of this.#store.list(start)) {
      const name = info.key.slice(start.length);
      if (!name.endsWith('.json')) continue;
      const id = name.slice(0, -'.json'.length);
      if (TENANT_ID_PATTERN.test(id)) ids.push(id);
    }
    const entries: (TenantEntry | undefined)[] = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ids.length; i = next++) {
        const id = ids[i] as string;
        try {
          entries[i] = await this.get(id);
        } catch (error) {
          if (!(error instanceof TenantConfigError) || options.onInvalid === undefined) throw error;
          options.onInvalid(id, error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIST_READ_CONCURRENCY, ids.length) }, worker));
    return entries.filter((e) => e !== undefined).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Writes an entry (validated first). `create`: only if the id has no entry yet (an
   * exclusive create), else a TenantConfigError saying it is registered.
   */
  async put(entry: TenantEntry, options: { create?: boolean } = {}): Promise<void> {
    const valid = parseTenantEntry(entry, { maxReports: this.#maxReports });
    const key = tenantEntryKey(this.#prefix, valid.id);
    const body = `${JSON.stringify(valid, null, 2)}\n`;
    const put = { contentType: 'application/json' };
    if (options.create !== true) {
      await this.#store.put(key, body, put);
      return;
    }
    if ((await this.#store.putIfAbsent(key, body, put)) === undefined) {
      throw new TenantConfigError(`Tenant '${valid.id}' is already in the registry`);
    }
  }

  /** Removes a tenant's entry; false when it had none. Its secret, schedule and data are not the registry's. */
  async remove(id: string): Promise<boolean> {
    checkTenantId(id, 'tenant');
    const key = tenantEntryKey(this.#prefix, id);
    if ((await this.#store.head(key)) === undefined) return false;
    await this.#store.deleteMany([key]);
    return true;
  }

  #parse(id: string, bytes: Uint8Array): TenantEntry {
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch (error) {
      throw new TenantConfigError(`Invalid tenant entry '${id}': not JSON (${(error as Error).message})`);
    }
    const entry = parseTenantEntry(raw, { maxReports: this.#maxReports });
    if (entry.id !== id) {
      throw new TenantConfigError(
        `Invalid tenant entry '${id}': its id is '${entry.id}', not the key's ('${id}')`,
      );
    }
    return entry;
  }
}

/**
 * The registry a setting names (`TENANT_REGISTRY_URI`): `s3://bucket/prefix` or
 * `file:///dir`, as OBJECT_STORE_URI; an invalid URI is a StoreUriError naming the setting.
 * `adapterOptions` give the S3 client (a tenant's own credentials, for instance).
 */
export function tenantRegistryFromUri(
  setting: string,
  uri: string,
  adapterOptions: AdapterOptions = {},
  options: { maxReports?: number } = {},
): TenantRegistry {
  const { store, prefix } = objectStoreFromUri(setting, uri, adapterOptions);
  return new TenantRegistry({ store, prefix, ...options });
}
