import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type TenantEntry, tenantRegistryFromUri, tokenRefreshLease } from '../../workflow';
import type { ResolvedConfig } from './config';
import { registeredEntry } from './known-tenants';

/** What a command run `--tenant <id>` runs with: the configuration with the tenant's own under it, and its entry. */
export interface TenantConfig {
  config: ResolvedConfig;
  entry: TenantEntry;
  /** The key of its login's refresh lease (`tenant=<id>/token-refresh`), as its other runs take it. */
  refreshLeaseKey: string | undefined;
}

/**
 * `--tenant <id>` (`run`, `directory`): the tenant of the local deployment in `dir` (`tenants add`; exit 2
 * naming the registered ones when it is not there) and what the command line leaves unsaid
 * taken from it: its zone and workspace from its entry, and its stored login
 * (`<dir>/secrets/<id>.json`, tenants login) in place of the default login file, refreshed
 * under the tenant's lease in the deployment's lease store as `npm start` refreshes it. A
 * flag, a variable or the config file still beats each. The service's URLs are the stored
 * login's (its entry's region is the one it signed in to).
 */
export async function tenantConfig(
  tenant: string,
  dir: string,
  config: ResolvedConfig,
  cwd: string,
): Promise<TenantConfig> {
  const stateDir = path.resolve(cwd, dir);
  const registry = tenantRegistryFromUri('--dir', pathToFileURL(path.join(stateDir, 'tenants')).href);
  const entry = await registeredEntry(registry, tenant, `local deployment ${stateDir}`);
  const from = `tenant ${tenant}'s entry (${path.join(stateDir, 'tenants', `${tenant}.json`)})`;
  const own = (value: string, where: string) => ({ value, source: 'default' as const, where });
  const defaultLogin = config.secretId === undefined && config.secretFile?.source === 'default';
  const login = path.join(stateDir, 'secrets', `${tenant}.json`);
  return {
    entry,
    refreshLeaseKey: defaultLogin ? tokenRefreshLease(tenant) : undefined,
    config: {
      ...config,
      timeZone: config.timeZone ?? own(entry.timeZone, from),
      workspace: config.workspace ?? own(entry.workspaceId, from),
      ...(defaultLogin
        ? {
            secretFile: own(login, `tenant ${tenant}'s login (report-export tenants login ${tenant})`),
            leaseStore: config.leaseStore ?? own(pathToFileURL(path.join(stateDir, 'leases')).href, from),
          }
        : {}),
    },
  };
}
