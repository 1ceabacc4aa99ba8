import { describe, expect, it } from 'vitest';
import {
  buildAuthorizationUrl,
  exchangeCode,
  LoginRequiredError,
  OAUTH_ERROR_CODES,
  type OAuthClientConfig,
  processTokenResponse,
  refreshTokens,
  TokenEndpointError,
  TokenProvider,
  type TokenSet,
  validateRedirect,
} from '../../../lib/api';
import { pkceChallenge } from '../../../lib/api/oauth/authorization';
import { empty, json, recordingSleep, type Step, scriptedFetch } from './scripted-fetch';

const CLIENT: OAuthClientConfig = {
  authUrl: 'http://auth.test',
  clientId: 'client-1',
  clientSecret: 'very-secret',
  redirectUri: 'http://127.0.0.1:8000/',
};

const tokenBody = (n: number, extra: Record<string, unknown> = {}) => ({
  access_token: `access-${n}`,
  refresh_token: `refresh-${n}`,
  token_type: 'bearer',
  expires: 5400,
  ...extra,
});

class Clock {
  constructor(public t = 1_000_000) {}
  now = (): number => this.t;
}

describe('buildAuthorizationUrl', () => {
  it('carries the spec parameters and an S256 challenge when PKCE is asked', () => {
    // Act
    const { url, state, codeVerifier } = buildAuthorizationUrl({ ...CLIENT, state: 's-1', pkce: true });
    // Assess
    expect(url.origin + url.pathname).toBe('http://auth.test/connect/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'client-1',
      response_type: 'code',
      state: 's-1',
      redirect_uri: 'http://127.0.0.1:8000/',
      scope: 'openid offline_access onboarding',
      code_challenge_method: 'S256',
    });
    expect(state).toBe('s-1');
    expect(url.searchParams.get('code_challenge')).toBe(pkceChallenge(codeVerifier as string));
  });

  it('omits PKCE and makes a random state when neither is given', () => {
    // Act
    const a = buildAuthorizationUrl(CLIENT);
    const b = buildAuthorizationUrl(CLIENT);
    // Assess
    expect(a.url.searchParams.has('code_challenge')).toBe(false);
    expect(a.codeVerifier).toBeUndefined();
    expect(a.state).not.toBe(b.state);
  });
});

describe('validateRedirect', () => {
  it.each([
    {
      name: 'state differs',
      url: 'http://127.0.0.1:8000/?code=c&state=other',
      code: OAUTH_ERROR_CODES.stateMismatch,
    },
    { name: 'state missing', url: 'http://127.0.0.1:8000/?code=c', code: OAUTH_ERROR_CODES.stateMismatch },
    {
      name: 'error parameter present',
      url: 'http://127.0.0.1:8000/?error=access_denied&error_description=no&state=s',
      code: OAUTH_ERROR_CODES.authorizationResponse,
    },
    { name: 'no code', url: 'http://127.0.0.1:8000/?state=s', code: OAUTH_ERROR_CODES.invalidResponse },
  ])('throws $code when $name', ({ url, code }) => {
    // Act + Assess
    expect(() => validateRedirect(url, 's')).toThrow(expect.objectContaining({ code }));
  });

  it('returns the code and keeps error details when the redirect is valid or an error', () => {
    // Act
    const ok = validateRedirect('http://127.0.0.1:8000/?code=abc&state=s', 's');
    let denied: unknown;
    try {
      validateRedirect(
        new URLSearchParams('error=access_denied&error_description=User+said+no&state=s'),
        's',
      );
    } catch (e) {
      denied = e;
    }
    // Assess
    expect(ok).toEqual({ code: 'abc' });
    expect(denied).toMatchObject({ error: 'access_denied', errorDescription: 'User said no' });
  });
});

