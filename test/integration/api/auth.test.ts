import { afterEach, describe, expect, it } from 'vitest';
import {
  createClient,
  LoginRequiredError,
  OAUTH_ERROR_CODES,
  refreshTokens,
  TokenProvider,
  type TokenSet,
} from '../../../lib/api';
import { ManualClock } from '../../../lib/simulator/clock';
import {
  clientConfig,
  connect,
  countingFetch,
  login,
  type RunningSimulator,
  startTestSimulator,
} from './sim-fixture';

describe('OAuth and the token provider against the local service', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('logs in with PKCE and calls the API when the code is exchanged', async () => {
    // Prepare
    sim = await startTestSimulator();
    // Act
    const tokens = await login(sim, true);
    const api = createClient({
      baseUrl: sim.baseUrl,
      accessToken: tokens.accessToken,
      workspaceId: sim.workspaceId,
    });
    const reports: string[] = [];
    for await (const r of api.reporting.listReports()) reports.push(r.id);
    // Assess
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(reports).toEqual(sim.reportIds);
  });

  it('fails with invalid_grant when the refresh token is not known', async () => {
    // Prepare
    sim = await startTestSimulator();
    // Act
    const error = await refreshTokens(clientConfig(sim), 'not-a-refresh-token').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(LoginRequiredError);
    expect(error).toMatchObject({
      name: 'LoginRequiredError',
      code: OAUTH_ERROR_CODES.invalidGrant,
      error: 'invalid_grant',
      status: 400,
    });
  });

  it('surfaces invalid_grant from an API call when the provider cannot refresh', async () => {
    // Prepare
    sim = await startTestSimulator();
    const provider = new TokenProvider({ client: clientConfig(sim), tokens: { refreshToken: 'revoked' } });
    const api = createClient({ baseUrl: sim.baseUrl, auth: provider, workspaceId: sim.workspaceId });
    // Act
    const error = await api.reporting
      .getStatus({ reportId: sim.reportIds[0] as string, requestId: sim.reportIds[0] as string })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toMatchObject({ error: 'invalid_grant' });
  });

  it('stores every rotated refresh token before use and rejects the spent one when rotation is on', async () => {
    // Prepare
    sim = await startTestSimulator({ rotateRefreshTokens: true });
    const initial = await login(sim);
    const stored: string[] = [];
    const provider = new TokenProvider({
      client: clientConfig(sim),
      tokens: { refreshToken: initial.refreshToken as string },
      onTokens: (t: TokenSet) => {
        stored.push(t.refreshToken as string);
      },
    });
    const api = createClient({ baseUrl: sim.baseUrl, auth: provider, workspaceId: sim.workspaceId });
    // Act
    for await (const _ of api.reporting.listWorkspaces()) break;
    provider.invalidate(await provider.getAccessToken());
    for await (const _ of api.reporting.listWorkspaces()) break;
    const reuse = await refreshTokens(clientConfig(sim), initial.refreshToken as string).catch(
      (e: unknown) => e,
    );
    // Assess
    expect(stored).toHaveLength(2);
    expect(new Set([initial.refreshToken, ...stored]).size).toBe(3);
    expect(provider.refreshToken).toBe(stored[1]);
    expect(reuse).toMatchObject({ error: 'invalid_grant' });
  });

  it('refreshes once and all 20 concurrent calls succeed when the access token expired under rotation', async () => {
    // Prepare
    sim = await startTestSimulator({ rotateRefreshTokens: true });
    const { api, tokens, counter } = await connect(sim);
    for await (const _ of api.reporting.listWorkspaces()) break; // token in use
    sim.faults.expireAccessTokens();
    // Act
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, async () => {
        const ids: string[] = [];
        for await (const r of api.reporting.listReports()) ids.push(r.id);
        return ids;
      }),
    );
    // Assess
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('fulfilled'));
    expect(tokens.refreshCount).toBe(1);
    expect(counter.tokenCalls()).toBe(1);
  });

  it('refreshes ahead of expiry when the token expires mid-run by the clock', async () => {
    // Prepare
    const clock = new ManualClock();
    sim = await startTestSimulator({ clock, rotateRefreshTokens: true });
    const { api, tokens } = await connect(sim, { provider: { clock } });
    const reportId = sim.reportIds[0] as string;
    const run = await api.reporting.requestReport({
      reportId,
      period: { start: '2026-11-02T00:00:00Z', end: '2026-11-03T00:00:00Z' },
    });
    const ref = { reportId, requestId: run.requestId };
    // Act
    clock.advance(2 * 3600 * 1000); // past the 5400 s lifetime, and past the report latency
    const status = await api.reporting.waitForCompletion(ref, { pollIntervalMs: 10, maxPolls: 20 });
    const result = await api.reporting.openResult(ref);
    let rows = 0;
    for await (const _ of result.rows) rows++;
    // Assess
    expect(status.status).toBe('Complete');
    expect(rows).toBe((await result.done()).totalCount);
    expect(tokens.refreshCount).toBe(1);
  });

  it('retries the call once with a new token when the server expired the token mid-run', async () => {
    // Prepare
    sim = await startTestSimulator();
    const { api, tokens } = await connect(sim);
    const reportId = sim.reportIds[0] as string;
    const run = await api.reporting.requestReport({ reportId, period: { preset: 'LastMonth' } });
    // Act
    sim.faults.expireAccessTokens();
    const status = await api.reporting.waitForCompletion(
      { reportId, requestId: run.requestId },
      { pollIntervalMs: 20, maxPolls: 50 },
    );
    // Assess
    expect(status.status).toBe('Complete');
    expect(tokens.refreshCount).toBe(1);
  });

  it('fails with UnauthorizedError without a retry when a fixed token is rejected', async () => {
    // Prepare
    sim = await startTestSimulator();
    const counter = countingFetch();
    const api = createClient({
      baseUrl: sim.baseUrl,
      accessToken: 'not-a-jwt',
      workspaceId: sim.workspaceId,
      fetch: counter.fetch,
    });
    // Act
    const error = await (async () => {
      for await (const _ of api.reporting.listReports()) break;
    })().catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', 'API_UNAUTHORIZED');
    expect(counter.calls()).toBe(1);
  });
});
