import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type TenantEntry, tenantRegistryFromUri } from '../../../workflow';
import { unknownTenant } from '../../shared/known-tenants';

/**
 * A tenant `npm start` exports: one of the local service's (the start signs it in as its
 * user), or one a person added to the local registry (`tenants add`) and signed in
 * (`tenants login`) against a service of its own: its entry and its stored login are the
 * run's, as a deployment's schedule would run it.
 */
export interface ExportTenant {
  id: string;
  entry: TenantEntry;
  /** Its secret file (`<state>/secrets/<id>.json`). */
  secretFile: string;
  /** Who signed it in, for the progress line. */
  signedIn: string;
  /** Added with `tenants add`: its login is the person's (tenants login), not the start's. */
  added: boolean;
}

/** What the local deployment says of the local service's tenants. */
interface ServiceTenant {
  id: string;
  entry: TenantEntry;
  secretFile: string;
  username: string;
}

/**
 * Every tenant of the local deployment in `stateDir`: the local service's, in its order, then
 * the registry's others (`tenants add`), by id. An entry the registry's parser refuses is told
 * to `onInvalid` and left out (one damaged entry does not stop the others).
 */
export async function exportTenants(
  service: readonly ServiceTenant[],
  stateDir: string,
  onInvalid: (id: string, message: string) => void,
): Promise<ExportTenant[]> {
  const registry = tenantRegistryFromUri('--secret-file', pathToFileURL(path.join(stateDir, 'tenants')).href);
  const own = new Set(service.map((t) => t.id));
  const added = (await registry.list({ onInvalid: (id, error) => onInvalid(id, error.message) })).filter(
    (e) => !own.has(e.id),
  );
  return [
    ...service.map((t) => ({
      id: t.id,
      entry: t.entry,
      secretFile: t.secretFile,
      signedIn: `signed in as ${t.username}`,
      added: false,
    })),
    ...added.map((entry) => ({
      id: entry.id,
      entry,
      secretFile: path.join(stateDir, 'secrets', `${entry.id}.json`),
      signedIn: 'its tenants login',
      added: true,
    })),
  ];
}

/**
 * The tenants to export: every one enabled in the registry, or the one `--tenant` names
 * (exit 2 naming the others when unknown; a disabled one runs and fails, naming it).
 */
export function selectTenants(tenants: readonly ExportTenant[], id: string | undefined): ExportTenant[] {
  if (id === undefined) return tenants.filter((t) => t.entry.enabled);
  const tenant = tenants.find((t) => t.id === id);
  if (tenant === undefined)
    throw unknownTenant(
      id,
      tenants.map((t) => t.id),
      'local deployment',
    );
  return [tenant];
}

/**
 * Why an added tenant cannot run: no login stored yet (its secret file is missing). Its run
 * would fail at its first token; said before, with the command that fixes it.
 */
export async function missingLogin(tenant: ExportTenant): Promise<string | undefined> {
  if (!tenant.added) return undefined;
  const there = await fs.stat(tenant.secretFile).then(
    (s) => s.isFile(),
    () => false,
  );
  return there
    ? undefined
    : `no login stored in ${tenant.secretFile}: sign it in first (report-export tenants login ${tenant.id} ...)`;
}
