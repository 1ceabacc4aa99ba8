import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../../lib/simulator/index';
import type { OAuthErrorBody, TokenResponse } from '../../../../lib/spec/types';

const TIMEOUT_MS = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The OAuth flows through the composed service (startSimulator), as a client sees them. */
describe('OAuth through startSimulator', () => {
  let sim: RunningSimulator | undefined;

  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function start(options: SimulatorOptions = {}): Promise<RunningSimulator> {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0, ...options });
    return sim;
  }

  function authorizeUrl(s: RunningSimulator, params: Record<string, string> = {}): URL {
    const url = new URL('/connect/authorize', s.authUrl);
    url.search = new URLSearchParams({
      client_id: s.clientId,
      response_type: 'code',
      state: 'sim-state',
      redirect_uri: s.redirectUri,
      scope: 'openid offline_access onboarding',
      ...params,
    }).toString();
    return url;
  }

  async function tokenRequest(s: RunningSimulator, form: Record<string, string>): Promise<Response> {
    return fetch(`${s.authUrl}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: s.clientId, client_secret: s.clientSecret, ...form }).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }

  async function login(s: RunningSimulator): Promise<TokenResponse> {
    const redirect = await fetch(authorizeUrl(s), {
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const code = new URL(redirect.headers.get('location') ?? 'about:blank').searchParams.get('code') ?? '';
    const response = await tokenRequest(s, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: s.redirectUri,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as TokenResponse;
  }

  function listWorkspaces(s: RunningSimulator, accessToken: string): Promise<Response> {
    return fetch(`${s.baseUrl}/v1.0/workspaces`, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }

  it('gives an access token the API accepts when the code flow completes', async () => {
    // Prepare
    const s = await start();

    // Act
    const tokens = await login(s);

    // Assess
    expect(tokens).toMatchObject({ token_type: 'bearer', expires: 5400, expires_in: 5400 });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect((await listWorkspaces(s, tokens.access_token)).status).toBe(200);
  });

  it('answers 401 with an empty body when the access token outlived its lifetime on the clock', async () => {
    // Prepare
    const clock = new ManualClock();
    const s = await start({ clock, accessTokenTtlSeconds: 60 });
    const tokens = await login(s);
    clock.advance(60_000);

    // Act
    const response = await listWorkspaces(s, tokens.access_token);

    // Assess
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
  });

  it('answers 401 for old tokens and 200 for refreshed ones when the admin endpoint expires tokens', async () => {
    // Prepare
    const s = await start();
    const tokens = await login(s);

    // Act
    const admin = await fetch(`${s.authUrl}/__admin/expire-tokens`, {
      method: 'POST',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const refreshed = (await (
      await tokenRequest(s, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' })
    ).json()) as TokenResponse;

    // Assess
    expect(admin.status).toBeLessThan(300);
    expect((await listWorkspaces(s, tokens.access_token)).status).toBe(401);
    expect((await listWorkspaces(s, refreshed.access_token)).status).toBe(200);
  });

  it('rejects the refresh token when the clock moves 90 days and 1 second without use', async () => {
    // Prepare
    const clock = new ManualClock();
    const s = await start({ clock });
    const tokens = await login(s);
    clock.advance(90 * DAY_MS + 1000);

    // Act
    const response = await tokenRequest(s, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
    });

    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as OAuthErrorBody).error).toBe('invalid_grant');
  });

  it('revokes the family when a rotated refresh token is replayed with rotation on', async () => {
    // Prepare
    const s = await start({ rotateRefreshTokens: true });
    const tokens = await login(s);
    const first = (await (
      await tokenRequest(s, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' })
    ).json()) as TokenResponse;

    // Act
    const replay = await tokenRequest(s, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
    });
    const newest = await tokenRequest(s, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
    });

    // Assess
    expect(first.refresh_token).not.toBe(tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(newest.status).toBe(400);
  });

  it('shows the login page instead of redirecting when auto-approve is off', async () => {
    // Prepare
    const s = await start({ autoApprove: false });

    // Act
    const response = await fetch(authorizeUrl(s), {
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });

    // Assess
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('type="password"');
  });

  it('answers a 400 page without a redirect when the redirect_uri is not registered', async () => {
    // Prepare
    const s = await start();

    // Act
    const response = await fetch(authorizeUrl(s, { redirect_uri: 'http://127.0.0.1:8001/' }), {
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });

    // Assess
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});
