import { describe, expect, it } from 'vitest';
import { validateAuthorizeRequest } from '../../../../lib/simulator/oauth/authorize-request';
import { AuthorizeRedirectError, UntrustedRedirectError } from '../../../../lib/simulator/oauth/errors';
import type { RegisteredClient } from '../../../../lib/simulator/oauth/types';

const CLIENTS: RegisteredClient[] = [
  { clientId: 'app', clientSecret: 'x', redirectUris: ['http://127.0.0.1:8000/', 'https://127.0.0.1:8000/'] },
];

function params(overrides: Record<string, string | undefined> = {}): URLSearchParams {
  const merged: Record<string, string | undefined> = {
    client_id: 'app',
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:8000/',
    scope: 'openid offline_access onboarding',
    state: 's1',
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(merged)) {
    if (value !== undefined) {
      search.set(name, value);
    }
  }
  return search;
}

function errorOf(search: URLSearchParams): unknown {
  try {
    validateAuthorizeRequest(search, CLIENTS);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('validateAuthorizeRequest', () => {
  it('returns the normalized request when every parameter is valid', () => {
    // Act
    const request = validateAuthorizeRequest(params({ scope: 'openid  onboarding openid' }), CLIENTS);

    // Assess
    expect(request).toEqual({
      clientId: 'app',
      redirectUri: 'http://127.0.0.1:8000/',
      scope: 'openid onboarding',
      state: 's1',
      codeChallenge: undefined,
    });
  });

  it('keeps the login_hint, the username to sign in as, when one is given', () => {
    // Act
    const request = validateAuthorizeRequest(params({ login_hint: 'api.admin@globex.example' }), CLIENTS);

    // Assess
    expect(request.loginHint).toBe('api.admin@globex.example');
  });

  it('redirects invalid_request when the login_hint is longer than 256 characters', () => {
    // Act
    const error = errorOf(params({ login_hint: 'x'.repeat(257) }));

    // Assess
    expect(error).toBeInstanceOf(AuthorizeRedirectError);
    expect(error).toMatchObject({
      error: 'invalid_request',
      description: expect.stringContaining('login_hint'),
    });
  });

  it('accepts the https default redirect URI when it is registered', () => {
    // Act
    const request = validateAuthorizeRequest(params({ redirect_uri: 'https://127.0.0.1:8000/' }), CLIENTS);

    // Assess
    expect(request.redirectUri).toBe('https://127.0.0.1:8000/');
  });

  it.each([
    ['client_id is missing', { client_id: undefined }],
    ['client_id is unknown', { client_id: 'other' }],
    ['redirect_uri is missing', { redirect_uri: undefined }],
    ['redirect_uri is not registered', { redirect_uri: 'http://127.0.0.1:9000/' }],
    ['redirect_uri only shares a prefix', { redirect_uri: 'http://127.0.0.1:8000/callback' }],
    ['redirect_uri differs in case', { redirect_uri: 'HTTP://127.0.0.1:8000/' }],
    ['client_id is unknown and response_type is bad too', { client_id: 'other', response_type: 'token' }],
  ])('throws UntrustedRedirectError when %s', (_label, overrides) => {
    // Act
    const error = errorOf(params(overrides));

    // Assess
    expect(error).toBeInstanceOf(UntrustedRedirectError);
  });

  it('throws UntrustedRedirectError when redirect_uri is repeated', () => {
    // Prepare
    const search = params();
    search.append('redirect_uri', 'https://127.0.0.1:8000/');

    // Act
    const error = errorOf(search);

    // Assess
    expect(error).toBeInstanceOf(UntrustedRedirectError);
  });

  it.each([
    ['response_type is missing', { response_type: undefined }, 'invalid_request'],
    ['response_type is token', { response_type: 'token' }, 'unsupported_response_type'],
    ['scope is missing', { scope: undefined }, 'invalid_request'],
    ['scope is blank', { scope: '   ' }, 'invalid_scope'],
    ['scope lacks openid', { scope: 'onboarding' }, 'invalid_scope'],
    ['scope has an unknown value', { scope: 'openid write:all' }, 'invalid_scope'],
    ['code_challenge_method comes alone', { code_challenge_method: 'S256' }, 'invalid_request'],
    [
      'code_challenge is too short',
      { code_challenge: 'abc', code_challenge_method: 'S256' },
      'invalid_request',
    ],
    [
      'code_challenge_method is unknown',
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'MD5' },
      'invalid_request',
    ],
  ])('throws AuthorizeRedirectError %s -> %s', (_label, overrides, code) => {
    // Act
    const error = errorOf(params(overrides));

    // Assess
    expect(error).toBeInstanceOf(AuthorizeRedirectError);
    expect(error).toMatchObject({ error: code, redirectUri: 'http://127.0.0.1:8000/', state: 's1' });
  });

  it('throws AuthorizeRedirectError invalid_request when scope is repeated', () => {
    // Prepare
    const search = params();
    search.append('scope', 'openid');

    // Act
    const error = errorOf(search);

    // Assess
    expect(error).toMatchObject({ error: 'invalid_request', code: 'SIM_OAUTH_INVALID_REQUEST', state: 's1' });
  });

  it.each([
    ['S256', 'S256'],
    ['plain', 'plain'],
    [undefined, 'plain'],
  ])('keeps the PKCE challenge when the method is %s', (method, expected) => {
    // Act
    const request = validateAuthorizeRequest(
      params({
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: method,
      }),
      CLIENTS,
    );

    // Assess
    expect(request.codeChallenge).toEqual({
      value: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      method: expected,
    });
  });

  it('leaves state undefined when the client sent none', () => {
    // Act
    const request = validateAuthorizeRequest(params({ state: undefined }), CLIENTS);

    // Assess
    expect(request.state).toBeUndefined();
  });
});
