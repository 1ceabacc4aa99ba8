import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness } from '../../../support/oauth-harness';

describe('OAuth authorize endpoint errors over HTTP', () => {
  let h: OAuthHarness;

  beforeAll(async () => {
    h = await startOAuthHarness({ autoApprove: true });
  });

  afterAll(async () => {
    await h.close();
  });

  it.each([
    ['an unregistered redirect_uri', { redirect_uri: 'http://127.0.0.1:8000/evil' }],
    ['a redirect_uri differing only by its path', { redirect_uri: 'http://127.0.0.1:8000/callback' }],
    ['a redirect_uri on another loopback name', { redirect_uri: 'http://localhost:8000/' }],
    ['no redirect_uri', { redirect_uri: undefined }],
    ['an unknown client_id', { client_id: 'nobody' }],
    ['no client_id', { client_id: undefined }],
  ])('answers an HTML 400 page and never redirects when the request has %s', async (_label, params) => {
    // Act
    const response = await h.authorize(params);

    // Assess
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('cannot be completed');
  });

  it('escapes the echoed redirect_uri when the error page shows it', async () => {
    // Act
    const response = await h.authorize({ redirect_uri: 'http://x/"><script>alert(1)</script>' });

    // Assess
    const html = await response.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it.each([
    ['response_type is not code', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_type is missing', { response_type: undefined }, 'invalid_request'],
    ['scope is missing', { scope: undefined }, 'invalid_request'],
    ['scope lacks openid', { scope: 'offline_access onboarding' }, 'invalid_scope'],
    ['scope has an unknown value', { scope: 'openid admin' }, 'invalid_scope'],
    [
      'the PKCE method is unknown',
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'S512' },
      'invalid_request',
    ],
  ])('redirects with error and state when %s', async (_label, params, error) => {
    // Act
    const response = await h.authorize({ ...params, state: 'xyz' });

    // Assess
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8000/');
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toEqual(expect.any(String));
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('answers 404 through the harness when the path is not an OAuth path', async () => {
    // Act
    const response = await fetch(`${h.origin}/connect/other`, { signal: AbortSignal.timeout(5_000) });

    // Assess
    expect(response.status).toBe(404);
  });

  it('publishes discovery metadata and a JWKS that names the token endpoint', async () => {
    // Act
    const metadata = (await (
      await fetch(`${h.origin}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5_000) })
    ).json()) as Record<string, unknown>;
    const jwks = (await (
      await fetch(String(metadata.jwks_uri), { signal: AbortSignal.timeout(5_000) })
    ).json()) as { keys: Array<Record<string, unknown>> };

    // Assess
    expect(metadata.token_endpoint).toBe(`${h.origin}/connect/token`);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});
