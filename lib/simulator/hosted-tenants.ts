import { join } from 'node:path';
import { DirectoryStore } from './directories/directory-store';
import { NotFoundError } from './http/errors';
import { CallGenerator } from './reporting/call-generator';
import type { StoredReportRequest } from './reporting/report-requests';
import type { SeedData, SeedWorkspace } from './seed';
import { tenantSeed } from './tenant-seeds';

interface HostedTenantOptions {
  /** The service's seed; the tenant's calls derive from it and the tenant's position. */
  seed: number;
  /** 0-based position: the first tenant keeps the service's seed and data directory. */
  index: number;
  rowsPerDay: number;
  /** The service's data directory, if any; tenants after the first keep theirs under `tenants/<id>/`. */
  dataDir: string | undefined;
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

  /** Its calls, in its zone, from its own seed. */
  get generator(): CallGenerator {
    this.#generator ??= new CallGenerator({
      seed: tenantSeed(this.#options.seed, this.#options.index),
      rowsPerDay: this.#options.rowsPerDay,
      timeZone: this.seed.tenant.timeZoneId,
    });
    return this.#generator;
  }

  /** Its directories, opened (and with a data directory, read or written) on first use. */
  directoryStore(): Promise<DirectoryStore> {
    if (this.#store === undefined) {
      const { dataDir, index } = this.#options;
      const dir = dataDir === undefined || index === 0 ? dataDir : join(dataDir, 'tenants', this.id);
      const opening = DirectoryStore.open(this.seed.directories, dir);
      // A failed open is not kept: the next request tries again (and answers the same if it fails).
      opening.catch(() => {
        if (this.#store === opening) this.#store = undefined;
      });
      this.#store = opening;
    }
    return this.#store;
  }
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
