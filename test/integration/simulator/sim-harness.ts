import { ManualClock } from '../../../lib/simulator/clock';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../../lib/simulator/index';
import { OAUTH_SCOPE } from '../../../lib/spec/types';

/** Every request a test makes is bounded in time. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** Monday 30 March 2026, 10:30 in London (BST, the day after the spring DST change). */
export const FIXED_NOW = Date.UTC(2026, 2, 30, 9, 30, 0);

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const TIMESTAMP_7 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z$/;

/** A started simulator with a ManualClock, an access token, and small fetch helpers. */
export interface TestSim {
  sim: RunningSimulator;
  clock: ManualClock;
  token: string;
  /** `${baseUrl}/v1.0${path}` with the bearer token unless `headers.authorization` overrides it. */
  api(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Paths of the default workspace's first report. */
  reportPath: string;
  close(): Promise<void>;
}

/** Runs the authorization-code flow (auto-approve, as the user `loginHint` names, else the first) and returns the token response. */
export async function obtainTokens(
  sim: RunningSimulator,
  scope = OAUTH_SCOPE,
  loginHint?: string,
): Promise<{ access_token: string; refresh_token?: string }> {
  const authorize = new URL(`${sim.authUrl}/connect/authorize`);
  authorize.search = new URLSearchParams({
    client_id: sim.clientId,
    response_type: 'code',
    state: 'test-state',
    redirect_uri: sim.redirectUri,
    scope,
    ...(loginHint === undefined ? {} : { login_hint: loginHint }),
  }).toString();
  const redirect = await fetch(authorize, {
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const code = new URL(redirect.headers.get('location') ?? 'http://invalid/').searchParams.get('code');
  if (!code) throw new Error(`authorize did not redirect with a code (status ${redirect.status})`);
  const response = await fetch(`${sim.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: sim.redirectUri,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    }).toString(),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}`);
  return (await response.json()) as { access_token: string; refresh_token?: string };
}

/** Starts a simulator (auto-approve, no report latency, ManualClock at FIXED_NOW unless given). */
export async function startTestSim(options: SimulatorOptions = {}): Promise<TestSim> {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock(FIXED_NOW);
  const sim = await startSimulator({
    autoApprove: true,
    reportLatencyMs: 0,
    rowsPerDay: 200,
    ...options,
    clock,
  });
  const { access_token: token } = await obtainTokens(sim);
  const api: TestSim['api'] = (path, init = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    return fetch(`${sim.baseUrl}/v1.0${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  };
  return {
    sim,
    clock,
    token,
    api,
    reportPath: `/workspaces/${sim.workspaceId}/reports/${sim.reportIds[0]}`,
    close: () => sim.close(),
  };
}

/** Creates a report request over a fixed range and returns its id. */
export async function requestReport(t: TestSim, start: string, end: string): Promise<string> {
  const response = await t.api(`${t.reportPath}/requests`, {
    method: 'POST',
    body: { reportId: t.sim.reportIds[0], dateFilter: { start, end } },
  });
  if (response.status !== 200) throw new Error(`report request answered ${response.status}`);
  return ((await response.json()) as { data: { requestId: string } }).data.requestId;
}
