import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, REQUEST_TIMEOUT_MS, startOAuthHarness } from '../../../support/oauth-harness';

describe('OAuth login form over HTTP', () => {
  let h: OAuthHarness;

  beforeAll(async () => {
    h = await startOAuthHarness({ autoApprove: false });
  });

  afterAll(async () => {
    await h.close();
  });

  async function openLoginPage(state = 'st-1'): Promise<{ html: string; transactionId: string }> {
    const response = await h.authorize({ state });
    expect(response.status).toBe(200);
    const html = await response.text();
    const transactionId = /name="txn" value="([^"]+)"/.exec(html)?.[1];
    if (transactionId === undefined) {
      throw new Error('no transaction id on the login page');
    }
    return { html, transactionId };
  }

  function submit(form: Record<string, string>): Promise<Response> {
    return fetch(`${h.origin}/connect/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  }

  function locationOf(response: Response): URL {
    return new URL(response.headers.get('location') ?? 'about:blank');
  }

  it('shows a login page with protective headers when auto-approve is off', async () => {
    // Act
    const response = await h.authorize();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('type="password"');
    expect(html).not.toContain(h.user.password);
  });

  it('fills in the username the login_hint names when the page opens', async () => {
    // Act
    const response = await h.authorize({ login_hint: 'api.admin@globex.example' });

    // Assess
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/id="username"[^>]*value="api\.admin@globex\.example"/);
  });

  it('redirects with a code and the state when the right credentials approve', async () => {
    // Prepare
    const { transactionId } = await openLoginPage('my-state');

    // Act
    const response = await submit({
      txn: transactionId,
      username: h.user.username,
      password: h.user.password,
      decision: 'approve',
    });

    // Assess
    expect(response.status).toBe(302);
    const location = locationOf(response);
    expect(location.searchParams.get('code')).toEqual(expect.any(String));
    expect(location.searchParams.get('state')).toBe('my-state');
  });

  it('redirects with access_denied and the state when the user denies', async () => {
    // Prepare
    const { transactionId } = await openLoginPage('deny-state');

    // Act
    const response = await submit({ txn: transactionId, decision: 'deny' });

    // Assess
    expect(response.status).toBe(302);
    const location = locationOf(response);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('deny-state');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('shows the page again with an error and no redirect when the password is wrong', async () => {
    // Prepare
    const { transactionId } = await openLoginPage();

    // Act
    const response = await submit({
      txn: transactionId,
      username: h.user.username,
      password: 'wrong',
      decision: 'approve',
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('not correct');
  });

  it('answers access_denied when the wrong password is tried five times', async () => {
    // Prepare
    const { transactionId } = await openLoginPage('brute');
    const attempt = { txn: transactionId, username: h.user.username, password: 'wrong', decision: 'approve' };
    for (let i = 0; i < 4; i += 1) {
      expect((await submit(attempt)).status).toBe(200);
    }

    // Act
    const response = await submit(attempt);

    // Assess
    expect(response.status).toBe(302);
    expect(locationOf(response).searchParams.get('error')).toBe('access_denied');
  });

  it.each([
    ['used', true],
    ['unknown', false],
  ])('answers a 400 page when the login transaction is %s', async (_label, useFirst) => {
    // Prepare
    const { transactionId } = await openLoginPage();
    const form = { txn: transactionId, username: h.user.username, password: h.user.password };
    if (useFirst) {
      expect((await submit(form)).status).toBe(302);
    }

    // Act
    const response = await submit(useFirst ? form : { ...form, txn: 'forged' });

    // Assess
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('answers a 400 page when the login transaction expired', async () => {
    // Prepare
    const { transactionId } = await openLoginPage();
    h.clock.advance(10 * 60 * 1000);

    // Act
    const response = await submit({
      txn: transactionId,
      username: h.user.username,
      password: h.user.password,
    });

    // Assess
    expect(response.status).toBe(400);
  });
});
