import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient, refreshTokens } from '../api';
import { ZoneConverter } from '../export';
import type { RunningSimulator } from '../simulator';
import { LocalFileSecretStore, LocalLeaseStore } from '../stores';
import { SecretTokenSource, type TenantEntry, tenantRegistryFromUri } from '../workflow';
import { writeAutoApprovedLogin } from './auto-approve-login';

/** The local hour of a tenant's nightly run when the registry is first filled (as a stack's default). */
export const LOCAL_NIGHTLY_HOUR = 2;

/** A tenant of the local service, as the local deployment registered it. */
export interface LocalTenant {
  /** Its id in the registry (`london`, `new-york`, ...). */
  id: string;
  /** Its registry entry as the deployment found or wrote it (a user's changes kept). */
  entry: TenantEntry;
  /** Its secret file, which the login filled (`<workDir>/secrets/<id>.json`, mode 0600). */
  secretFile: string;
  /** The local service's user whose grant the secret holds. */
  username: string;
  /** The service's own id of the tenant (the `tenantId` its tokens carry; `sim.revokeTenantGrants` takes it). */
  serviceTenantId: string;
}

/** Where a multi-tenant local deployment keeps its registry and its tenants' secrets. */
export interface LocalTenancyPaths {
  /** `<workDir>/tenants`: one `<id>.json` per tenant (TENANT_REGISTRY_URI). */
  registryDir: string;
  /** `<workDir>/secrets`: one `<id>.json` per tenant. */
  secretsDir: string;
}

export function localTenancyPaths(workDir: string): LocalTenancyPaths {
  return { registryDir: path.join(workDir, 'tenants'), secretsDir: path.join(workDir, 'secrets') };
}

/** The functions' settings of the registry and the secrets: `file://` URIs, the secret's a `{tenant}` template. */
export function localTenancyEnvironment(paths: LocalTenancyPaths): Record<string, string> {
  return {
    TENANT_REGISTRY_URI: pathToFileURL(paths.registryDir).href,
    // pathToFileURL would percent-encode the braces of the template.
    TENANT_SECRET_URI: `${pathToFileURL(paths.secretsDir).href}/{tenant}.json`,
  };
}

/**
 * A tenant id (TENANT_ID_PATTERN) for a tenant of the local service: the city of its zone
 * (`Europe/London` -> `london`, `America/New_York` -> `new-york`), else its name, as a
 * slug; `-2`, `-3`... when another tenant took it.
 */
export function localTenantId(
  tenant: { name: string; timeZoneId: string },
  taken: ReadonlySet<string>,
): string {
  const slug = (text: string) =>
    text
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 28)
      .replace(/-+$/, '');
  const base = slug(tenant.timeZoneId.split('/').at(-1) ?? '') || slug(tenant.name) || 'tenant';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** The ids of the local service's tenants, in its order: {@link localTenantId} of each. */
export function localTenantIds(tenants: readonly { name: string; timeZoneId: string }[]): string[] {
  const taken = new Set<string>();
  return tenants.map((t) => {
    const id = localTenantId(t, taken);
    taken.add(id);
    return id;
  });
}

/**
 * The input a tenant's EventBridge Scheduler schedule sends (`cron(0 <hour> * * ? *)` in its
 * zone): its id and the scheduled time, the instant of its hour on the local date `now` falls
 * on in its zone. Plan exports the local day before it (minus the look-back).
 *
 * @example
 * nightlyInput({ id: 'sydney', timeZone: 'Australia/Sydney', hour: 2 }, new Date('2026-11-18T12:00:00Z'));
 * // { tenant: 'sydney', scheduledTime: '2026-11-18T15:00:00.000Z' } (02:00 on the 19th in Sydney)
 */
export function nightlyInput(
  tenant: Pick<TenantEntry, 'id' | 'timeZone' | 'hour'>,
  now: Date = new Date(),
): { tenant: string; scheduledTime: string } {
  const zone = new ZoneConverter(tenant.timeZone);
  const today = new Date(now.getTime() + zone.offsetAt(now.getTime())).toISOString().slice(0, 10);
  const hour = String(tenant.hour).padStart(2, '0');
  const scheduled = zone.toUtc(Date.parse(`${today}T${hour}:00:00Z`));
  return { tenant: tenant.id, scheduledTime: new Date(scheduled).toISOString() };
}

/** What {@link registerLocalTenants} needs besides the service. */
interface RegisterOptions {
  paths: LocalTenancyPaths;
  /** Leases of the reports' listing (a token refresh is under the tenant's lease, as the functions' are). */
  leasesDir: string;
  expirySkewMs?: number;
}

/**
 * Every tenant of the local service into the deployment: each signs in through the OAuth
 * flow as its own user (auto-approval picks the user by `login_hint`), its secret is
 * written, and its registry entry is written unless one is there (a user's changes to it
 * stay): its zone and workspace, the workspace's reports listed with its own token, the
 * nightly hour {@link LOCAL_NIGHTLY_HOUR}, no look-back, enabled.
 */
export async function registerLocalTenants(
  sim: RunningSimulator,
  options: RegisterOptions,
): Promise<LocalTenant[]> {
  // The registry as the functions read it (TENANT_REGISTRY_URI): its validation is theirs.
  const registryUri = localTenancyEnvironment(options.paths).TENANT_REGISTRY_URI as string;
  const registry = tenantRegistryFromUri('TENANT_REGISTRY_URI', registryUri);
  const tenants: LocalTenant[] = [];
  const ids = localTenantIds(sim.tenants);
  for (const [i, t] of sim.tenants.entries()) {
    const id = ids[i] as string;
    const secretFile = path.join(options.paths.secretsDir, `${id}.json`);
    await writeAutoApprovedLogin(sim, secretFile, { loginHint: t.username });
    let entry = await registry.get(id);
    if (entry === undefined) {
      entry = {
        id,
        name: t.name,
        region: 'local',
        timeZone: t.timeZoneId,
        workspaceId: t.workspaceId,
        reports: await listReports(
          sim,
          t.workspaceId,
          secretFile,
          path.join(options.leasesDir, `tenant=${id}`),
          options,
        ),
        hour: LOCAL_NIGHTLY_HOUR,
        lookBackDays: 0,
        enabled: true,
      };
      await registry.put(entry, { create: true });
    }
    tenants.push({ id, entry, secretFile, username: t.username, serviceTenantId: t.id });
  }
  return tenants;
}

/**
 * The reports of a workspace, listed with a secret's own token source (tokens may live only
 * a second in tests, and rotate): the same refresh path the handlers use.
 */
export async function listReports(
  sim: Pick<RunningSimulator, 'baseUrl'>,
  workspaceId: string,
  secretFile: string,
  leasesDir: string,
  options: { expirySkewMs?: number } = {},
): Promise<{ id: string; name: string }[]> {
  const auth = new SecretTokenSource({
    secrets: new LocalFileSecretStore(secretFile),
    secretName: 'service',
    leases: new LocalLeaseStore(leasesDir),
    refresh: (client, refreshToken) => refreshTokens(client, refreshToken),
    ...(options.expirySkewMs === undefined ? {} : { expirySkewMs: options.expirySkewMs }),
  });
  const api = createClient({ baseUrl: sim.baseUrl, auth, workspaceId });
  const reports: { id: string; name: string }[] = [];
  for await (const r of api.reporting.listReports()) reports.push({ id: r.id, name: r.name });
  return reports;
}
