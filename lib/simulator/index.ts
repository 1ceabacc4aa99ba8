import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, SYSTEM_CLOCK } from './clock';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_REPORT_LATENCY_MS,
  DEFAULT_ROW_FORMAT,
  DEFAULT_ROWS_PER_DAY,
  DEFAULT_TENANT_COUNT,
} from './defaults';
import { registerDirectoryRoutes } from './directories/routes';
import { FaultController } from './faults';
import { type HostedTenant, HostedTenants } from './hosted-tenants';
import { Router } from './http/router';
import { createOAuthServer, type OAuthServer } from './oauth';
import { DEFAULT_ROW_LIMIT, type RowFormat } from './reporting/result-document';
import { registerReportingRoutes } from './reporting/routes';
import { DEFAULT_SEED } from './seed';
import { API_PREFIX, createRequestHandler } from './server';
import { createTenantSeeds, type SimTenantSpec } from './tenant-seeds';

export {
  type DirectoryChanges,
  type DirectoryGroundTruthOptions,
  directoryChanges,
  directoryItemsOn,
  type SimDirectoryState,
} from './directory-ground-truth';
export type { FaultController, FaultRoute, FaultRule } from './faults';
export type { RowFormat } from './reporting/result-document';
export { InvalidTenantsError, type SimTenantSpec } from './tenant-seeds';

/** Options of {@link startSimulator}; every one has a default. */
export interface SimulatorOptions {
  /** Port on 127.0.0.1; default 0 (ephemeral). */
  port?: number;
  /** Skip the login page: authorize redirects at once with a code for the seeded user. Default false. */
  autoApprove?: boolean;
  /** Refresh tokens one-time; reuse is rejected and revokes the family. Default false. */
  rotateRefreshTokens?: boolean;
  /** Time a report request spends Queued/Running before Complete, by `clock`. Default 1500. */
  reportLatencyMs?: number;
  /** Calls on a full weekday (weekends get 15% and 8%). Default 500. */
  rowsPerDay?: number;
  /**
   * The directories' writes (items created, replaced, deleted through the API) persisted here
   * across restarts (atomic writes). Default: memory only.
   */
  dataDir?: string;
  /**
   * The directories change as days pass, by the clock's day in each tenant's zone: items
   * generated from the seed are added, edited and deleted (see {@link directoryItemsOn}).
   * Default false: the seed's items on every day.
   */
  livingDirectories?: boolean;
  /** Time source for token expiry, refresh idle expiry, presets and report latency. Default: system clock. */
  clock?: Clock;
  /** Seed of every id and of the call generator. Default 20260101. */
  seed?: number;
  /** Access-token lifetime. Default 5400. */
  accessTokenTtlSeconds?: number;
  /** Rows per result before `rowLimitExceeded`. Default 1,000,000 (the service's limit). */
  rowLimit?: number;
  /** Result rows as objects (the spec, default) or arrays ordered like request.displayFields (the notes). */
  rowFormat?: RowFormat;
  /** The default workspace also has the reports of EXTRA_TEMPLATE_REPORTS (`seed.ts`). Default false. */
  extraTemplates?: boolean;
  /**
   * Every result's summary disagrees with its rows (ans +1, duration +60), as the
   * `summary-mismatch` fault does for its next `times` results. Default false.
   */
  summaryMismatch?: boolean;
  /**
   * The tenants hosted: a count, or one spec each (README: "Tenants"). The first is the single
   * tenant of old (Europe/London, api.admin@acme.example); the next ones take zones far apart
   * (America/New_York, Australia/Sydney, Asia/Tokyo, ...). Default 3.
   */
  tenants?: number | SimTenantSpec[];
}

/** One hosted tenant, as a client (or the local deployment) needs it. */
export interface SimTenantInfo {
  /** The `tenantId` its tokens carry and its results echo. */
  id: string;
  name: string;
  timeZoneId: string;
  /** Its default workspace and that workspace's reports. */
  workspaceId: string;
  reportIds: string[];
  reports: { id: string; name: string }[];
  /** Its user: a grant made by this user reaches this tenant only. */
  username: string;
  password: string;
  directoryIds: string[];
}

/** A running local service. */
export interface RunningSimulator {
  /** `{base_url}`, e.g. http://127.0.0.1:PORT/api (full URL = baseUrl + '/v1.0/...'). */
  baseUrl: string;
  /** `{auth_url}`, e.g. http://127.0.0.1:PORT (+ '/connect/authorize', '/connect/token'). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** The registered redirect used by default: http://127.0.0.1:8000/ */
  redirectUri: string;
  username: string;
  password: string;
  /** `username` to `directoryIds` are those of the first tenant (`tenants[0]`). */
  tenantId: string;
  timeZoneId: string;
  /** The default workspace and its reports. */
  workspaceId: string;
  reportIds: string[];
  directoryIds: string[];
  /** Every hosted tenant, the first first. One client (`clientId`) serves them all. */
  tenants: SimTenantInfo[];
  /** In-process fault injection, same as /__admin/faults. */
  faults: FaultController;
  /**
   * What disabling a tenant's API access in the reseller portal does (also
   * `POST {authUrl}/__admin/tenants/<id>/revoke-grants`): its refresh tokens answer
   * `invalid_grant` from now on, its access tokens issued so far are refused; a new login
   * makes a new grant. Throws for a tenant not hosted.
   */
  revokeTenantGrants(tenantId: string): void;
  close(): Promise<void>;
}

