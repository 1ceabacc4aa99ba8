import type { FetchLike, ServiceClient } from '../api';
import type { ExportLogger, LakeTables } from '../export';
import type { LeaseStore, ObjectStore, SecretStore } from '../stores';
import type { AdapterOptions, ObjectLocation } from '../stores/aws';
import type { SecretTokenSource } from './service-secret';
import type { DeploymentSettings, WorkflowSettings } from './settings';
import type { TenantEntry, TenantRegistry } from './tenant-registry';

/*
 * The runtime's types, apart from runtime.ts so that tenant-runtimes.ts (which builds the
 * multi-tenant runtime runtime.ts returns) reads them without importing runtime.ts back.
 */

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
