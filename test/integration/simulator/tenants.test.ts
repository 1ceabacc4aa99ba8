import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/simulator/clock';
import { type RunningSimulator, type SimTenantInfo, startSimulator } from '../../../lib/simulator/index';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import type { Envelope, ReportRequest, ReportResult, ResultRow } from '../../../lib/spec/types';
import { OAUTH_SCOPE } from '../../../lib/spec/types';
import { FIXED_NOW, obtainTokens, REQUEST_TIMEOUT_MS } from './sim-harness';

/** A call to the API with a tenant's token. */
function api(
  sim: RunningSimulator,
  token: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`${sim.baseUrl}/v1.0${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

/** Requests the tenant's first report over [start, end) and returns the request's path. */
async function requestPath(
  sim: RunningSimulator,
  token: string,
  tenant: SimTenantInfo,
  start: string,
  end: string,
): Promise<string> {
  const report = `/workspaces/${tenant.workspaceId}/reports/${tenant.reportIds[0]}`;
  const response = await api(sim, token, `${report}/requests`, {
    method: 'POST',
    body: { reportId: tenant.reportIds[0], dateFilter: { start, end } },
  });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as Envelope<ReportRequest>;
  return `${report}/requests/${data.requestId}`;
}

function refresh(sim: RunningSimulator, refreshToken: string): Promise<Response> {
  return fetch(`${sim.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    }).toString(),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

/** One local day of each default tenant, as a fixed range with that zone's offset (Monday 23 March 2026). */
const LOCAL_DAY = {
  'Europe/London': ['2026-03-23T00:00:00+00:00', '2026-03-24T00:00:00+00:00', '+00:00'],
  'America/New_York': ['2026-03-23T00:00:00-04:00', '2026-03-24T00:00:00-04:00', '-04:00'],
  'Australia/Sydney': ['2026-03-23T00:00:00+11:00', '2026-03-24T00:00:00+11:00', '+11:00'],
} as const;

