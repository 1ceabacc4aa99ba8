import { randomUUID } from 'node:crypto';
import { createClient, type FetchLike, refreshTokens, type ServiceClient } from '../api';
import type { ExportLogger, LakeTables } from '../export';
import type { LeaseStore, ObjectStore, SecretStore } from '../stores';
import {
  type AdapterOptions,
  catalogFromUri,
  leaseStoreFromUri,
  type ObjectLocation,
  objectStoreFromUri,
  secretStoreFromUri,
} from '../stores/aws';
import { InvalidConfigError, InvalidInputError } from './errors';
import { SecretTokenSource, tokenRefreshLease } from './service-secret';
import {
  type DeploymentSettings,
  deploymentSettingsFromEnvironment,
  settingsFromEnvironment,
  type WorkflowSettings,
} from './settings';
import type { TenantEntry, TenantRegistry } from './tenant-registry';
import { multiTenantRuntime } from './tenant-runtimes';

/** TABLE_CATALOG when unset: Iceberg tables in a file catalog beside the data. */
export const DEFAULT_TABLE_CATALOG = 'file';

/** Longest a refresh grant may take; the refresh lease lives 60 s. */
const REFRESH_BUDGET_MS = 30_000;

/** The settings a multi-tenant deployment takes from each tenant's entry, refused in its environment. */
const PER_TENANT_SETTINGS = ['TIME_ZONE', 'WORKSPACE_ID', 'REPORTS', 'SECRET_URI'] as const;