describe('processTokenResponse', () => {
  it.each([
    { name: 'expires', body: { access_token: 'a', expires: 5400 }, lifetime: 5400 },
    { name: 'expires_in', body: { access_token: 'a', expires_in: 3600 }, lifetime: 3600 },
    { name: 'expires_in as string', body: { access_token: 'a', expires_in: '120' }, lifetime: 120 },
    { name: 'no lifetime', body: { access_token: 'a' }, lifetime: 3600 },
  ])('computes expiry from $name', ({ body, lifetime }) => {
    // Act
    const set = processTokenResponse(
      { status: 200, headers: new Headers(), text: JSON.stringify(body) },
      1000,
    );
    // Assess
    expect(set.expiresAt).toBe(1000 + lifetime * 1000);
  });

  it('throws LoginRequiredError with error and description when the server answers invalid_grant', () => {
    // Prepare
    const text = JSON.stringify({
      error: 'invalid_grant',
      error_description: 'The refresh token was revoked.',
    });
    // Act
    let error: unknown;
    try {
      processTokenResponse({ status: 400, headers: new Headers(), text }, 0);
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(LoginRequiredError);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({
      name: 'LoginRequiredError',
      code: OAUTH_ERROR_CODES.invalidGrant,
      error: 'invalid_grant',
      errorDescription: 'The refresh token was revoked.',
      status: 400,
    });
  });

  it.each([
    { error: 'invalid_client', status: 401 },
    { error: 'temporarily_unavailable', status: 503 },
  ])(
    'throws TokenEndpointError with OAUTH_TOKEN_ERROR when the server answers $error',
    ({ error, status }) => {
      // Act
      let thrown: unknown;
      try {
        processTokenResponse({ status, headers: new Headers(), text: JSON.stringify({ error }) }, 0);
      } catch (e) {
        thrown = e;
      }
      // Assess
      expect(thrown).not.toBeInstanceOf(LoginRequiredError);
      expect(thrown).toMatchObject({ name: 'TokenEndpointError', code: 'OAUTH_TOKEN_ERROR', error, status });
    },
  );

  it('cuts the error description to 1 KiB when the server sends a huge one', () => {
    // Prepare
    const text = JSON.stringify({ error: 'invalid_client', error_description: 'x'.repeat(100_000) });
    // Act
    let error: TokenEndpointError | undefined;
    try {
      processTokenResponse({ status: 401, headers: new Headers(), text }, 0);
    } catch (e) {
      error = e as TokenEndpointError;
    }
    // Assess
    expect(error?.errorDescription).toHaveLength(1024);
    expect(error?.errorDescription?.endsWith('…')).toBe(true);
    expect(error?.message.length).toBeLessThan(1200);
  });

  it('throws invalid response when a success lacks access_token', () => {
    // Act + Assess
    expect(() =>
      processTokenResponse({ status: 200, headers: new Headers(), text: '{"token_type":"bearer"}' }, 0),
    ).toThrow(expect.objectContaining({ code: OAUTH_ERROR_CODES.invalidResponse }));
  });
});

describe('exchangeCode and refreshTokens', () => {
  it('posts the spec form fields and never puts the secret in the URL', async () => {
    // Prepare
    const fetch = scriptedFetch([json(200, tokenBody(1)), json(200, { access_token: 'x', expires_in: 60 })]);
    // Act
    const first = await exchangeCode(CLIENT, { code: 'c1', codeVerifier: 'v' }, { transport: { fetch } });
    const second = await refreshTokens(CLIENT, 'refresh-1', { transport: { fetch } });
    // Assess
    const [a, b] = fetch.calls;
    expect(a?.url.href).toBe('http://auth.test/connect/token');
    expect(a?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(a?.body))).toEqual({
      code: 'c1',
      grant_type: 'authorization_code',
      client_id: 'client-1',
      client_secret: 'very-secret',
      redirect_uri: 'http://127.0.0.1:8000/',
      code_verifier: 'v',
    });
    expect(Object.fromEntries(new URLSearchParams(b?.body))).toMatchObject({
      refresh_token: 'refresh-1',
      grant_type: 'refresh_token',
    });
    expect(first).toMatchObject({ accessToken: 'access-1', refreshToken: 'refresh-1' });
    expect(second.refreshToken).toBe('refresh-1'); // not rotated: the old one stays
  });

  it('does not repeat a refresh that may have reached the server when the answer is a 500', async () => {
    // Prepare
    const sleep = recordingSleep();
    const fetch = scriptedFetch([empty(500), json(200, tokenBody(2))]);
    // Act
    const error = await refreshTokens(CLIENT, 'r', { transport: { fetch, sleep } }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', 'API_SERVER_ERROR');
    expect(fetch.calls).toHaveLength(1);
  });
});

function provider(
  steps: Step[],
  options: { onTokens?: (t: TokenSet) => void | Promise<void>; clock?: Clock } = {},
) {
  const fetch = scriptedFetch(steps);
  const clock = options.clock ?? new Clock();
  const p = new TokenProvider({
    client: CLIENT,
    tokens: { refreshToken: 'refresh-0', accessToken: 'access-0', expiresAt: clock.t + 10_000 },
    clock,
    expirySkewMs: 1000,
    transport: { fetch },
    ...(options.onTokens ? { onTokens: options.onTokens } : {}),
  });
  return { p, fetch, clock };
}

describe('TokenProvider', () => {
  it('hands out the cached token until shortly before expiry', async () => {
    // Prepare
    const { p, fetch, clock } = provider([json(200, tokenBody(1))]);
    // Act
    const a = await p.getAccessToken();
    clock.t += 8_999;
    const b = await p.getAccessToken();
    clock.t += 1;
    const c = await p.getAccessToken();
    // Assess
    expect([a, b, c]).toEqual(['access-0', 'access-0', 'access-1']);
    expect(fetch.calls).toHaveLength(1);
  });

  it('sends one refresh when 20 callers need a new token at once', async () => {
    // Prepare
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { p, fetch, clock } = provider([
      async () => {
        await gate;
        return json(200, tokenBody(1));
      },
    ]);
    clock.t += 60_000;
    // Act
    const all = Promise.all(Array.from({ length: 20 }, () => p.getAccessToken()));
    release();
    const tokens = await all;
    // Assess
    expect(new Set(tokens)).toEqual(new Set(['access-1']));
    expect(fetch.calls).toHaveLength(1);
    expect(p.refreshCount).toBe(1);
  });

  it('stores the rotated tokens before handing out the new access token', async () => {
    // Prepare
    const events: string[] = [];
    const { p, clock } = provider([json(200, tokenBody(7))], {
      onTokens: async (t) => {
        await new Promise((r) => setTimeout(r, 5));
        events.push(`stored ${t.refreshToken}`);
      },
    });
    clock.t += 60_000;
    // Act
    const token = await p.getAccessToken();
    events.push(`got ${token}`);
    // Assess
    expect(events).toEqual(['stored refresh-7', 'got access-7']);
    expect(p.refreshToken).toBe('refresh-7');
  });

  it('withholds the token when storing fails and retries storage without a second refresh', async () => {
    // Prepare
    let fail = true;
    const stored: string[] = [];
    const { p, fetch, clock } = provider([json(200, tokenBody(3)), json(200, tokenBody(4))], {
      onTokens: (t) => {
        if (fail) throw new Error('secret store down');
        stored.push(t.refreshToken as string);
      },
    });
    clock.t += 60_000;
    // Act
    const error = await p.getAccessToken().catch((e: unknown) => e);
    fail = false;
    const token = await p.getAccessToken();
    // Assess
    expect(error).toHaveProperty('code', OAUTH_ERROR_CODES.persistenceFailed);
    expect(p.refreshToken).toBe('refresh-3');
    expect(token).toBe('access-3');
    expect(stored).toEqual(['refresh-3']);
    expect(fetch.calls).toHaveLength(1);
  });

  it('refreshes after invalidate only when the token is still the current one', async () => {
    // Prepare
    const { p, fetch } = provider([json(200, tokenBody(1)), json(200, tokenBody(2))]);
    // Act
    p.invalidate('access-0');
    const first = await p.getAccessToken();
    p.invalidate('access-0'); // a late 401 for the old token
    const second = await p.getAccessToken();
    // Assess
    expect([first, second]).toEqual(['access-1', 'access-1']);
    expect(fetch.calls).toHaveLength(1);
  });

  it('surfaces invalid_grant to every waiting caller when the refresh token is revoked', async () => {
    // Prepare
    const { p, clock } = provider([json(400, { error: 'invalid_grant', error_description: 'revoked' })]);
    clock.t += 60_000;
    // Act
    const results = await Promise.allSettled([p.getAccessToken(), p.getAccessToken()]);
    // Assess
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });
    }
  });
});
