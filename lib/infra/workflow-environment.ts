import { InvalidConfigError, type SettingsEnvironment, settingsFromEnvironment } from '../workflow';
import { type ResolvedStackConfig, StackConfigError } from './stack-config';

/** Where the handlers find their stores (see lib/workflow/runtime.ts). */
interface StoreLocations {
  /** `s3://<bucket>/<prefix>`: parts, manifests, staging and run records. */
  readonly objectStoreUri: string;
  /** `s3://<bucket>/_leases`: token-refresh and partition leases. */
  readonly leaseStoreUri: string;
}

/** A single-tenant deployment's: its one secret. */
interface SingleTenantLocations extends StoreLocations {
  /** The service secret's ARN. */
  readonly secretUri: string;
}

/** A multi-tenant deployment's: the registry, the secrets' name template, the role a tenant's run takes. */
export interface MultiTenantLocations extends StoreLocations {
  /** `s3://<bucket>/_tenants`: one `<tenant>.json` entry per tenant. */
  readonly tenantRegistryUri: string;
  /** `secretsmanager:report-export/<stack>/tenants/{tenant}`. */
  readonly tenantSecretUri: string;
  /** The TenantAccess role a run assumes with session tag `tenant=<id>`. */
  readonly tenantRoleArn: string;
}

/** Placeholders the handlers' validation is run with in a multi-tenant deployment, then dropped. */
const PER_TENANT_PLACEHOLDERS = {
  TIME_ZONE: 'UTC',
  WORKSPACE_ID: 'per-tenant',
  REPORTS: JSON.stringify([{ id: 'per-tenant', name: 'per tenant' }]),
} as const;

/** The handler settings this configuration sets (names typed by the handlers' schema). */
export function settingsEnvironment(
  c: ResolvedStackConfig,
): Required<
  Omit<
    SettingsEnvironment,
    | 'MAX_JOBS_PER_EXECUTION'
    | 'SPILL_BUDGET_BYTES'
    | 'TOKEN_REFRESH_SKEW_SECONDS'
    | 'PROMOTED_COLUMNS'
    | 'CONTACT_OMIT_FIELDS'
    | 'INTRADAY_EVERY_MINUTES'
    | keyof typeof PER_TENANT_PLACEHOLDERS
  >
> &
  Pick<
    SettingsEnvironment,
    | 'PROMOTED_COLUMNS'
    | 'CONTACT_OMIT_FIELDS'
    | 'INTRADAY_EVERY_MINUTES'
    | keyof typeof PER_TENANT_PLACEHOLDERS
  > {
  return {
    // A multi-tenant deployment's tenants take theirs from the registry.
    ...(c.tenancy === 'single'
      ? { TIME_ZONE: c.timeZone, WORKSPACE_ID: c.workspaceId, REPORTS: JSON.stringify(c.reports) }
      : {}),
    // Plan's rule for yesterday in a refresh after midnight (a multi-tenant one's tenants: the registry).
    ...(c.tenancy === 'single' && c.intraday !== undefined
      ? { INTRADAY_EVERY_MINUTES: String(c.intraday.everyMinutes) }
      : {}),
    LOOKBACK_DAYS: String(c.lookBackDays),
    MAX_WINDOW_DAYS: String(c.maxWindowDays),
    MIN_SPLIT_MINUTES: String(c.minSplitMinutes),
    POLL_INITIAL_SECONDS: String(c.poll.initialSeconds),
    POLL_MAX_SECONDS: String(c.poll.maxSeconds),
    MAX_POLLS_PER_JOB: String(c.poll.maxPollsPerJob),
    MAX_REQUESTS_PER_JOB: String(c.maxRequestsPerJob),
    CSV_GZIP: String(c.csvGzip),
    PARQUET_CODEC: c.parquetCodec,
    SUMMARY_MISMATCH: c.summaryMismatch,
    MIN_SHARE_OF_PUBLISHED: String(c.minShareOfPublished),
    // Only when set: most deployments promote nothing, and the environment has 4 KB.
    ...(Object.values(c.promotedColumns).some((l) => l !== undefined && l.length > 0)
      ? { PROMOTED_COLUMNS: JSON.stringify(c.promotedColumns) }
      : {}),
    ...(c.contactOmitFields.length > 0 ? { CONTACT_OMIT_FIELDS: c.contactOmitFields.join(',') } : {}),
  };
}

/**
 * Environment of every workflow function. The settings are checked here with the
 * handlers' own validation, so a value a Lambda would reject at cold start fails synthesis.
 */
export function workflowEnvironment(
  c: ResolvedStackConfig,
  locations: SingleTenantLocations | MultiTenantLocations,
): Record<string, string> {
  const settings = settingsEnvironment(c);
  try {
    settingsFromEnvironment(c.tenancy === 'single' ? settings : { ...PER_TENANT_PLACEHOLDERS, ...settings });
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    throw new StackConfigError(`Invalid reportExport configuration: ${error.message}`, { cause: error });
  }
  const stores = {
    TABLE_CATALOG: tableCatalog(c),
    OBJECT_STORE_URI: locations.objectStoreUri,
    LEASE_STORE_URI: locations.leaseStoreUri,
  };
  if ('tenantRegistryUri' in locations)
    return {
      ...settings,
      ...stores,
      TENANT_REGISTRY_URI: locations.tenantRegistryUri,
      TENANT_SECRET_URI: locations.tenantSecretUri,
      TENANT_ROLE_ARN: locations.tenantRoleArn,
    };
  return { ...settings, ...stores, SECRET_URI: locations.secretUri };
}

/**
 * Where the handlers find the lake's tables (`TABLE_CATALOG`, read by lib/stores'
 * `catalogFromUri`): the stack's Glue database, or `hive` for Hive-layout Parquet without
 * tables. Never `file` (a catalog beside the data, for a local lake).
 */
export function tableCatalog(c: Pick<ResolvedStackConfig, 'tableFormat' | 'databaseName'>): string {
  return c.tableFormat === 'iceberg' ? `glue:${c.databaseName}` : 'hive';
}
