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
import { InvalidConfigError } from './errors';
import { SecretTokenSource } from './service-secret';
import { settingsFromEnvironment, type WorkflowSettings } from './settings';

/** TABLE_CATALOG when unset: Iceberg tables in a file catalog beside the data. */
export const DEFAULT_TABLE_CATALOG = 'file';

/** Longest a refresh grant may take; the refresh lease lives 60 s. */
const REFRESH_BUDGET_MS = 30_000;

/** Logger port of the handlers (Powertools Logger in Lambda, JSON lines locally). */
export interface WorkflowLogger extends ExportLogger {
  info(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/**
 * Everything a handler needs, built once per process (a Lambda's cold start) from its
 * environment: settings, stores chosen by URI, the token source over the secret.
 */
export interface WorkflowRuntime {
  settings: WorkflowSettings;
  objects: ObjectLocation;
  /** The lake's Iceberg tables (TABLE_CATALOG); undefined: Hive-layout Parquet. */
  tables: LakeTables | undefined;
  leases: LeaseStore;
  tokens: SecretTokenSource;
  logger: WorkflowLogger;
  /** Identifies this process as a lease holder. */
  owner: string;
  /** A client on the secret's base URL, with access tokens from the secret. */
  client(): Promise<ServiceClient>;
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
   * declares every store operation a handler performs. Default: the stores as built.
   */
  observeStores?: (stores: RuntimeStores) => RuntimeStores;
}

/** The stores a runtime builds from its environment's URIs. */
export interface RuntimeStores {
  objects: ObjectStore;
  leases: LeaseStore;
  secrets: SecretStore;
}

/**
 * Environment of every handler: the workflow settings (see settings.ts) plus
 * `OBJECT_STORE_URI` (s3://bucket/prefix or file:///dir), `SECRET_URI` (a Secrets Manager
 * ARN or file:///path), `LEASE_STORE_URI` (s3://bucket/prefix or file:///dir) and
 * `TABLE_CATALOG` (`glue:<database>`, `file` or `hive`; default `file`: the Parquet datasets
 * are Iceberg tables at `<prefix>/tables/<dataset>`, registered in Glue or in a file catalog
 * beside them; `hive` keeps the Hive-layout Parquet).
 */
export function createWorkflowRuntime(
  env: Record<string, string | undefined>,
  options: RuntimeOptions,
): WorkflowRuntime {
  const settings = settingsFromEnvironment(env);
  const need = (name: string) => {
    const v = env[name];
    if (v === undefined || v === '')
      throw new InvalidConfigError(`Invalid workflow settings: ${name} is required`);
    return v;
  };
  const location = objectStoreFromUri('OBJECT_STORE_URI', need('OBJECT_STORE_URI'), options);
  const builtLeases = leaseStoreFromUri('LEASE_STORE_URI', need('LEASE_STORE_URI'), options);
  const secret = secretStoreFromUri('SECRET_URI', need('SECRET_URI'), options);
  const built: RuntimeStores = { objects: location.store, leases: builtLeases, secrets: secret.store };
  const stores = options.observeStores?.(built) ?? built;
  const objects: ObjectLocation = { ...location, store: stores.objects };
  const catalog = catalogFromUri(
    'TABLE_CATALOG',
    env.TABLE_CATALOG ?? DEFAULT_TABLE_CATALOG,
    { store: objects.store, prefix: objects.prefix },
    options,
  );
  const leases = stores.leases;
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const tokens = new SecretTokenSource({
    secrets: stores.secrets,
    secretName: secret.name,
    leases,
    expirySkewMs: options.expirySkewMs ?? settings.tokenRefreshSkewSeconds * 1000,
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
  return {
    settings,
    objects,
    tables: catalog === undefined ? undefined : { catalog, namespace: '' },
    leases,
    tokens,
    logger: options.logger,
    owner: randomUUID(),
    async client() {
      const s = await tokens.read();
      return createClient({
        baseUrl: s.baseUrl,
        auth: tokens,
        workspaceId: settings.workspaceId,
        timeoutMs: options.httpTimeoutMs ?? 30_000,
        ...fetchOption,
      });
    },
  };
}