/** Logger port of the handlers (Powertools Logger in Lambda, JSON lines locally). */
export interface WorkflowLogger extends ExportLogger {
  info(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/**
 * What a task of one tenant runs with: the tenant's settings (zone, workspace, reports,
 * look-back from its registry entry, the rest the deployment's), its token source over its
 * own secret, its client, and its stores (in AWS with TENANT_ROLE_ARN, signed with its own
 * session, so they reach only its keys). In a single-tenant deployment, the deployment's.
 */
export interface TenantRuntime {
  /** The tenant id; undefined in a single-tenant deployment. */
  tenant: string | undefined;
  /** Its registry entry (as read at most TENANT_ENTRY_TTL_MS ago); undefined in a single-tenant deployment. */
  entry: TenantEntry | undefined;
  settings: WorkflowSettings;
  objects: ObjectLocation;
  /** The lake's Iceberg tables (TABLE_CATALOG); undefined: Hive-layout Parquet. */
  tables: LakeTables | undefined;
  leases: LeaseStore;
  tokens: SecretTokenSource;
  /** The deployment's logger with `tenant` on every line (when there is one). */
  logger: WorkflowLogger;
  /** Identifies this process as a lease holder. */
  owner: string;
  /** A client on the secret's base URL, with access tokens from the secret. */
  client(): Promise<ServiceClient>;
}

/**
 * Everything a handler needs, built once per process (a Lambda's cold start) from its
 * environment. A single-tenant deployment's runtime is its one tenant's (`settings`,
 * `tokens`, `client()` as before); a multi-tenant one (TENANT_REGISTRY_URI) has the
 * deployment's stores and settings only, and a tenant's everything through `forTenant`.
 */
export interface WorkflowRuntime extends TenantRuntime {
  /** True when the deployment serves the tenants of a registry (TENANT_REGISTRY_URI). */
  multiTenant: boolean;
  /** The settings every tenant shares. */
  deployment: DeploymentSettings;
  /** The registry (multi-tenant), read with the deployment's own credentials; undefined otherwise. */
  registry: TenantRegistry | undefined;
  /**
   * The tenant's runtime: `undefined` in a single-tenant deployment (this runtime), a
   * registered tenant's id in a multi-tenant one. InvalidInputError when the deployment does
   * not take that (a tenant missing, refused, or not in the registry); a disabled tenant's
   * runtime is returned (`entry.enabled` false: Plan refuses it, a running task finishes).
   */
  forTenant(tenant: string | undefined): Promise<TenantRuntime>;
}

export interface RuntimeOptions extends AdapterOptions {
  logger: WorkflowLogger;
  /** fetch of the service client and the token endpoint (tests). */
  fetch?: FetchLike;
  /** Per-attempt HTTP timeout of the service client. Default 30 s. */
  httpTimeoutMs?: number;
  /** Refresh the access token this long before its expiry. Default: TOKEN_REFRESH_SKEW_SECONDS. */
  expirySkewMs?: number;
  /**
   * Replaces the stores the URIs name before anything uses them (the token source
   * included), e.g. with wrappers that record each operation. The seam of
   * test/e2e/workflow/aws-calls-coverage.test.ts, which proves lib/workflow/aws-calls.ts
   * declares every store operation a handler performs. Called once for the deployment's
   * stores and once per tenant (`tenant` set) for the tenant's. Default: the stores as built.
   */
  observeStores?: (stores: RuntimeStores, tenant?: string) => RuntimeStores;
  /**
   * The adapter options of a tenant's stores when TENANT_ROLE_ARN is set. Default: clients
   * signing with `sts:AssumeRole` on that role, session tag `tenant=<id>` (tests replace it).
   */
  tenantAdapterOptions?: (tenant: string, roleArn: string) => AdapterOptions;
  /** Clock of the registry cache (tests). */
  now?: () => number;
}

/** The stores a runtime builds from its environment's URIs. */
export interface RuntimeStores {
  objects: ObjectStore;
  leases: LeaseStore;
  secrets: SecretStore;
}

/** The stores of the deployment or of one tenant, as built from the URIs. */
export interface BuiltStores {
  objects: ObjectLocation;
  tables: LakeTables | undefined;
  leases: LeaseStore;
  /** The secret and its name; undefined for a multi-tenant deployment's own stores. */
  secrets: { store: SecretStore; name: string } | undefined;
}

/** What one tenant's runtime is built from. */
export type TenantParts = Pick<
  TenantRuntime,
  'tenant' | 'entry' | 'settings' | 'objects' | 'tables' | 'leases' | 'tokens'
>;

/**
 * Builds the handlers' runtime from their environment: the workflow settings (see
 * settings.ts) plus `OBJECT_STORE_URI` (s3://bucket/prefix or file:///dir),
 * `LEASE_STORE_URI` (s3://bucket/prefix or file:///dir), `TABLE_CATALOG` (`glue:<database>`,
 * `file` or `hive`; default `file`: the Parquet datasets are Iceberg tables at
 * `<prefix>/tables/<dataset>`, registered in Glue or in a file catalog beside them; `hive`
 * keeps the Hive-layout Parquet), and either
 * - single-tenant: `SECRET_URI` (a Secrets Manager ARN or file:///path), with TIME_ZONE,
 *   WORKSPACE_ID and REPORTS; or
 * - multi-tenant: `TENANT_REGISTRY_URI` (s3://bucket/prefix or file:///dir: one
 *   `<tenant>.json` per tenant), `TENANT_SECRET_URI` (SECRET_URI's forms with `{tenant}` in
 *   it, e.g. `secretsmanager:report-export/prod/tenants/{tenant}`) and, in AWS,
 *   `TENANT_ROLE_ARN` (the role a tenant's stores assume, tagged `tenant=<id>`); TIME_ZONE,
 *   WORKSPACE_ID, REPORTS and SECRET_URI are refused (each tenant's entry has its own).
 */
export function createWorkflowRuntime(
  env: Record<string, string | undefined>,
  options: RuntimeOptions,
): WorkflowRuntime {
  const need = (name: string) => {
    const v = env[name];
    if (v === undefined || v === '')
      throw new InvalidConfigError(`Invalid workflow settings: ${name} is required`);
    return v;
  };
  const registryUri = env.TENANT_REGISTRY_URI;
  const multiTenant = registryUri !== undefined && registryUri !== '';
  if (multiTenant) {
    const set = PER_TENANT_SETTINGS.filter((name) => env[name] !== undefined && env[name] !== '');
    if (set.length > 0) {
      throw new InvalidConfigError(
        `Invalid workflow settings: ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set, but a multi-tenant deployment (TENANT_REGISTRY_URI) takes each tenant's time zone, workspace, reports and secret from its registry entry and TENANT_SECRET_URI; remove ${set.length === 1 ? 'it' : 'them'}`,
      );
    }
  }
  const deployment = multiTenant ? deploymentSettingsFromEnvironment(env) : settingsFromEnvironment(env);
  const owner = randomUUID();
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const catalogSetting = env.TABLE_CATALOG ?? DEFAULT_TABLE_CATALOG;

  /** The object, lease and table stores of the deployment (adapter options: its own) or of a tenant (its session's). */
  const storesOf = (adapter: AdapterOptions, secretUri: string | undefined, tenant?: string): BuiltStores => {
    const location = objectStoreFromUri('OBJECT_STORE_URI', need('OBJECT_STORE_URI'), adapter);
    const leases = leaseStoreFromUri('LEASE_STORE_URI', need('LEASE_STORE_URI'), adapter);
    const secret =
      secretUri === undefined
        ? undefined
        : secretStoreFromUri(multiTenant ? 'TENANT_SECRET_URI' : 'SECRET_URI', secretUri, adapter);
    const built: RuntimeStores = {
      objects: location.store,
      leases,
      // A multi-tenant deployment's own stores read no secret.
      secrets: secret?.store ?? noSecrets,
    };
    const stores = options.observeStores?.(built, ...(tenant === undefined ? [] : [tenant])) ?? built;
    const objects: ObjectLocation = { ...location, store: stores.objects };
    const catalog = catalogFromUri(
      'TABLE_CATALOG',
      catalogSetting,
      { store: objects.store, prefix: objects.prefix },
      adapter,
    );
    return {
      objects,
      tables: catalog === undefined ? undefined : { catalog, namespace: '' },
      leases: stores.leases,
      secrets: secret === undefined ? undefined : { store: stores.secrets, name: secret.name },
    };
  };

  /** The token source of a secret: its refresh lease is the tenant's (one refresh per secret at a time). */
  const tokenSource = (secrets: { store: SecretStore; name: string }, leases: LeaseStore, tenant?: string) =>
    new SecretTokenSource({
      secrets: secrets.store,
      secretName: secrets.name,
      leases,
      leaseKey: tokenRefreshLease(tenant),
      expirySkewMs: options.expirySkewMs ?? deployment.tokenRefreshSkewSeconds * 1000,
      // One grant must finish well inside the lease (60 s): 10 s per attempt, one retry,
      // and an overall bound, so no other holder can take the lease while it runs.
      refresh: (client, refreshToken, signal) =>
        refreshTokens(client, refreshToken, {
          transport: { ...fetchOption, timeoutMs: 10_000, maxRetries: 1 },
          signal:
            signal === undefined
              ? AbortSignal.timeout(REFRESH_BUDGET_MS)
              : AbortSignal.any([signal, AbortSignal.timeout(REFRESH_BUDGET_MS)]),
        }),
    });

  const tenantRuntime = (parts: TenantParts): TenantRuntime => {
    const { tokens } = parts;
    return {
      tenant: parts.tenant,
      entry: parts.entry,
      settings: parts.settings,
      objects: parts.objects,
      tables: parts.tables,
      leases: parts.leases,
      tokens,
      logger: parts.tenant === undefined ? options.logger : withTenant(options.logger, parts.tenant),
      owner,
      async client() {
        const s = await tokens.read();
        return createClient({
          baseUrl: s.baseUrl,
          auth: tokens,
          workspaceId: parts.settings.workspaceId,
          timeoutMs: options.httpTimeoutMs ?? 30_000,
          ...fetchOption,
        });
      },
    };
  };

  if (!multiTenant) {
    const settings = deployment as WorkflowSettings;
    const stores = storesOf(options, need('SECRET_URI'));
    const single = tenantRuntime({
      tenant: undefined,
      entry: undefined,
      settings,
      objects: stores.objects,
      tables: stores.tables,
      leases: stores.leases,
      tokens: tokenSource(stores.secrets as { store: SecretStore; name: string }, stores.leases),
    });
    return {
      ...single,
      multiTenant: false,
      deployment,
      registry: undefined,
      // `this`: a caller that spreads the runtime and replaces its token source or client
      // (the CLI's run) has its tasks use the replacements.
      async forTenant(this: WorkflowRuntime, tenant) {
        if (tenant !== undefined) {
          throw new InvalidInputError(
            `tenant ('${tenant}') is not taken: this deployment serves one tenant (it has no TENANT_REGISTRY_URI); leave tenant out`,
          );
        }
        return this;
      },
    };
  }

  return multiTenantRuntime(
    { env, options, deployment, owner, need, storesOf, tokenSource, tenantRuntime },
    registryUri,
  );
}

/** A secret store a runtime without a secret of its own holds: any use is a defect. */
const noSecrets: SecretStore = {
  get: () => Promise.reject(new Error('a multi-tenant deployment reads only its tenants’ secrets')),
  put: () => Promise.reject(new Error('a multi-tenant deployment writes only its tenants’ secrets')),
};

/** `logger` with `tenant` on every line. */
function withTenant(logger: WorkflowLogger, tenant: string): WorkflowLogger {
  const { info, warn, error } = logger;
  return {
    info: (message, data) => info.call(logger, message, { tenant, ...data }),
    warn: (message, data) => warn.call(logger, message, { tenant, ...data }),
    error: (message, data) => error.call(logger, message, { tenant, ...data }),
  };
}
