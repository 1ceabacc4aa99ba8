import { describe, expect, it } from 'vitest';
import { authenticateClient } from '../../../../lib/simulator/oauth/client-auth';
import { InvalidClientError } from '../../../../lib/simulator/oauth/errors';
import type { RegisteredClient } from '../../../../lib/simulator/oauth/types';

const CLIENT: RegisteredClient = { clientId: 'my app', clientSecret: 'p@ss:w+rd/é', redirectUris: [] };

function basic(id: string, secret: string): string {
  const encode = (value: string): string => encodeURIComponent(value).replaceAll('%20', '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

function attempt(authorization: string | undefined, form: Record<string, string>): unknown {
  try {
    return authenticateClient(authorization, new URLSearchParams(form), [CLIENT]);
  } catch (error) {
    return error;
  }
}

describe('authenticateClient', () => {
  it.each([
    ['form fields', undefined, { client_id: 'my app', client_secret: 'p@ss:w+rd/é' }],
    ['HTTP Basic', basic('my app', 'p@ss:w+rd/é'), {}],
    ['HTTP Basic plus a matching form client_id', basic('my app', 'p@ss:w+rd/é'), { client_id: 'my app' }],
  ])('returns the client when credentials come as %s', (_label, authorization, form) => {
    // Act
    const result = attempt(authorization, form);

    // Assess
    expect(result).toBe(CLIENT);
  });

  it.each([
    ['a wrong form secret', undefined, { client_id: 'my app', client_secret: 'nope' }],
    ['no secret', undefined, { client_id: 'my app' }],
    ['no credentials', undefined, {}],
    ['an unknown client', undefined, { client_id: 'who', client_secret: 'p@ss:w+rd/é' }],
    ['a wrong Basic secret', basic('my app', 'nope'), {}],
    ['a Bearer header', 'Bearer abc', {}],
    ['Basic without a colon', `Basic ${Buffer.from('nocolon').toString('base64')}`, {}],
  ])('throws InvalidClientError (401) when given %s', (_label, authorization, form) => {
    // Act
    const result = attempt(authorization, form);

    // Assess
    expect(result).toBeInstanceOf(InvalidClientError);
    expect(result).toMatchObject({ error: 'invalid_client', code: 'SIM_OAUTH_INVALID_CLIENT', status: 401 });
    expect(String((result as Error).message)).not.toContain('nope');
  });

  it.each([
    ['both Basic and a form secret', basic('my app', 'p@ss:w+rd/é'), { client_secret: 'p@ss:w+rd/é' }],
    ['a form client_id differing from Basic', basic('my app', 'p@ss:w+rd/é'), { client_id: 'other' }],
  ])('throws invalid_request when given %s', (_label, authorization, form) => {
    // Act
    const result = attempt(authorization, form);

    // Assess
    expect(result).toMatchObject({
      error: 'invalid_request',
      code: 'SIM_OAUTH_INVALID_REQUEST',
      status: 400,
    });
  });
});
