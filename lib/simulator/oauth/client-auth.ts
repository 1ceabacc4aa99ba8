import { InvalidClientError, OAUTH_ERROR, OAuthServerError } from './errors';
import { singleParam } from './http-io';
import { secretsEqual } from './opaque-tokens';
import type { RegisteredClient } from './types';

interface PresentedCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
}

/**
 * Authenticates the client of a token request: HTTP Basic (RFC 6749 2.3.1, each part
 * form-urlencoded) or `client_id` + `client_secret` in the form, never both.
 */
export function authenticateClient(
  authorization: string | undefined,
  form: URLSearchParams,
  clients: readonly RegisteredClient[],
): RegisteredClient {
  const credentials = presentedCredentials(authorization, form);
  const client = clients.find((c) => c.clientId === credentials.clientId);
  // Compare against something even for an unknown client, so timing does not tell ids apart.
  const expected = client?.clientSecret ?? '\u0000unknown-client';
  const secretMatches = secretsEqual(credentials.clientSecret ?? '', expected);
  if (client === undefined || credentials.clientSecret === undefined || !secretMatches) {
    throw new InvalidClientError();
  }
  return client;
}

function presentedCredentials(
  authorization: string | undefined,
  form: URLSearchParams,
): PresentedCredentials {
  const formClientId = singleParam(form, 'client_id');
  const formSecret = singleParam(form, 'client_secret');
  if (authorization === undefined || authorization === '') {
    return { clientId: formClientId, clientSecret: formSecret };
  }
  const basic = parseBasic(authorization);
  if (formSecret !== undefined) {
    throw new OAuthServerError(
      OAUTH_ERROR.invalidRequest,
      'Use one client authentication method: HTTP Basic or client_secret in the form, not both.',
    );
  }
  if (formClientId !== undefined && formClientId !== basic.clientId) {
    throw new OAuthServerError(OAUTH_ERROR.invalidRequest, 'client_id differs from the HTTP Basic user.');
  }
  return basic;
}

function parseBasic(authorization: string): PresentedCredentials {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (match?.[1] === undefined) {
    throw new InvalidClientError('Only HTTP Basic client authentication is supported.');
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    throw new InvalidClientError('Malformed HTTP Basic credentials.');
  }
  try {
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    throw new InvalidClientError('Malformed HTTP Basic credentials.');
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replaceAll('+', ' '));
}
