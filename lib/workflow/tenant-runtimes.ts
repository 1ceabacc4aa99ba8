import type { ServiceClient } from '../api';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../export';
import type { LeaseStore, SecretStore } from '../stores';
import {
  type AdapterOptions,
  createStsClient,
  secretStoreFromUri,
  tenantAdapterOptions,
} from '../stores/aws';
import { InvalidConfigError, InvalidInputError } from './errors';
import type {
  BuiltStores,
  RuntimeOptions,
  TenantParts,
  TenantRuntime,
  WorkflowRuntime,
} from './runtime-types';
import type { SecretTokenSource } from './service-secret';
import { type DeploymentSettings, jobsWithinBudget } from './settings';
import { type TenantEntry, type TenantRegistry, tenantRegistryFromUri } from './tenant-registry';

/** How long a process trusts a registry entry it read (a change reaches every task within it). */
export const TENANT_ENTRY_TTL_MS = 60_000;
/** Tenants whose stores, clients and entries a process keeps (least recently used dropped). */
export const MAX_CACHED_TENANTS = 256;

/** What createWorkflowRuntime hands the multi-tenant runtime: the environment and its builders. */
interface RuntimeParts {
  env: Record<string, string | undefined>;
  options: RuntimeOptions;
  deployment: DeploymentSettings;
  owner: string;
  /** A setting's value, or InvalidConfigError naming it. */
  need(name: string): string;
  storesOf(adapter: AdapterOptions, secretUri: string | undefined, tenant?: string): BuiltStores;
  tokenSource(
    secrets: { store: SecretStore; name: string },
    leases: LeaseStore,
    tenant?: string,
  ): SecretTokenSource;
  tenantRuntime(parts: TenantParts): TenantRuntime;
}

/**
 * The runtime of a multi-tenant deployment (TENANT_REGISTRY_URI): the deployment's own
 * stores, and per tenant (forTenant) its entry's settings, its secret's token source and its
 * stores, kept per process (at most MAX_CACHED_TENANTS, the entry re-read after
 * TENANT_ENTRY_TTL_MS). Nothing of one tenant is shared with another.
 */
