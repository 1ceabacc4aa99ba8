import type { Directory, DirectoryItem } from '../spec';
import { DEFAULT_TENANT_COUNT } from './defaults';
import { DirectoryStore } from './directories/directory-store';
import { tenantDataDir, tenantTimeline } from './hosted-tenants';
import { DEFAULT_SEED } from './seed';
import { createTenantSeeds, InvalidTenantsError, type SimTenantSpec } from './tenant-seeds';
import { epochDay } from './time-zone';

/** Which service, tenant and day {@link directoryItemsOn} answers for. */
export interface DirectoryGroundTruthOptions {
  /** As given to startSimulator (defaults alike). */
  seed?: number;
  tenants?: number | SimTenantSpec[];
  livingDirectories?: boolean;
  /** The service's data directory: its API writes are applied, as the service applies them. Read only. */
  dataDir?: string;
  /** The tenant: its id, or its 0-based position. */
  tenant: string | number;
  /** The local date in the tenant's zone, `YYYY-MM-DD`. */
  date: string;
}

/** A directory and its items. */
export interface SimDirectoryState {
  directory: Directory;
  items: DirectoryItem[];
}

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The ground truth of a tenant's directories: every directory with its items as the local
 * service serves them on a local date (from the tenant's midnight to its next), computed
 * apart from any running service. Without `dataDir` these are the seeded items alone, the
 * ones the calls of that date take their external numbers from; with it, the API's writes
 * persisted there are applied too (a write wins on every date).
 *
 * @example
 * ```ts
 * const [contacts] = await directoryItemsOn({ tenant: 0, date: '2026-03-30', livingDirectories: true });
 * ```
 */
export async function directoryItemsOn(options: DirectoryGroundTruthOptions): Promise<SimDirectoryState[]> {
  const seed = options.seed ?? DEFAULT_SEED;
  const seeds = createTenantSeeds(seed, options.tenants ?? DEFAULT_TENANT_COUNT);
  const index =
    typeof options.tenant === 'number'
      ? options.tenant
      : seeds.findIndex((s) => s.tenant.id === String(options.tenant).toLowerCase());
  const tenant = seeds[index];
  if (tenant === undefined) throw new InvalidTenantsError(`no hosted tenant ${String(options.tenant)}.`);
  const date = LOCAL_DATE.exec(options.date);
  if (date === null) throw new TypeError(`date must be YYYY-MM-DD, not '${options.date}'.`);
  const day = epochDay(Number(date[1]), Number(date[2]), Number(date[3]));
  const timeline = tenantTimeline(tenant, { seed, index, living: options.livingDirectories ?? false });
  const store = await DirectoryStore.open({
    timeline,
    today: () => day,
    dataDir: tenantDataDir(options.dataDir, index, tenant.tenant.id),
    readOnly: true,
  });
  return store.directories().map((directory) => ({ directory, items: store.items(directory.id) ?? [] }));
}

/** What changed from one listing of a directory to the next, by item id (each list sorted). */
export interface DirectoryChanges {
  added: string[];
  /** Items in both whose fields differ. */
  edited: string[];
  deleted: string[];
}

/** The items added, edited and deleted from `before` to `after` (two listings of one directory). */
export function directoryChanges(
  before: readonly DirectoryItem[],
  after: readonly DirectoryItem[],
): DirectoryChanges {
  const old = new Map(before.map((i) => [i.id, JSON.stringify(i.fields)]));
  const now = new Map(after.map((i) => [i.id, JSON.stringify(i.fields)]));
  return {
    added: [...now.keys()].filter((id) => !old.has(id)).sort(),
    edited: [...now.keys()].filter((id) => old.has(id) && old.get(id) !== now.get(id)).sort(),
    deleted: [...old.keys()].filter((id) => !now.has(id)).sort(),
  };
}
