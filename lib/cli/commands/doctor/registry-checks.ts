import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../../../export';
import type { ObjectStore } from '../../../stores';
import type { TenantEntry } from '../../../workflow';
import type { TenantsDeployment } from '../../aws/tenants-deployment';
import { type Check, check } from './report';

/** Where the registry's entries are, to name them and to list the files the registry would pass over. */
export interface RegistryLocation {
  store: ObjectStore;
  prefix: string;
  /** How a message names an entry: its path, or its s3:// key. */
  describe(name: string): string;
}

/**
 * `registry.entries` and `registry.entry`: every entry of the deployment's registry read by
 * the registry's own parser (what Plan reads at each run), a damaged one named with its fault
 * and the fix, and a `.json` whose name is no tenant id (the registry passes over it silently:
 * a tenant that looks registered and never runs). The valid entries, for the login checks.
 */
export async function registryChecks(
  d: Pick<TenantsDeployment, 'registry' | 'describe' | 'kind'> & { stack?: string },
  location: RegistryLocation,
): Promise<{ checks: Check[]; entries: TenantEntry[] }> {
  const damaged: Check[] = [];
  const stackFlag = d.stack === undefined ? '' : ` --stack ${d.stack}`;
  let entries: TenantEntry[];
  try {
    entries = await d.registry.list({
      onInvalid: (id, error) =>
        damaged.push(
          check('registry.entry', 'fail', `${location.describe(`${id}.json`)}: ${error.message}`, {
            subject: id,
            // `tenants set` reads the entry first, so it cannot repair one it cannot parse.
            fix: `correct the member it names in ${location.describe(`${id}.json`)}, or delete it and register the tenant again (report-export tenants add ${id} ...${stackFlag})`,
          }),
        ),
    });
  } catch (error) {
    const c = check(
      'registry.entries',
      'fail',
      `cannot list the registry of the ${d.describe}: ${(error as Error).message}`,
      {
        fix: 'check that the registry can be read (its directory, or the stack bucket and your credentials)',
      },
    );
    return { checks: [c], entries: [] };
  }
  const misnamed = await misnamedEntries(location);
  for (const name of misnamed) {
    damaged.push(
      check(
        'registry.entry',
        'warn',
        `${location.describe(name)} is passed over: its name is not <id>.json with a tenant id (${TENANT_ID_RULE})`,
        {
          subject: name,
          fix: 'rename it to <id>.json, its id member, or remove it',
        },
      ),
    );
  }
  // The summary is the listing's own verdict; each damaged entry's is its own check (counted once).
  const failed = damaged.filter((c) => c.status === 'fail').length;
  const valid = `${entries.length} valid${entries.length === 0 ? '' : ` (${entries.map((e) => e.id).join(', ')})`}`;
  const summary =
    entries.length === 0 && damaged.length === 0
      ? check(
          'registry.entries',
          'skip',
          `no tenants in the ${d.describe} (a single-tenant setup needs none)`,
        )
      : check(
          'registry.entries',
          'ok',
          `${valid}${failed > 0 ? `, ${failed} damaged (below): no run of ${failed === 1 ? 'that tenant' : 'those tenants'} starts` : ''}`,
        );
  return { checks: [summary, ...damaged], entries };
}

/** The `.json` files directly under the registry's prefix whose names are no tenant id. */
async function misnamedEntries(location: RegistryLocation): Promise<string[]> {
  const start = location.prefix === '' ? '' : `${location.prefix}/`;
  const names: string[] = [];
  try {
    for await (const info of location.store.list(start)) {
      const name = info.key.slice(start.length);
      if (name.includes('/') || !name.endsWith('.json')) continue;
      if (!TENANT_ID_PATTERN.test(name.slice(0, -'.json'.length))) names.push(name);
    }
  } catch {
    // The listing above already read the registry; a second that fails names nothing more.
  }
  return names.sort();
}
