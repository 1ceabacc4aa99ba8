import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, REQUEST_TIMEOUT_MS, startTestSim, type TestSim } from './sim-harness';

const ANY_GUID = '00000000-0000-4000-8000-000000000000';

/** Every API endpoint (method, path) with well-formed ids. */
function endpoints(t: TestSim): [string, string][] {
  const ws = t.sim.workspaceId;
  const rep = t.sim.reportIds[0];
  const dir = t.sim.directoryIds[0];
  return [
    ['GET', '/workspaces'],
    ['GET', `/workspaces/${ws}/reports`],
    ['POST', `/workspaces/${ws}/reports/${rep}/requests`],
    ['GET', `/workspaces/${ws}/reports/${rep}/results/${ANY_GUID}`],
    ['GET', `/workspaces/${ws}/reports/${rep}/results/${ANY_GUID}/data`],
    ['GET', `/workspaces/${ws}/reports/${rep}/requests/${ANY_GUID}`],
    ['GET', `/workspaces/${ws}/reports/${rep}/requests/${ANY_GUID}/data`],
    ['GET', '/contactdirectories'],
    ['GET', `/contactdirectories/${dir}`],
    ['GET', `/contactdirectories/${dir}/items?filter=a`],
    ['GET', `/contactdirectories/${dir}/items/${ANY_GUID}`],
    ['GET', `/contactdirectories/${dir}/crmitems/${ANY_GUID}`],
    ['POST', `/contactdirectories/${dir}/items`],
    ['POST', `/contactdirectories/${dir}/crmitems`],
    ['PUT', `/contactdirectories/${dir}/items/${ANY_GUID}`],
    ['PATCH', `/contactdirectories/${dir}/items/${ANY_GUID}`],
    ['DELETE', `/contactdirectories/${dir}/items/${ANY_GUID}`],
    ['DELETE', `/contactdirectories/${dir}/crmitems/${ANY_GUID}`],
  ];
}

const CREDENTIAL_CASES: [string, (t: TestSim) => Record<string, string>][] = [
  ['no Authorization header', () => ({ authorization: '' })],
  ['a malformed token', () => ({ authorization: 'Bearer not.a.jwt' })],
  ['a Basic scheme', (t) => ({ authorization: `Basic ${t.token}` })],
  ['a tampered signature', (t) => ({ authorization: `Bearer ${t.token.slice(0, -4)}AAAA` })],
];

describe('API authentication', () => {
  let t: TestSim;

  beforeAll(async () => {
    t = await startTestSim();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 401 with an empty body on every endpoint when the token is missing', async () => {
    // Act
    const results = [];
    for (const [method, path] of endpoints(t)) {
      const response = await t.api(path, {
        method,
        headers: { authorization: '' },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      results.push([method, path, response.status, await response.text()]);
    }
    // Assess
    expect(results).toEqual(endpoints(t).map(([method, path]) => [method, path, 401, '']));
  });

  it.each(CREDENTIAL_CASES)(
    'answers 401 with an empty body when the request has %s',
    async (_case, headers) => {
      // Act
      const response = await t.api('/workspaces', { headers: headers(t) });
      // Assess
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('');
    },
  );

  it('answers 401 when the access token has expired by the clock', async () => {
    // Prepare
    const sim = await startTestSim();
    try {
      const before = await sim.api('/workspaces');
      // Act
      sim.clock.advance(5400_000 + 1000);
      const after = await sim.api('/workspaces');
      // Assess
      expect(before.status).toBe(200);
      expect(after.status).toBe(401);
    } finally {
      await sim.close();
    }
  });

  it('answers 401 for tokens issued before expire-tokens and 200 for a new one when POST /__admin/expire-tokens', async () => {
    // Prepare
    const sim = await startTestSim();
    try {
      // Act
      const admin = await fetch(`${sim.sim.authUrl}/__admin/expire-tokens`, {
        method: 'POST',
        signal: AbortSignal.timeout(5000),
      });
      const old = await sim.api('/workspaces');
      const fresh = await obtainTokens(sim.sim);
      const renewed = await sim.api('/workspaces', {
        headers: { authorization: `Bearer ${fresh.access_token}` },
      });
      // Assess
      expect(admin.status).toBe(204);
      expect(old.status).toBe(401);
      expect(renewed.status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

/** POSTs a refresh-token grant for the simulator's client, with extra form fields. */
async function refreshGrant(
  t: TestSim,
  refreshToken: string,
  extra: Record<string, string>,
): Promise<Response> {
  return fetch(`${t.sim.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: t.sim.clientId,
      client_secret: t.sim.clientSecret,
      ...extra,
    }).toString(),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

describe('API scope', () => {
  let t: TestSim;

  beforeAll(async () => {
    t = await startTestSim();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 403 insufficient_scope naming onboarding on every endpoint when the token lacks that scope', async () => {
    // Prepare
    const { access_token } = await obtainTokens(t.sim, 'openid offline_access');
    // Act
    const results = [];
    for (const [method, path] of endpoints(t)) {
      const response = await t.api(path, {
        method,
        headers: { authorization: `Bearer ${access_token}` },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      const body = (await response.json()) as { error: number };
      results.push([method, path, response.status, response.headers.get('www-authenticate'), body.error]);
    }
    // Assess
    expect(results).toEqual(
      endpoints(t).map(([method, path]) => [
        method,
        path,
        403,
        'Bearer error="insufficient_scope", scope="onboarding"',
        403,
      ]),
    );
  });

  it.each([
    { name: 'blank', scope: '   ' },
    { name: 'the same', scope: 'openid offline_access onboarding' },
  ])(
    'keeps the original scope and the API answers 200 when the refresh asks for a $name scope',
    async ({ scope }) => {
      // Prepare
      const { refresh_token } = await obtainTokens(t.sim);
      // Act
      const response = await refreshGrant(t, refresh_token ?? '', { scope });
      const body = (await response.json()) as { access_token: string; scope: string };
      const api = await t.api('/workspaces', { headers: { authorization: `Bearer ${body.access_token}` } });
      // Assess
      expect(response.status).toBe(200);
      expect(body.scope).toBe('openid offline_access onboarding');
      expect(api.status).toBe(200);
    },
  );

  it.each([
    { name: 'a scope it was not granted', scope: 'openid onboarding profile' },
    { name: 'an unknown scope', scope: 'onboarding admin' },
  ])('answers invalid_scope when a refresh asks for $name', async ({ scope }) => {
    // Prepare
    const { refresh_token } = await obtainTokens(t.sim, 'openid offline_access onboarding');
    // Act
    const response = await refreshGrant(t, refresh_token ?? '', { scope });
    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('answers 403 on the API for a token refreshed down to a scope without onboarding', async () => {
    // Prepare
    const { refresh_token } = await obtainTokens(t.sim);
    // Act
    const response = await refreshGrant(t, refresh_token ?? '', { scope: 'openid offline_access' });
    const body = (await response.json()) as { access_token: string; scope: string };
    const api = await t.api('/workspaces', { headers: { authorization: `Bearer ${body.access_token}` } });
    // Assess
    expect(body.scope).toBe('openid offline_access');
    expect(api.status).toBe(403);
  });
});