export function multiTenantRuntime(parts: RuntimeParts, registryUri: string): WorkflowRuntime {
  const { env, options, deployment, owner, need, storesOf, tokenSource, tenantRuntime } = parts;
  const secretTemplate = need('TENANT_SECRET_URI');
  if (!secretTemplate.includes('{tenant}')) {
    throw new InvalidConfigError(
      `Invalid workflow settings: TENANT_SECRET_URI ${secretTemplate} has no {tenant}: each tenant has a secret of its own (e.g. secretsmanager:report-export/<stack>/tenants/{tenant})`,
    );
  }
  const roleArn = env.TENANT_ROLE_ARN === '' ? undefined : env.TENANT_ROLE_ARN;
  const own = storesOf(options, undefined);
  const maxReports = jobsWithinBudget(deployment);
  const registry = tenantRegistryFromUri('TENANT_REGISTRY_URI', registryUri, options, { maxReports });
  const now = options.now ?? Date.now;
  let sts: ReturnType<typeof createStsClient> | undefined;
  const adapterOf = (tenant: string): AdapterOptions => {
    if (roleArn === undefined) return options;
    let session = options.tenantAdapterOptions?.(tenant, roleArn);
    if (session === undefined) {
      sts ??= createStsClient();
      session = tenantAdapterOptions({ roleArn, tenant, sts });
    }
    // The session lists only the tenant's prefixes: S3 answers its missing keys (a day never
    // published, an entry not registered) 403, which its stores read as absent.
    return { ...session, missingKeysDenied: true };
  };

  /** A tenant's stores: with TENANT_ROLE_ARN its session's; without, the deployment's and its own secret. */
  const tenantStores = (tenant: string, adapter: AdapterOptions) => {
    const secretUri = secretTemplate.replaceAll('{tenant}', tenant);
    if (roleArn !== undefined) return storesOf(adapter, secretUri, tenant);
    const secret = secretStoreFromUri('TENANT_SECRET_URI', secretUri, options);
    const raw = { objects: own.objects.store, leases: own.leases, secrets: secret.store };
    const observed = options.observeStores?.(raw, tenant) ?? raw;
    return { ...own, secrets: { store: observed.secrets, name: secret.name } };
  };

  /** Per tenant: its stores, registry view and token source (kept), its entry (re-read after TENANT_ENTRY_TTL_MS). */
  interface Cached {
    stores: ReturnType<typeof storesOf>;
    registry: TenantRegistry;
    tokens: SecretTokenSource;
    entry?: { readAt: number; runtime: TenantRuntime };
    /** A read in flight, shared by concurrent tasks of the tenant. */
    reading?: Promise<TenantRuntime> | undefined;
  }
  const cache = new Map<string, Cached>();
  const cachedOf = (tenant: string): Cached => {
    let c = cache.get(tenant);
    if (c !== undefined) {
      // Most recently used last: the first key is the one to drop.
      cache.delete(tenant);
    } else {
      const adapter = adapterOf(tenant);
      const stores = tenantStores(tenant, adapter);
      c = {
        stores,
        // Read with the tenant's own credentials: its session may read only its own entry.
        registry: tenantRegistryFromUri('TENANT_REGISTRY_URI', registryUri, adapter, { maxReports }),
        tokens: tokenSource(stores.secrets as { store: SecretStore; name: string }, stores.leases, tenant),
      };
    }
    cache.set(tenant, c);
    while (cache.size > MAX_CACHED_TENANTS) cache.delete(cache.keys().next().value as string);
    return c;
  };
  const read = async (tenant: string, c: Cached): Promise<TenantRuntime> => {
    const entry = await c.registry.get(tenant);
    if (entry === undefined) {
      throw new InvalidInputError(
        `tenant '${tenant}' is not in the registry (${registryUri}): add it (report-export tenants add) or name a registered one`,
      );
    }
    const runtime = tenantRuntime({
      tenant,
      entry,
      settings: {
        ...deployment,
        timeZone: entry.timeZone,
        workspaceId: entry.workspaceId,
        reports: entry.reports,
        lookBackDays: entry.lookBackDays,
        ...(entry.intraday === undefined ? {} : { intradayEveryMinutes: entry.intraday.everyMinutes }),
      },
      objects: c.stores.objects,
      tables: c.stores.tables,
      leases: c.stores.leases,
      tokens: c.tokens,
    });
    c.entry = { readAt: now(), runtime };
    return runtime;
  };

  const missing = (): never => {
    throw new Error('a multi-tenant deployment has no tenant of its own: use forTenant(tenant)');
  };
  const runtime = {
    tenant: undefined as string | undefined,
    entry: undefined as TenantEntry | undefined,
    objects: own.objects,
    tables: own.tables,
    leases: own.leases,
    logger: options.logger,
    owner,
    client: async (): Promise<ServiceClient> => missing(),
    multiTenant: true,
    deployment,
    registry,
    async forTenant(tenant: string | undefined): Promise<TenantRuntime> {
      if (tenant === undefined) {
        throw new InvalidInputError(
          'tenant is required: this deployment serves the tenants of its registry (TENANT_REGISTRY_URI); name one, e.g. {"tenant": "acme", ...}',
        );
      }
      if (!TENANT_ID_PATTERN.test(tenant)) {
        throw new InvalidInputError(`tenant must be ${TENANT_ID_RULE} (got ${JSON.stringify(tenant)})`);
      }
      const c = cachedOf(tenant);
      if (c.entry !== undefined && now() - c.entry.readAt < TENANT_ENTRY_TTL_MS) return c.entry.runtime;
      // A failed read is not kept: the next task of the tenant reads again.
      c.reading ??= read(tenant, c).finally(() => {
        c.reading = undefined;
      });
      return c.reading;
    },
  };
  // Not enumerable: a spread of the runtime copies the deployment's parts without them.
  return Object.defineProperties(runtime, {
    settings: { get: missing, enumerable: false },
    tokens: { get: missing, enumerable: false },
  }) as typeof runtime & Pick<WorkflowRuntime, 'settings' | 'tokens'>;
}
