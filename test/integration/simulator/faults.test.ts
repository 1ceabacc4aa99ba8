import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../../lib/simulator/faults';
import { requestReport, startTestSim, type TestSim } from './sim-harness';

describe('fault injection', () => {
  let t: TestSim;

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${t.sim.authUrl}/__admin/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5000),
    });

  beforeAll(async () => {
    t = await startTestSim();
  });
  afterEach(() => {
    t.sim.faults.clear();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([429, 500, 502, 503, 408] as const)(
    'answers %i with the error body when a status fault is armed',
    async (status) => {
      // Prepare
      t.sim.faults.inject({ route: 'workspaces', kind: 'status', status });
      // Act
      const faulted = await t.api('/workspaces');
      const next = await t.api('/workspaces');
      // Assess
      expect(faulted.status).toBe(status);
      expect(await faulted.json()).toMatchObject({ error: status, status: 'error' });
      expect(next.status).toBe(200);
    },
  );

  it('sends Retry-After when the rule has retryAfterSeconds', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'status', kind: 'status', status: 429, retryAfterSeconds: 7 });
    const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
    // Act
    const response = await t.api(`${t.reportPath}/results/${requestId}`);
    // Assess
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('affects the next N calls only when times is N', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'reports', kind: 'status', status: 503, times: 2 });
    // Act
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await t.api(`/workspaces/${t.sim.workspaceId}/reports`)).status);
    // Assess
    expect(statuses).toEqual([503, 503, 200]);
  });

  it('matches any route when the rule route is *', async () => {
    // Prepare
    t.sim.faults.inject({ route: '*', kind: 'status', status: 500 });
    // Act
    const response = await t.api(`/contactdirectories/${t.sim.directoryIds[0]}`);
    // Assess
    expect(response.status).toBe(500);
  });

  it('answers the token endpoint with an OAuth-style 503 when a token fault is armed', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'token', kind: 'status', status: 503, retryAfterSeconds: 1 });
    // Act
    const response = await fetch(`${t.sim.authUrl}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x',
      signal: AbortSignal.timeout(5000),
    });
    // Assess
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('holds the response back when a latency fault is armed', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'workspaces', kind: 'latency', ms: 3000 });
    // Act: a client that waits less than the latency must time out.
    const outcome = await fetch(`${t.sim.baseUrl}/v1.0/workspaces`, {
      headers: { authorization: `Bearer ${t.token}` },
      signal: AbortSignal.timeout(500),
    }).then(
      (response) => `completed ${response.status}`,
      (error: Error) => error.name,
    );
    // Assess
    expect(outcome).toBe('TimeoutError');
  });

  it.each(['gzip', 'identity'])(
    'drops the connection mid-body when a reset fault is armed (%s)',
    async (encoding) => {
      // Prepare
      const requestId = await requestReport(t, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
      t.sim.faults.inject({ route: 'data', kind: 'reset', afterBytes: 5000 });
      // Act
      const response = await t.api(`${t.reportPath}/results/${requestId}/data`, {
        headers: { 'accept-encoding': encoding },
      });
      const outcome = await response.text().then(
        () => 'complete',
        () => 'error',
      );
      // Assess
      expect(response.status).toBe(200);
      expect(outcome).toBe('error');
    },
  );

  it.each(['gzip', 'identity'])(
    'ends the body cleanly but early when a truncate fault is armed (%s)',
    async (encoding) => {
      // Prepare
      const requestId = await requestReport(t, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
      t.sim.faults.inject({ route: 'data', kind: 'truncate', afterBytes: 5000 });
      // Act
      const text = await (
        await t.api(`${t.reportPath}/results/${requestId}/data`, { headers: { 'accept-encoding': encoding } })
      ).text();
      // Assess
      expect(Buffer.byteLength(text)).toBe(5000);
      expect(() => JSON.parse(text)).toThrow();
    },
  );

  it('arms, lists and clears rules when the admin endpoint is used', async () => {
    // Prepare
    const rule: FaultRule = { route: 'items', kind: 'status', status: 502, times: 3 };
    // Act
    const created = await admin('POST', 'faults', rule);
    const listed = (await (await admin('GET', 'faults')).json()) as { faults: unknown[] };
    const cleared = await admin('DELETE', 'faults');
    const after = await t.api(`/contactdirectories/${t.sim.directoryIds[0]}/items`);
    // Assess
    expect(created.status).toBe(201);
    expect(listed.faults).toEqual([{ rule, remaining: 3 }]);
    expect(cleared.status).toBe(204);
    expect(after.status).toBe(200);
  });

  it.each([
    ['an unknown kind', { route: 'data', kind: 'explode' }],
    ['an unknown route', { route: 'nowhere', kind: 'status', status: 500 }],
    ['a reset outside data', { route: 'items', kind: 'reset', afterBytes: 1 }],
    ['an unsupported status', { route: 'data', kind: 'status', status: 418 }],
  ])('answers 400 when the admin endpoint gets %s', async (_case, rule) => {
    // Act
    const response = await admin('POST', 'faults', rule);
    // Assess
    expect(response.status).toBe(400);
  });
});
