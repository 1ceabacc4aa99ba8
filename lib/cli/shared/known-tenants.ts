import { UsageError } from '../../command-line';
import type { ObjectStore } from '../../stores';
import { parseRunRecordKey, runRecordsPrefix, type TenantEntry, type TenantRegistry } from '../../workflow';

/**
 * A tenant a command names that is not there: a usage error (exit 2) naming the flag, where
 * it was looked for and the tenants that are, so a typo is seen at once rather than answered
 * with nothing.
 */
export function unknownTenant(
  id: string,
  known: readonly string[],
  where: string,
  flag: string | null = '--tenant',
): UsageError {
  const them =
    known.length === 0
      ? 'it has none: report-export tenants add <id> ... registers one'
      : `its tenants: ${[...known].sort().join(', ')}`;
  const what =
    flag === null ? `no tenant '${id}' in the ${where}` : `${flag} '${id}' is not a tenant of the ${where}`;
  return new UsageError(`${what} (${them})`);
}

/**
 * The registry's entry of `id`, or {@link unknownTenant} naming the registered ones
 * (`flag` null: a `tenants` subcommand's `<id>`).
 */
export async function registeredEntry(
  registry: TenantRegistry,
  id: string,
  where: string,
  flag: string | null = '--tenant',
): Promise<TenantEntry> {
  const entry = await registry.get(id);
  if (entry !== undefined) return entry;
  const known = (await registry.list({ onInvalid: () => {} })).map((e) => e.id);
  throw unknownTenant(id, known, where, flag);
}

/**
 * The tenants a lake holds: those with run records (`runs/tenant=<t>/`), and `more` (the
 * tenants of its tables' files, when the caller has read them).
 */
export async function lakeTenants(
  lake: { store: ObjectStore; prefix: string },
  more: Iterable<string> = [],
): Promise<string[]> {
  const tenants = new Set(more);
  for await (const info of lake.store.list(runRecordsPrefix(lake.prefix))) {
    const tenant = parseRunRecordKey(info.key)?.tenant;
    if (tenant !== undefined && tenant !== null) tenants.add(tenant);
  }
  return [...tenants].sort();
}

/** Refuses `tenant` when the lake at `where` holds nothing of it ({@link lakeTenants}). */
export async function checkLakeTenant(
  lake: { store: ObjectStore; prefix: string },
  tenant: string,
  where: string,
  more: Iterable<string> = [],
): Promise<void> {
  const known = await lakeTenants(lake, more);
  if (!known.includes(tenant)) throw unknownTenant(tenant, known, where);
}
