import { describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from '../../../../lib/simulator/oauth/authorize-request';
import { escapeHtml, renderErrorPage, renderLoginPage } from '../../../../lib/simulator/oauth/login-page';

const HOSTILE = `"'><script>alert(1)</script>&amp;`;

const REQUEST: AuthorizeRequest = {
  clientId: 'app',
  redirectUri: 'http://127.0.0.1:8000/',
  scope: 'openid offline_access onboarding',
  state: 'abc',
  codeChallenge: undefined,
};

describe('escapeHtml', () => {
  it.each([
    ['<', '&lt;'],
    ['>', '&gt;'],
    ['&', '&amp;'],
    ['"', '&quot;'],
    ["'", '&#39;'],
    ['plain text é', 'plain text é'],
  ])('turns %s into %s', (input, expected) => {
    // Act
    const escaped = escapeHtml(input);

    // Assess
    expect(escaped).toBe(expected);
  });
});

describe('renderLoginPage', () => {
  it.each([
    ['state', { request: { ...REQUEST, state: HOSTILE } }],
    ['client id', { request: { ...REQUEST, clientId: HOSTILE } }],
    ['redirect URI', { request: { ...REQUEST, redirectUri: HOSTILE } }],
    ['error', { request: REQUEST, error: HOSTILE }],
    ['prefilled username', { request: REQUEST, username: HOSTILE }],
    ['transaction id', { request: REQUEST, transactionId: HOSTILE }],
  ])('escapes the %s when it carries markup', (_label, model) => {
    // Act
    const html = renderLoginPage({ transactionId: 'txn-1', ...model });

    // Assess
    expect(html).not.toContain('<script>');
    expect(html).not.toContain(`"'>`);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;');
  });

  it('names every scope and carries the transaction id when rendered', () => {
    // Act
    const html = renderLoginPage({ transactionId: 'txn-1', request: REQUEST });

    // Assess
    expect(html).toContain('name="txn" value="txn-1"');
    expect(html).toContain('<code>offline_access</code>');
    expect(html).toContain('value="approve"');
    expect(html).toContain('value="deny"');
  });
});

describe('renderErrorPage', () => {
  it('escapes the description when it echoes a hostile value', () => {
    // Act
    const html = renderErrorPage({ code: 'invalid_request', description: `Unknown client_id '${HOSTILE}'.` });

    // Assess
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#39;&quot;&#39;&gt;&lt;script&gt;');
  });
});
