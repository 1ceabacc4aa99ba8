import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  exchangeCode,
  HttpTransport,
  type OAuthClientConfig,
  RedirectError,
  refreshTokens,
} from '../../../lib/api';
import { type LoopbackServer, startLoopbackServer } from './loopback-server';

const CLIENT_SECRET = 'SECRET-CLIENT-7f3a';
const REFRESH_TOKEN = 'SECRET-REFRESH-91c2';
const CODE = 'SECRET-CODE-55e0';
const SECRETS = [CLIENT_SECRET, REFRESH_TOKEN, CODE];

const noSleep = async (): Promise<void> => undefined;

/** Every way the error can be shown or logged, with its cause chain. */
function rendered(error: unknown): string {
  return `${inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })} ${String(error)} ${JSON.stringify(error)}`;
}

describe('redirects', () => {
  const servers: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  /** `elsewhere` answers like a real token endpoint / API; `service` redirects every call there. */
  async function redirectingPair(status: number) {
    const elsewhere = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ access_token: 'stolen', refresh_token: 'stolen', expires_in: 3600, data: [] }),
      );
    });
    servers.push(elsewhere);
    const service = await startLoopbackServer((req, res) => {
      res.writeHead(status, { location: `${elsewhere.url}${req.url ?? '/'}?echo=${CLIENT_SECRET}` });
      res.end();
    });
    servers.push(service);
    const config: OAuthClientConfig = {
      authUrl: service.url,
      clientId: 'client-1',
      clientSecret: CLIENT_SECRET,
      redirectUri: 'http://127.0.0.1:8000/',
    };
    return { elsewhere, service, config };
  }

  it.each([301, 302, 303, 307, 308])(
    'fails a refresh with RedirectError and never calls the target when the token endpoint answers %i',
    async (status) => {
      // Prepare
      const { elsewhere, service, config } = await redirectingPair(status);
      // Act
      const error = await refreshTokens(config, REFRESH_TOKEN, {
        transport: { maxRetries: 3, sleep: noSleep },
      }).catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toMatchObject({
        name: 'RedirectError',
        code: API_ERROR_CODES.redirect,
        status,
        location: `${elsewhere.url}/connect/token`,
      });
      expect(String((error as Error).message)).toContain(String(status));
      expect(String((error as Error).message)).toContain(`${elsewhere.url}/connect/token`);
      expect(elsewhere.requests).toEqual([]);
      expect(service.requests).toHaveLength(1);
      for (const secret of SECRETS) expect(rendered(error)).not.toContain(secret);
    },
  );

  it('fails a code exchange with RedirectError and never calls the target when the answer is 307', async () => {
    // Prepare
    const { elsewhere, config } = await redirectingPair(307);
    // Act
    const error = await exchangeCode(config, { code: CODE }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.redirect);
    expect(elsewhere.requests).toEqual([]);
    for (const secret of SECRETS) expect(rendered(error)).not.toContain(secret);
  });

  it.each([
    { status: 302, method: 'GET' as const },
    { status: 307, method: 'POST' as const },
    { status: 308, method: 'DELETE' as const },
  ])(
    'fails an API $method with RedirectError and no retry when the service answers $status',
    async ({ status, method }) => {
      // Prepare
      const { elsewhere, service } = await redirectingPair(status);
      const transport = new HttpTransport({
        baseUrl: `${service.url}/api`,
        auth: { getAccessToken: async () => REFRESH_TOKEN },
        maxRetries: 3,
        sleep: noSleep,
      });
      // Act
      const error = await transport
        .requestJson({ method, path: '/v1.0/workspaces', ...(method === 'POST' ? { json: {} } : {}) })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toMatchObject({ code: API_ERROR_CODES.redirect, status, path: '/api/v1.0/workspaces' });
      expect(elsewhere.requests).toEqual([]);
      expect(service.requests).toHaveLength(1);
      for (const secret of SECRETS) expect(rendered(error)).not.toContain(secret);
    },
  );
});
