import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, SYSTEM_CLOCK } from './clock';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_REPORT_LATENCY_MS,
  DEFAULT_ROW_FORMAT,
  DEFAULT_ROWS_PER_DAY,
} from './defaults';
import { DirectoryStore } from './directories/directory-store';
import { registerDirectoryRoutes } from './directories/routes';
import { FaultController } from './faults';
import { Router } from './http/router';
import { createOAuthServer, type OAuthServer } from './oauth';
import { CallGenerator } from './reporting/call-generator';
import { DEFAULT_ROW_LIMIT, type RowFormat } from './reporting/result-document';
import { registerReportingRoutes } from './reporting/routes';
import { createSeed, DEFAULT_SEED } from './seed';
import { API_PREFIX, createRequestHandler } from './server';

export type { FaultController, FaultRoute, FaultRule } from './faults';
export type { RowFormat } from './reporting/result-document';

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
  /** Directory state persisted here across restarts (atomic writes). Default: memory only. */
  dataDir?: string;
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
  tenantId: string;
  timeZoneId: string;
  /** The default workspace and its reports. */
  workspaceId: string;
  reportIds: string[];
  directoryIds: string[];
  /** In-process fault injection, same as /__admin/faults. */
  faults: FaultController;
  close(): Promise<void>;
}

export {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_REPORT_LATENCY_MS,
  DEFAULT_ROW_FORMAT,
  DEFAULT_ROWS_PER_DAY,
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
  const seed = createSeed(options.seed ?? DEFAULT_SEED, { extraTemplates: options.extraTemplates ?? false });
  const rowLimit = options.rowLimit ?? DEFAULT_ROW_LIMIT;
  let oauth: OAuthServer | undefined;
  const faults = new FaultController(() => oauth?.expireIssuedAccessTokens());
  const store = await DirectoryStore.open(seed.directories, options.dataDir);
  const router = new Router();
  let origin = 'http://127.0.0.1';
  registerReportingRoutes(router, {
    seed,
    clock,
    faults,
    generator: new CallGenerator({
      seed: options.seed ?? DEFAULT_SEED,
      rowsPerDay: options.rowsPerDay ?? DEFAULT_ROWS_PER_DAY,
      timeZone: seed.tenant.timeZoneId,
    }),
    latencyMs: options.reportLatencyMs ?? DEFAULT_REPORT_LATENCY_MS,
    rowLimit,
    rowFormat: options.rowFormat ?? DEFAULT_ROW_FORMAT,
    summaryMismatch: options.summaryMismatch ?? false,
  });
  registerDirectoryRoutes(router, {
    store,
    clock,
    region: seed.tenant.countryCode,
    baseUrl: () => `${origin}${API_PREFIX}`,
  });

  const server = createServer(
    createRequestHandler({
      clock,
      faults,
      router,
      oauth: () => {
        if (!oauth) throw new Error('authorization server not ready');
        return oauth;
      },
      origin: () => origin,
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
  const { credentials } = seed;
  try {
    oauth = await createOAuthServer({
      clients: [
        {
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          redirectUris: credentials.redirectUris,
        },
      ],
      users: [
        {
          subject: credentials.subject,
          username: credentials.username,
          password: credentials.password,
          tenantId: seed.tenant.id,
        },
      ],
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

  const defaultWorkspace =
    seed.workspaces.find((w) => w.default) ?? (seed.workspaces[0] as (typeof seed.workspaces)[0]);
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    authUrl: origin,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    redirectUri: 'http://127.0.0.1:8000/',
    username: credentials.username,
    password: credentials.password,
    tenantId: seed.tenant.id,
    timeZoneId: seed.tenant.timeZoneId,
    workspaceId: defaultWorkspace.id,
    reportIds: defaultWorkspace.reports.map((r) => r.id),
    directoryIds: store.directories().map((d) => d.id),
    faults,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
