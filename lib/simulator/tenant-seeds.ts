import { MAX_TENANTS } from './defaults';
import { SIM_ERROR_CODES, SimulatorError } from './errors';
import { labelSeed, mixSeed } from './prng';
import { createSeed, type SeedData } from './seed';

/** How a caller describes one hosted tenant; every member has a default from its position. */
export interface SimTenantSpec {
  /** For people. Default: a company name of the list, numbered once the list repeats. */
  name?: string;
  /** IANA zone of its report periods and row times. Default: the zones far apart, in turn. */
  timeZoneId?: string;
  /** ISO 3166 country: default region of its directories' phone numbers. Default: the zone's (GB for a zone not in the list). */
  countryCode?: string;
  locale?: string;
  /** Its user's login. Default `api.admin@<slug>.example` (the first: api.admin@acme.example). */
  username?: string;
  password?: string;
}

/** Raised when `tenants` asks for something the service cannot host. */
export class InvalidTenantsError extends SimulatorError {
  override readonly name = 'InvalidTenantsError';

  constructor(message: string) {
    super(SIM_ERROR_CODES.invalidTenants, message);
  }
}

/**
 * Zones far apart, in the order tenants take them (the first three are the default tenants),
 * each with a country and locale of that zone.
 */
const ZONES = [
  { timeZoneId: 'Europe/London', countryCode: 'GB', locale: 'en-GB' },
  { timeZoneId: 'America/New_York', countryCode: 'US', locale: 'en-US' },
  { timeZoneId: 'Australia/Sydney', countryCode: 'AU', locale: 'en-AU' },
  { timeZoneId: 'Asia/Tokyo', countryCode: 'JP', locale: 'ja-JP' },
  { timeZoneId: 'America/Los_Angeles', countryCode: 'US', locale: 'en-US' },
  { timeZoneId: 'Asia/Kolkata', countryCode: 'IN', locale: 'en-IN' },
  { timeZoneId: 'America/Sao_Paulo', countryCode: 'BR', locale: 'pt-BR' },
  { timeZoneId: 'Europe/Berlin', countryCode: 'DE', locale: 'de-DE' },
  { timeZoneId: 'Pacific/Auckland', countryCode: 'NZ', locale: 'en-NZ' },
  { timeZoneId: 'Asia/Dubai', countryCode: 'AE', locale: 'en-AE' },
  { timeZoneId: 'America/Chicago', countryCode: 'US', locale: 'en-US' },
  { timeZoneId: 'Africa/Johannesburg', countryCode: 'ZA', locale: 'en-ZA' },
] as const;

/** Company names of the tenants, as [name, slug]; the first is the single tenant of old. */
const COMPANIES = [
  ['Acme Contact Centre', 'acme'],
  ['Globex Support', 'globex'],
  ['Initech Helpdesk', 'initech'],
  ['Umbrella Service Desk', 'umbrella'],
  ['Hooli Customer Care', 'hooli'],
  ['Stark Sales Line', 'stark'],
  ['Wonka Orders', 'wonka'],
  ['Tyrell Care', 'tyrell'],
  ['Soylent Help', 'soylent'],
  ['Vandelay Imports', 'vandelay'],
  ['Oceanic Bookings', 'oceanic'],
] as const;

/** The first tenant's password (the single tenant of old): kept, so existing set-ups still log in. */
const FIRST_PASSWORD = 'local-password-123';

/** Seed of the ids and calls of tenant `index` (0-based): the first keeps the service's seed. */
export function tenantSeed(seed: number, index: number): number {
  return index === 0 ? seed : mixSeed(seed, labelSeed('tenant'), index);
}

/** The defaults of tenant `index` (0-based): company, zone, country, locale, login. */
function defaultSpec(index: number): Required<SimTenantSpec> {
  const [company, slug] = COMPANIES[index % COMPANIES.length] as (typeof COMPANIES)[number];
  const round = Math.floor(index / COMPANIES.length);
  const numbered = round === 0 ? slug : `${slug}-${round + 1}`;
  const zone = ZONES[index % ZONES.length] as (typeof ZONES)[number];
  return {
    name: round === 0 ? company : `${company} ${round + 1}`,
    ...zone,
    username: `api.admin@${numbered}.example`,
    password: index === 0 ? FIRST_PASSWORD : `local-password-${numbered}`,
  };
}

/** Zones already found valid: a thousand tenants share a dozen zones, and each check costs a formatter. */
const knownZones = new Set<string>();

function isTimeZone(zone: string): boolean {
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return false;
  }
  knownZones.add(zone);
  return true;
}

/** The specs of `tenants` (a count or a list), every member filled in, checked. */
function resolveSpecs(tenants: number | readonly SimTenantSpec[]): Required<SimTenantSpec>[] {
  if (typeof tenants === 'number' && !(Number.isInteger(tenants) && tenants >= 1 && tenants <= MAX_TENANTS)) {
    throw new InvalidTenantsError(`tenants must be an integer from 1 to ${MAX_TENANTS}, not ${tenants}.`);
  }
  const given: readonly SimTenantSpec[] =
    typeof tenants === 'number' ? Array.from({ length: tenants }, () => ({})) : tenants;
  if (given.length === 0) throw new InvalidTenantsError('tenants must list at least one tenant.');
  if (given.length > MAX_TENANTS) throw new InvalidTenantsError(`tenants may list at most ${MAX_TENANTS}.`);
  const usernames = new Set<string>();
  return given.map((spec, index) => {
    const fallback = defaultSpec(index);
    // A zone of the list brings its country and locale; another zone, GB and en-GB (say them to change).
    const zone = ZONES.find((z) => z.timeZoneId === spec.timeZoneId);
    const resolved: Required<SimTenantSpec> = {
      ...fallback,
      ...(spec.timeZoneId === undefined ? {} : (zone ?? { countryCode: 'GB', locale: 'en-GB' })),
      ...spec,
    };
    if (!isTimeZone(resolved.timeZoneId)) {
      throw new InvalidTenantsError(
        `tenant ${index + 1}: '${resolved.timeZoneId}' is not an IANA time zone.`,
      );
    }
    if (usernames.has(resolved.username)) {
      throw new InvalidTenantsError(`tenant ${index + 1}: username '${resolved.username}' is taken.`);
    }
    usernames.add(resolved.username);
    return resolved;
  });
}

/**
 * The seed data of every hosted tenant. The first is `createSeed(seed)` as the single tenant
 * of old (same ids, user and data); each other one derives its ids from the seed and its
 * position, and shares the first one's client (the reseller's app, one for every tenant).
 * Only ids, users, workspaces and directories are built here: calls are generated per
 * tenant when a report of it is first fetched (see `hosted-tenants.ts`).
 */
export function createTenantSeeds(
  seed: number,
  tenants: number | readonly SimTenantSpec[],
  options: { extraTemplates?: boolean } = {},
): SeedData[] {
  const specs = resolveSpecs(tenants);
  const first = createSeed(seed, options);
  return specs.map((spec, index) => {
    const data = index === 0 ? first : createSeed(tenantSeed(seed, index), options);
    return {
      ...data,
      tenant: {
        id: data.tenant.id,
        name: spec.name,
        timeZoneId: spec.timeZoneId,
        countryCode: spec.countryCode,
        locale: spec.locale,
      },
      credentials: {
        ...first.credentials,
        subject: data.credentials.subject,
        username: spec.username,
        password: spec.password,
      },
    };
  });
}
