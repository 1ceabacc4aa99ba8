import { randomUUID } from 'node:crypto';
import { createClient, refreshTokens } from '../api';
import type { LeaseStore, SecretStore } from '../stores';
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
  deploymentSettingsFromEnvironment,
  settingsFromEnvironment,
  type WorkflowSettings,
} from './settings';
import { multiTenantRuntime } from './tenant-runtimes';

/** TABLE_CATALOG when unset: Iceberg tables in a file catalog beside the data. */
export const DEFAULT_TABLE_CATALOG = 'file';

/** Longest a refresh grant may take; the refresh lease lives 60 s. */
const REFRESH_BUDGET_MS = 30_000;

/** The settings a multi-tenant deployment takes from each tenant's entry, refused in its environment. */
const PER_TENANT_SETTINGS = ['TIME_ZONE', 'WORKSPACE_ID', 'REPORTS', 'SECRET_URI'] as const;

import type {
  BuiltStores,
  RuntimeOptions,
  RuntimeStores,
  TenantParts,
  TenantRuntime,
  WorkflowLogger,
  WorkflowRuntime,
} from './runtime-types';

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
export function withTenant(logger: WorkflowLogger, tenant: string): WorkflowLogger {
  const { info, warn, error } = logger;
  return {
    // The tenant last: a member of `data` never names another tenant on the line.
    info: (message, data) => info.call(logger, message, { ...data, tenant }),
    warn: (message, data) => warn.call(logger, message, { ...data, tenant }),
    error: (message, data) => error.call(logger, message, { ...data, tenant }),
  };
}