export {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_REPORT_LATENCY_MS,
  DEFAULT_ROW_FORMAT,
  DEFAULT_ROWS_PER_DAY,
  DEFAULT_TENANT_COUNT,
} from './defaults';

/**
 * Starts the authorization server and the API on 127.0.0.1 in this process.
 *
 * @example
 * ```ts
 * const sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0 });
 * // sim.authUrl + '/connect/authorize?...' -> code; sim.baseUrl + '/v1.0/workspaces'
 * await sim.close();
 * ```
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const seedNumber = options.seed ?? DEFAULT_SEED;
  const tenants = new HostedTenants(
    createTenantSeeds(seedNumber, options.tenants ?? DEFAULT_TENANT_COUNT, {
      extraTemplates: options.extraTemplates ?? false,
    }),
    {
      seed: seedNumber,
      rowsPerDay: options.rowsPerDay ?? DEFAULT_ROWS_PER_DAY,
      dataDir: options.dataDir,
      livingDirectories: options.livingDirectories ?? false,
      clock,
    },
  );
  const rowLimit = options.rowLimit ?? DEFAULT_ROW_LIMIT;
  let oauth: OAuthServer | undefined;
  const faults = new FaultController(() => oauth?.expireIssuedAccessTokens());
  // The first tenant's directories open at start, as with one tenant (an unreadable data
  // directory fails the start); the others' when first used.
  const firstStore = await tenants.first.directoryStore();
  const router = new Router();
  let origin = 'http://127.0.0.1';
  registerReportingRoutes(router, {
    tenants,
    clock,
    faults,
    latencyMs: options.reportLatencyMs ?? DEFAULT_REPORT_LATENCY_MS,
    rowLimit,
    rowFormat: options.rowFormat ?? DEFAULT_ROW_FORMAT,
    summaryMismatch: options.summaryMismatch ?? false,
  });
  registerDirectoryRoutes(router, { tenants, clock, baseUrl: () => `${origin}${API_PREFIX}` });

  const oauthServer = (): OAuthServer => {
    if (!oauth) throw new Error('authorization server not ready');
    return oauth;
  };
  const revokeTenantGrants = (tenantId: string): boolean => {
    if (!tenants.get(tenantId)) return false;
    oauthServer().revokeTenantGrants(tenantId);
    return true;
  };
  const server = createServer(
    createRequestHandler({
      clock,
      faults,
      router,
      oauth: oauthServer,
      origin: () => origin,
      admin: { revokeTenantGrants },
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { credentials } = tenants.first.seed;
  try {
    oauth = await createOAuthServer({
      // One client, the reseller's app, for every tenant.
      clients: [
        {
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          redirectUris: credentials.redirectUris,
        },
      ],
      users: tenants.all.map(({ seed }) => ({
        subject: seed.credentials.subject,
        username: seed.credentials.username,
        password: seed.credentials.password,
        tenantId: seed.tenant.id,
      })),
      clock,
      issuer: origin,
      autoApprove: options.autoApprove ?? false,
      rotateRefreshTokens: options.rotateRefreshTokens ?? false,
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
    });
  } catch (error) {
    server.close();
    throw error;
  }

  const infos = tenants.all.map(tenantInfo);
  const first = { ...(infos[0] as SimTenantInfo), directoryIds: firstStore.directories().map((d) => d.id) };
  infos[0] = first;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    authUrl: origin,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    redirectUri: 'http://127.0.0.1:8000/',
    username: first.username,
    password: first.password,
    tenantId: first.id,
    timeZoneId: first.timeZoneId,
    workspaceId: first.workspaceId,
    reportIds: first.reportIds,
    directoryIds: first.directoryIds,
    tenants: infos,
    faults,
    revokeTenantGrants: (tenantId) => {
      if (!revokeTenantGrants(tenantId.toLowerCase())) throw new TypeError(`No hosted tenant '${tenantId}'.`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** What a client needs to know of a hosted tenant (its directories as seeded). */
function tenantInfo({ seed, defaultWorkspace }: HostedTenant): SimTenantInfo {
  const reports = defaultWorkspace.reports.map((r) => ({ id: r.id, name: r.name }));
  return {
    id: seed.tenant.id,
    name: seed.tenant.name,
    timeZoneId: seed.tenant.timeZoneId,
    workspaceId: defaultWorkspace.id,
    reportIds: reports.map((r) => r.id),
    reports,
    username: seed.credentials.username,
    password: seed.credentials.password,
    directoryIds: seed.directories.map((d) => d.directory.id),
  };
}
