import { join } from 'node:path';
import { type DirectoryItemFields, PHONE_FIELD_NAMES } from '../spec';
import type { Clock } from './clock';
import { DirectoryStore } from './directories/directory-store';
import { DirectoryTimeline } from './directories/directory-timeline';
import { phoneCountry } from './directories/phone-plans';
import { NotFoundError } from './http/errors';
import { labelSeed, mixSeed } from './prng';
import { CallGenerator } from './reporting/call-generator';
import { ExternalNumbers } from './reporting/external-numbers';
import type { StoredReportRequest } from './reporting/report-requests';
import type { SeedData, SeedWorkspace } from './seed';
import { tenantSeed } from './tenant-seeds';
import { localEpochDayAt } from './time-zone';

interface HostedTenantOptions {
  /** The service's seed; the tenant's calls derive from it and the tenant's position. */
  seed: number;
  /** 0-based position: the first tenant keeps the service's seed and data directory. */
  index: number;
  rowsPerDay: number;
  /** The service's data directory, if any; tenants after the first keep theirs under `tenants/<id>/`. */
  dataDir: string | undefined;
  /** Its directories change as days pass (see DirectoryTimeline); else they hold the seed's items on every day. */
  livingDirectories: boolean;
  /** The day the directories are served for is the clock's, in the tenant's zone. */
  clock: Clock;
}

/** The data directory of tenant `index`: the service's for the first, `tenants/<id>/` under it for the others. */
export function tenantDataDir(
  dataDir: string | undefined,
  index: number,
  tenantId: string,
): string | undefined {
  return dataDir === undefined || index === 0 ? dataDir : join(dataDir, 'tenants', tenantId);
}

/** The seeded items of a tenant's directories on each day (no API write): what its calls are made with. */
export function tenantTimeline(
  seed: SeedData,
  options: { seed: number; index: number; living: boolean },
): DirectoryTimeline {
  return new DirectoryTimeline({
    seed: mixSeed(tenantSeed(options.seed, options.index), labelSeed('directories')),
    country: phoneCountry(seed.tenant.countryCode),
    directories: seed.directories,
    living: options.living,
  });
}

/**
 * One tenant of the service and what it has made so far: its report requests, and, built
 * on first use only, its call generator and its directory store. A thousand tenants cost
 * their seed data until a client of theirs asks for something.
 */
export class HostedTenant {
  readonly seed: SeedData;
  /** Report requests of this tenant, by request id. */
  readonly requests = new Map<string, StoredReportRequest>();
  readonly #options: HostedTenantOptions;
  #generator: CallGenerator | undefined;
  #timeline: DirectoryTimeline | undefined;
  #store: Promise<DirectoryStore> | undefined;

  constructor(seed: SeedData, options: HostedTenantOptions) {
    this.seed = seed;
    this.#options = options;
  }

  get id(): string {
    return this.seed.tenant.id;
  }

  /** The workspace marked default (else the first). */
  get defaultWorkspace(): SeedWorkspace {
    return this.seed.workspaces.find((w) => w.default) ?? (this.seed.workspaces[0] as SeedWorkspace);
  }

  /** Whether its call generator exists yet (it is made by the first result asked of it). */
  get generatesCalls(): boolean {
    return this.#generator !== undefined;
  }

  /** Its calls, in its zone, from its own seed; their external numbers partly its contacts'. */
  get generator(): CallGenerator {
    if (this.#generator === undefined) {
      const seed = tenantSeed(this.#options.seed, this.#options.index);
      const timeline = this.timeline;
      const phones = (day: number) =>
        timeline.directories.flatMap(({ directory }) =>
          (timeline.itemsOn(directory.id, day) ?? []).map((item) => phonesOf(item.fields)),
        );
      this.#generator = new CallGenerator({
        seed,
        rowsPerDay: this.#options.rowsPerDay,
        timeZone: this.seed.tenant.timeZoneId,
        externalNumbers: new ExternalNumbers(seed, phoneCountry(this.seed.tenant.countryCode), phones),
      });
    }
    return this.#generator;
  }

  /** The seeded items of its directories on each day. */
  get timeline(): DirectoryTimeline {
    const { seed, index, livingDirectories } = this.#options;
    this.#timeline ??= tenantTimeline(this.seed, { seed, index, living: livingDirectories });
    return this.#timeline;
  }

  /** Its directories, opened (and with a data directory, read or written) on first use. */
  directoryStore(): Promise<DirectoryStore> {
    if (this.#store === undefined) {
      const { dataDir, index, clock } = this.#options;
      const zone = this.seed.tenant.timeZoneId;
      const opening = DirectoryStore.open({
        timeline: this.timeline,
        today: () => localEpochDayAt(zone, clock.now()),
        dataDir: tenantDataDir(dataDir, index, this.id),
      });
      // A failed open is not kept: the next request tries again (and answers the same if it fails).
      opening.catch(() => {
        if (this.#store === opening) this.#store = undefined;
      });
      this.#store = opening;
    }
    return this.#store;
  }
}

/** The phone numbers of an item, phone1 first. */
function phonesOf(fields: DirectoryItemFields): string[] {
  const phones: string[] = [];
  for (const name of PHONE_FIELD_NAMES) {
    const phone = fields[name];
    if (phone !== undefined) phones.push(phone);
  }
  return phones;
}

/** Every tenant the service hosts, found by the tenant id a token carries. */
export class HostedTenants {
  readonly all: readonly HostedTenant[];
  readonly #byId = new Map<string, HostedTenant>();

  constructor(seeds: readonly SeedData[], options: Omit<HostedTenantOptions, 'index'>) {
    this.all = seeds.map((seed, index) => new HostedTenant(seed, { ...options, index }));
    for (const tenant of this.all) this.#byId.set(tenant.id, tenant);
  }

  get first(): HostedTenant {
    return this.all[0] as HostedTenant;
  }

  get(tenantId: string): HostedTenant | undefined {
    return this.#byId.get(tenantId);
  }

  /** The tenant of the token a request carries; 404 when there is none (as for an id it cannot see). */
  of(ctx: { tenantId: string }): HostedTenant {
    const tenant = this.#byId.get(ctx.tenantId);
    if (!tenant) throw new NotFoundError();
    return tenant;
  }
}
