import { afterEach, describe, expect, it } from 'vitest';
import type { OAuthErrorBody, TokenResponse } from '../../../../lib/spec/types';
import {
  codeExchangeForm,
  type OAuthHarness,
  type OAuthHarnessOptions,
  OTHER_CLIENT,
  refreshForm,
  startOAuthHarness,
} from '../../../support/oauth-harness';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('OAuth refresh tokens and access-token expiry over HTTP', () => {
  let h: OAuthHarness | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function start(
    options: OAuthHarnessOptions = {},
  ): Promise<{ h: OAuthHarness; tokens: TokenResponse }> {
    h = await startOAuthHarness({ autoApprove: true, ...options });
    const response = await h.token(codeExchangeForm(await h.obtainCode()));
    return { h, tokens: (await response.json()) as TokenResponse };
  }

  async function refresh(harness: OAuthHarness, refreshToken: string): Promise<Response> {
    return harness.token(refreshForm(refreshToken));
  }

  async function errorOf(response: Response): Promise<string> {
    return ((await response.json()) as OAuthErrorBody).error;
  }

  it('returns the same refresh token and a new access token when refreshing in the default mode', async () => {
    // Prepare
    const { h, tokens } = await start();
    h.clock.advance(1000);

    // Act
    const first = (await (await refresh(h, tokens.refresh_token ?? '')).json()) as TokenResponse;
    const second = await refresh(h, tokens.refresh_token ?? '');

    // Assess
    expect(first.refresh_token).toBe(tokens.refresh_token);
    expect(first.access_token).not.toBe(tokens.access_token);
    expect(first).toMatchObject({ token_type: 'bearer', expires: 5400, expires_in: 5400 });
    expect(second.status).toBe(200);
  });

  it('rejects the refresh token when it was idle 90 days and 1 second', async () => {
    // Prepare
    const { h, tokens } = await start();
    h.clock.advance(90 * DAY_MS + 1000);

    // Act
    const response = await refresh(h, tokens.refresh_token ?? '');

    // Assess
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe('invalid_grant');
  });

  it('keeps the refresh token alive when each use comes within 90 days of the last', async () => {
    // Prepare
    const { h, tokens } = await start();
    const token = tokens.refresh_token ?? '';
    h.clock.advance(89 * DAY_MS);
    const midway = await refresh(h, token);
    h.clock.advance(89 * DAY_MS);

    // Act
    const late = await refresh(h, token);

    // Assess
    expect(midway.status).toBe(200);
    expect(late.status).toBe(200);
  });

  it('rejects the refresh token when another client presents it', async () => {
    // Prepare
    const { h, tokens } = await start();

    // Act
    const response = await h.token(
      refreshForm(tokens.refresh_token ?? '', {
        client_id: OTHER_CLIENT.clientId,
        client_secret: OTHER_CLIENT.clientSecret,
      }),
    );

    // Assess
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe('invalid_grant');
    expect((await refresh(h, tokens.refresh_token ?? '')).status).toBe(200);
  });

  it('narrows the access-token scope when the refresh asks for less, and refuses more', async () => {
    // Prepare
    const { h, tokens } = await start();
    const token = tokens.refresh_token ?? '';

    // Act
    const narrower = (await (await h.token(refreshForm(token, { scope: 'openid' }))).json()) as TokenResponse;
    const wider = await h.token(refreshForm(token, { scope: 'openid profile' }));

    // Assess
    expect(narrower.scope).toBe('openid');
    expect(wider.status).toBe(400);
    expect(await errorOf(wider)).toBe('invalid_scope');
  });

  it('rotates the refresh token on each use when rotation is on', async () => {
    // Prepare
    const { h, tokens } = await start({ rotateRefreshTokens: true });

    // Act
    const rotated = (await (await refresh(h, tokens.refresh_token ?? '')).json()) as TokenResponse;
    const next = await refresh(h, rotated.refresh_token ?? '');

    // Assess
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.status).toBe(200);
  });

  it('revokes the whole family when a used refresh token is replayed in rotation mode', async () => {
    // Prepare
    const { h, tokens } = await start({ rotateRefreshTokens: true });
    const rotated = (await (await refresh(h, tokens.refresh_token ?? '')).json()) as TokenResponse;

    // Act
    const replay = await refresh(h, tokens.refresh_token ?? '');
    const newest = await refresh(h, rotated.refresh_token ?? '');

    // Assess
    expect(replay.status).toBe(400);
    expect(await errorOf(replay)).toBe('invalid_grant');
    expect(newest.status).toBe(400);
    expect(await errorOf(newest)).toBe('invalid_grant');
  });

  it('treats the access token as expired when the injected clock passes its lifetime', async () => {
    // Prepare
    const { h, tokens } = await start({ accessTokenTtlSeconds: 60 });
    const before = await h.oauth.verifyAccessToken(tokens.access_token);
    h.clock.advance(60_000);

    // Act
    const after = await h.oauth.verifyAccessToken(tokens.access_token);

    // Assess
    expect(before).not.toBeNull();
    expect(after).toBeNull();
  });

  it('rejects tokens issued before expireIssuedAccessTokens and accepts later ones', async () => {
    // Prepare
    const { h, tokens } = await start();

    // Act
    h.oauth.expireIssuedAccessTokens();
    const refreshed = (await (await refresh(h, tokens.refresh_token ?? '')).json()) as TokenResponse;

    // Assess
    await expect(h.oauth.verifyAccessToken(tokens.access_token)).resolves.toBeNull();
    await expect(h.oauth.verifyAccessToken(refreshed.access_token)).resolves.not.toBeNull();
  });
});
