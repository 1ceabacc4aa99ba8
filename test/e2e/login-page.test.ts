import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from '../support/browser';
import { codeExchangeForm, type OAuthHarness, startOAuthHarness } from '../support/oauth-harness';

describe('login page in headless Chromium', () => {
  let h: OAuthHarness;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    h = await startOAuthHarness({ autoApprove: false });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  });

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  function authorizeUrl(state: string): string {
    const url = new URL('/connect/authorize', h.origin);
    url.search = new URLSearchParams({
      client_id: h.client.clientId,
      response_type: 'code',
      state,
      redirect_uri: h.callbackUri,
      scope: 'openid offline_access onboarding',
    }).toString();
    return url.toString();
  }

  async function signIn(password: string): Promise<void> {
    await page.fill('#username', h.user.username);
    await page.fill('#password', password);
  }

  it('lands on the redirect URI with a code and the state when the user logs in and approves', async () => {
    // Prepare
    await page.goto(authorizeUrl('browser-state-1'));
    await signIn(h.user.password);

    // Act
    await Promise.all([page.waitForURL(`${h.callbackUri}?**`), page.click('#approve')]);

    // Assess
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('browser-state-1');
    const code = landed.searchParams.get('code') ?? '';
    const exchange = await h.token(codeExchangeForm(code, { redirect_uri: h.callbackUri }));
    expect(exchange.status).toBe(200);
  });

  it('stays on the page with an error when the password is wrong', async () => {
    // Prepare
    await page.goto(authorizeUrl('browser-state-2'));
    await signIn('not the password');

    // Act
    await Promise.all([page.waitForLoadState('load'), page.click('#approve')]);

    // Assess
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain('not correct');
    expect(new URL(page.url()).pathname).toBe('/connect/authorize');
  });

  it('lands on the redirect URI with access_denied when the user denies', async () => {
    // Prepare
    await page.goto(authorizeUrl('browser-state-3'));

    // Act
    await Promise.all([page.waitForURL(`${h.callbackUri}?**`), page.click('#deny')]);

    // Assess
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe('browser-state-3');
    expect(landed.searchParams.get('code')).toBeNull();
  });

  it('shows a script-bearing state as text and runs nothing when the state carries markup', async () => {
    // Prepare
    const hostile = '"><script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';

    // Act
    await page.goto(authorizeUrl(hostile));

    // Assess
    await expect(page.locator('#state').textContent()).resolves.toBe(hostile);
    await expect(page.locator('script, img').count()).resolves.toBe(0);
    // A string expression: the tests are type-checked without the DOM library.
    await expect(page.evaluate('typeof window.__xss')).resolves.toBe('undefined');
  });

  it('shows the too-many-attempts page with 429 when a username failed 10 times in fresh login transactions', async () => {
    // Prepare: another username, so the other tests' user is not throttled.
    const username = 'someone.else@example.com';
    for (let i = 0; i < 10; i++) {
      await page.goto(authorizeUrl(`browser-throttle-${i}`));
      await page.fill('#username', username);
      await page.fill('#password', `guess-${i}`);
      await Promise.all([page.waitForLoadState('load'), page.click('#approve')]);
    }
    await page.goto(authorizeUrl('browser-throttle-last'));
    await page.fill('#username', username);
    await page.fill('#password', 'one more guess');

    // Act
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('#approve'),
    ]);
    await page.waitForLoadState('load');

    // Assess
    expect(response.status()).toBe(429);
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain(
      'Too many failed sign-in attempts',
    );
    expect(new URL(page.url()).pathname).toBe('/connect/authorize');
  });
});