describe('simulator tenants', () => {
  let sim: RunningSimulator;
  /** Access token of each tenant, in the order of sim.tenants. */
  let tokens: string[];
  /** A request path of each tenant (its first report, one local day). */
  let requests: string[];

  beforeAll(async () => {
    sim = await startSimulator({
      autoApprove: true,
      reportLatencyMs: 0,
      rowsPerDay: 200,
      clock: new ManualClock(FIXED_NOW),
    });
    tokens = [];
    requests = [];
    for (const tenant of sim.tenants) {
      const token = (await obtainTokens(sim, OAUTH_SCOPE, tenant.username)).access_token;
      const [start, end] = LOCAL_DAY[tenant.timeZoneId as keyof typeof LOCAL_DAY];
      tokens.push(token);
      requests.push(await requestPath(sim, token, tenant, start, end));
    }
  });
  afterAll(async () => {
    await sim.close();
  });

  it('hosts three tenants in zones far apart, the first being the single tenant of old, by default', () => {
    // Prepare
    const seed = createSeed(DEFAULT_SEED);
    // Assess
    expect(sim.tenants.map((t) => t.timeZoneId)).toEqual(Object.keys(LOCAL_DAY));
    expect(new Set(sim.tenants.map((t) => t.id)).size).toBe(3);
    expect(new Set(sim.tenants.map((t) => t.username)).size).toBe(3);
    expect(new Set(sim.tenants.flatMap((t) => [...t.reportIds, t.workspaceId, ...t.directoryIds])).size).toBe(
      3 * (3 + 1 + 2),
    );
    const [first] = sim.tenants as [SimTenantInfo];
    expect(first).toMatchObject({
      id: seed.tenant.id,
      timeZoneId: 'Europe/London',
      username: 'api.admin@acme.example',
      workspaceId: sim.workspaceId,
      reportIds: sim.reportIds,
      directoryIds: sim.directoryIds,
    });
    expect([sim.tenantId, sim.username, sim.password]).toEqual([first.id, first.username, first.password]);
  });

  it('lists only the workspaces and directories of the tenant whose user made the grant', async () => {
    for (const [i, tenant] of sim.tenants.entries()) {
      // Act
      const workspaces = (await (await api(sim, tokens[i] as string, '/workspaces')).json()) as Envelope<
        { id: string }[]
      >;
      const directories = (await (
        await api(sim, tokens[i] as string, '/contactdirectories')
      ).json()) as Envelope<{ id: string }[]>;
      // Assess
      expect(workspaces.data.map((w) => w.id)).toContain(tenant.workspaceId);
      expect(directories.data.map((d) => d.id)).toEqual(tenant.directoryIds);
      for (const other of sim.tenants.filter((t) => t !== tenant)) {
        expect(workspaces.data.map((w) => w.id)).not.toContain(other.workspaceId);
      }
    }
  });

  it.each([
    ['reports of its workspace', (t: SimTenantInfo) => `/workspaces/${t.workspaceId}/reports`],
    [
      'a report request',
      (t: SimTenantInfo) => `/workspaces/${t.workspaceId}/reports/${t.reportIds[0]}/requests`,
    ],
    ['a directory', (t: SimTenantInfo) => `/contactdirectories/${t.directoryIds[0]}`],
    ['the items of a directory', (t: SimTenantInfo) => `/contactdirectories/${t.directoryIds[0]}/items`],
  ])('answers 404 to a token of another tenant on %s', async (_what, path) => {
    // Prepare
    const [first, second] = sim.tenants as [SimTenantInfo, SimTenantInfo];
    const post = path(first).endsWith('/requests');
    const init = post
      ? {
          method: 'POST',
          body: {
            reportId: first.reportIds[0],
            dateFilter: { start: '2026-03-23T00:00:00Z', end: '2026-03-24T00:00:00Z' },
          },
        }
      : {};
    // Act
    const own = await api(sim, tokens[0] as string, path(first), init);
    const foreign = await api(sim, tokens[1] as string, path(first), init);
    const reverse = await api(sim, tokens[0] as string, path(second), init);
    // Assess
    expect(own.status).toBe(200);
    expect(foreign.status).toBe(404);
    expect(reverse.status).toBe(404);
  });

  it.each(['', '/data'])(
    'answers 404 to a token of another tenant on a request status and result (%s)',
    async (tail) => {
      // Act
      const own = await api(sim, tokens[2] as string, `${requests[2]}${tail}`);
      const foreign = await api(sim, tokens[0] as string, `${requests[2]}${tail}`);
      await own.arrayBuffer();
      // Assess
      expect(own.status).toBe(200);
      expect(foreign.status).toBe(404);
    },
  );

  it("serves each tenant's own calls, timed in its own zone, echoing its id, zone and locale", async () => {
    const docIds: Set<string>[] = [];
    for (const [i, tenant] of sim.tenants.entries()) {
      const [, , offset] = LOCAL_DAY[tenant.timeZoneId as keyof typeof LOCAL_DAY];
      // Act
      const result = (await (
        await api(sim, tokens[i] as string, `${requests[i]}/data`)
      ).json()) as ReportResult;
      // Assess
      const rows = result.data as ResultRow[];
      expect(rows.length).toBeGreaterThan(0);
      expect(result.tenantId).toBe(tenant.id);
      expect(result.request.timeZoneId).toBe(tenant.timeZoneId);
      expect(result.request.filterConditions.flatMap((c) => c.values)).toEqual([
        `2026-03-23T00:00:00${offset}`,
        `2026-03-24T00:00:00${offset}`,
      ]);
      // Local wall times of the tenant: every row of its local day carries that date.
      for (const row of rows) expect(String(row.start).slice(0, 10)).toBe('2026-03-23');
      docIds.push(new Set(rows.map((row) => String(row.docId))));
    }
    const [a, b, c] = docIds as [Set<string>, Set<string>, Set<string>];
    expect([...a].filter((id) => b.has(id) || c.has(id))).toEqual([]);
  });

  it('signs in the user the login_hint names, and refuses a hint naming no user, when auto-approving', async () => {
    // Prepare
    const authorize = (hint: string) =>
      `${sim.authUrl}/connect/authorize?${new URLSearchParams({
        client_id: sim.clientId,
        response_type: 'code',
        redirect_uri: sim.redirectUri,
        scope: OAUTH_SCOPE,
        login_hint: hint,
      })}`;
    // Act
    const status = (await (await api(sim, tokens[1] as string, requests[1] as string)).json()) as Envelope<{
      tenantId: string;
    }>;
    const unknown = await fetch(authorize('nobody@nowhere.example'), {
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    // Assess
    expect(status.data.tenantId).toBe(sim.tenants[1]?.id);
    const location = new URL(unknown.headers.get('location') ?? 'http://invalid/');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('simulator tenant revocation', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0, clock: new ManualClock(FIXED_NOW) });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("ends only the revoked tenant's grants: its refresh is invalid_grant and its access token 401, the others refresh", async () => {
    // Prepare
    const grants = [];
    for (const tenant of sim.tenants) grants.push(await obtainTokens(sim, OAUTH_SCOPE, tenant.username));
    const [a, b, c] = grants as [(typeof grants)[0], (typeof grants)[0], (typeof grants)[0]];
    // Act
    const admin = await fetch(`${sim.authUrl}/__admin/tenants/${sim.tenants[0]?.id}/revoke-grants`, {
      method: 'POST',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const refreshedA = await refresh(sim, a.refresh_token as string);
    const workspacesA = await api(sim, a.access_token, '/workspaces');
    const refreshedB = await refresh(sim, b.refresh_token as string);
    const workspacesC = await api(sim, c.access_token, '/workspaces');
    const again = await obtainTokens(sim, OAUTH_SCOPE, sim.username);
    // Assess
    expect(admin.status).toBe(204);
    expect(refreshedA.status).toBe(400);
    expect(((await refreshedA.json()) as { error: string }).error).toBe('invalid_grant');
    expect(workspacesA.status).toBe(401);
    expect(refreshedB.status).toBe(200);
    expect(workspacesC.status).toBe(200);
    expect((await refresh(sim, again.refresh_token as string)).status).toBe(200);
  });

  it('revokes in process too, and refuses a tenant it does not host', async () => {
    // Prepare
    const b = await obtainTokens(sim, OAUTH_SCOPE, sim.tenants[1]?.username);
    // Act
    sim.revokeTenantGrants(sim.tenants[1]?.id as string);
    const refreshed = await refresh(sim, b.refresh_token as string);
    const unknown = await fetch(
      `${sim.authUrl}/__admin/tenants/00000000-0000-4000-8000-000000000000/revoke-grants`,
      {
        method: 'POST',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      },
    );
    // Assess
    expect(refreshed.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(() => sim.revokeTenantGrants('00000000-0000-4000-8000-000000000000')).toThrow(/No hosted tenant/);
  });
});

describe('simulator with 1,000 tenants', () => {
  let sim: RunningSimulator;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sim-tenants-'));
    sim = await startSimulator({
      tenants: 1000,
      rowsPerDay: 5,
      autoApprove: true,
      reportLatencyMs: 0,
      dataDir,
      clock: new ManualClock(FIXED_NOW),
    });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("opens a tenant's directories only when a client of that tenant first uses them", async () => {
    // Prepare
    const last = sim.tenants[999] as SimTenantInfo;
    const before = await readdir(dataDir);
    const { access_token } = await obtainTokens(sim, OAUTH_SCOPE, last.username);
    // Act
    const directories = await api(sim, access_token, '/contactdirectories');
    // Assess
    expect(before).toEqual(['directories.json']);
    expect(directories.status).toBe(200);
    expect(await readdir(join(dataDir, 'tenants'))).toEqual([last.id]);
    expect(existsSync(join(dataDir, 'tenants', last.id, 'directories.json'))).toBe(true);
  });

  it('gives every tenant its own id, login and zone, and serves the last one its report', async () => {
    // Prepare
    const last = sim.tenants[999] as SimTenantInfo;
    const { access_token } = await obtainTokens(sim, OAUTH_SCOPE, last.username);
    // Act
    const path = await requestPath(sim, access_token, last, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
    const result = (await (await api(sim, access_token, `${path}/data`)).json()) as ReportResult;
    // Assess
    expect(sim.tenants).toHaveLength(1000);
    expect(new Set(sim.tenants.map((t) => t.id)).size).toBe(1000);
    expect(new Set(sim.tenants.map((t) => t.username)).size).toBe(1000);
    expect(new Set(sim.tenants.map((t) => t.timeZoneId)).size).toBeGreaterThan(6);
    expect(result.tenantId).toBe(last.id);
    expect(result.request.timeZoneId).toBe(last.timeZoneId);
  });
});
