import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../../../lib/simulator/oauth';
import type { OAuthErrorBody, TokenResponse } from '../../../../lib/spec/types';
import {
  basicAuthorization,
  codeExchangeForm,
  type OAuthHarness,
  OTHER_CLIENT,
  REQUEST_TIMEOUT_MS,
  refreshForm,
  startOAuthHarness,
  TEST_CLIENT,
} from '../../../support/oauth-harness';

describe('OAuth authorization code flow over HTTP', () => {
  let h: OAuthHarness;

  beforeAll(async () => {
    h = await startOAuthHarness({ autoApprove: true });
  });

  afterAll(async () => {
    await h.close();
  });

  it('redirects at once with a code and the state when auto-approve is on', async () => {
    // Act
    const response = await h.authorize({ state: 'a b&c=d' });

    // Assess
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8000/');
    expect(location.searchParams.get('state')).toBe('a b&c=d');
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('issues a signed access token and a refresh token when the code is exchanged', async () => {
    // Prepare
    const code = await h.obtainCode();

    // Act
    const response = await h.token(codeExchangeForm(code));

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as TokenResponse;
    expect(body).toMatchObject({
      token_type: 'bearer',
      expires: 5400,
      expires_in: 5400,
      scope: 'openid offline_access onboarding',
    });
    expect(body.refresh_token).toEqual(expect.any(String));
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      iss: h.origin,
      sub: h.user.subject,
      client_id: TEST_CLIENT.clientId,
      tenant_id: h.user.tenantId,
      scope: 'openid offline_access onboarding',
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(5400);
    await expect(h.oauth.verifyAccessToken(body.access_token)).resolves.toMatchObject({
      sub: h.user.subject,
      clientId: TEST_CLIENT.clientId,
      tenantId: h.user.tenantId,
    });
  });

  it('accepts client credentials in HTTP Basic when the form carries none', async () => {
    // Prepare
    const code = await h.obtainCode();
    const { client_id: _id, client_secret: _secret, ...form } = codeExchangeForm(code);

    // Act
    const response = await h.token(form, {
      authorization: basicAuthorization(TEST_CLIENT.clientId, TEST_CLIENT.clientSecret),
    });

    // Assess
    expect(response.status).toBe(200);
  });

  it('omits the refresh token when the scope lacks offline_access', async () => {
    // Prepare
    const code = await h.obtainCode({ scope: 'openid onboarding' });

    // Act
    const response = await h.token(codeExchangeForm(code));

    // Assess
    expect(response.status).toBe(200);
    const body = (await response.json()) as TokenResponse;
    expect(body.refresh_token).toBeUndefined();
    expect(body.scope).toBe('openid onboarding');
  });

  it('rejects a reused code and revokes the refresh token it bought when the code is replayed', async () => {
    // Prepare
    const code = await h.obtainCode();
    const first = (await (await h.token(codeExchangeForm(code))).json()) as TokenResponse;

    // Act
    const replay = await h.token(codeExchangeForm(code));

    // Assess
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as OAuthErrorBody).error).toBe('invalid_grant');
    const refresh = await h.token(refreshForm(first.refresh_token ?? ''));
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as OAuthErrorBody).error).toBe('invalid_grant');
  });

  it.each([
    ['a wrong secret in the form', { client_secret: 'wrong' }, {}],
    ['an unknown client', { client_id: 'nobody' }, {}],
    ['no secret at all', { client_secret: '' }, {}],
  ])('answers 401 invalid_client when the client sends %s', async (_label, overrides, headers) => {
    // Prepare
    const code = await h.obtainCode();

    // Act
    const response = await h.token(codeExchangeForm(code, overrides), headers);

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    const body = (await response.json()) as OAuthErrorBody;
    expect(body.error).toBe('invalid_client');
    expect(JSON.stringify(body)).not.toContain('wrong');
  });

  it('answers 401 invalid_client when HTTP Basic carries a wrong secret', async () => {
    // Prepare
    const code = await h.obtainCode();
    const { client_id: _id, client_secret: _secret, ...form } = codeExchangeForm(code);

    // Act
    const response = await h.token(form, { authorization: basicAuthorization(TEST_CLIENT.clientId, 'nope') });

    // Assess
    expect(response.status).toBe(401);
    expect(((await response.json()) as OAuthErrorBody).error).toBe('invalid_client');
  });

  it.each([
    ['a different redirect_uri', { redirect_uri: 'https://127.0.0.1:8000/' }],
    ['no redirect_uri', { redirect_uri: '' }],
    ['another client', { client_id: OTHER_CLIENT.clientId, client_secret: OTHER_CLIENT.clientSecret }],
  ])('answers invalid_grant or invalid_request when the exchange has %s', async (label, overrides) => {
    // Prepare
    const code = await h.obtainCode();

    // Act
    const response = await h.token(codeExchangeForm(code, overrides));

    // Assess
    expect(response.status).toBe(400);
    const expected = label === 'no redirect_uri' ? 'invalid_request' : 'invalid_grant';
    expect(((await response.json()) as OAuthErrorBody).error).toBe(expected);
  });

  it.each([
    ['an unsupported grant type', { grant_type: 'password' }, 'unsupported_grant_type'],
    ['no grant type', { grant_type: '' }, 'invalid_request'],
    ['no code', { code: '' }, 'invalid_request'],
    ['an unknown code', { code: 'not-a-code' }, 'invalid_grant'],
  ])('answers 400 %s when the request has %s', async (_label, overrides, error) => {
    // Prepare
    const code = await h.obtainCode();

    // Act
    const response = await h.token(codeExchangeForm(code, overrides));

    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as OAuthErrorBody).error).toBe(error);
  });

  it('answers invalid_request when the token request is not form encoded', async () => {
    // Prepare
    const code = await h.obtainCode();

    // Act
    const response = await fetch(`${h.origin}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(codeExchangeForm(code)),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });

    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as OAuthErrorBody).error).toBe('invalid_request');
  });

  it('rejects a code when the code expired', async () => {
    // Prepare
    const code = await h.obtainCode();
    h.clock.advance(61_000);

    // Act
    const response = await h.token(codeExchangeForm(code));

    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as OAuthErrorBody).error).toBe('invalid_grant');
  });

  it.each([
    ['S256', (verifier: string) => s256Challenge(verifier)],
    ['plain', (verifier: string) => verifier],
  ])('exchanges a PKCE-bound code when the %s verifier matches', async (method, challengeOf) => {
    // Prepare
    const verifier = 'dBjftJeZ4CVP-mJ92K9z-H6p2H-uEQ8Wq-8Wq-8Wq-8Wq-8W';
    const code = await h.obtainCode({ code_challenge: challengeOf(verifier), code_challenge_method: method });

    // Act
    const response = await h.token(codeExchangeForm(code, { code_verifier: verifier }));

    // Assess
    expect(response.status).toBe(200);
  });

  it.each([
    ['a wrong verifier', { code_verifier: 'x'.repeat(43) }],
    ['no verifier', {}],
  ])('answers invalid_grant for a PKCE-bound code when the exchange has %s', async (_label, overrides) => {
    // Prepare
    const challenge = s256Challenge('v'.repeat(50));
    const code = await h.obtainCode({ code_challenge: challenge, code_challenge_method: 'S256' });

    // Act
    const response = await h.token(codeExchangeForm(code, overrides));

    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as OAuthErrorBody).error).toBe('invalid_grant');
  });
});
