import { createServer } from 'node:http';
import { ManualClock } from '../../lib/simulator/clock';
import {
  createOAuthServer,
  DEFAULT_REDIRECT_URIS,
  type OAuthServer,
  type OAuthServerOptions,
  type RegisteredClient,
  type SeededUser,
} from '../../lib/simulator/oauth';
import { listenOnLoopback } from './loopback';

/** Every request a test makes is bounded in time. */
export const REQUEST_TIMEOUT_MS = 5_000;

export const TEST_CLIENT: RegisteredClient = {
  clientId: 'test-client',
  clientSecret: 's3cret+value/with:colon',
  redirectUris: [...DEFAULT_REDIRECT_URIS],
};

export const OTHER_CLIENT: RegisteredClient = {
  clientId: 'other-client',
  clientSecret: 'other-secret',
  redirectUris: ['http://127.0.0.1:8000/'],
};

export const TEST_USER: SeededUser = {
  subject: '5b0f4a7e-3c1d-4e2f-9a8b-7c6d5e4f3a2b',
  username: 'reseller.admin@example.com',
  password: 'correct horse battery staple',
  tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e',
};

export const SPEC_SCOPE = 'openid offline_access onboarding';

export interface OAuthHarnessOptions
  extends Partial<
    Pick<OAuthServerOptions, 'autoApprove' | 'rotateRefreshTokens' | 'accessTokenTtlSeconds'>
  > {}

/** The OAuth server alone on a loopback HTTP server, with a ManualClock and a /callback page. */
export interface OAuthHarness {
  origin: string;
  /** `${origin}/callback`, registered for TEST_CLIENT; answers 200 so a browser can land on it. */
  callbackUri: string;
  client: RegisteredClient;
  user: SeededUser;
  clock: ManualClock;
  oauth: OAuthServer;
  /** GET /connect/authorize with the spec's parameters, overridden or removed (undefined) by `params`. */
  authorize(params?: Record<string, string | undefined>): Promise<Response>;
  /** An authorization code through auto-approve (or fails the test). */
  obtainCode(params?: Record<string, string | undefined>): Promise<string>;
  /** POST /connect/token with a form body. */
  token(form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startOAuthHarness(options: OAuthHarnessOptions = {}): Promise<OAuthHarness> {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  let oauth: OAuthServer | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>callback</title><p>Back in the application.</p>');
      return;
    }
    void (oauth?.handle(req, res, url) ?? Promise.resolve(false)).then((handled) => {
      if (!handled) {
        res.writeHead(404, { 'content-length': 0 });
        res.end();
      }
    });
  });
  // Listen first: the issuer is the origin, which is known only once the port is.
  const listening = await listenOnLoopback(server);
  const origin = listening.url;
  const callbackUri = `${origin}/callback`;
  const client: RegisteredClient = {
    ...TEST_CLIENT,
    redirectUris: [...TEST_CLIENT.redirectUris, callbackUri],
  };
  oauth = await createOAuthServer({
    clients: [client, OTHER_CLIENT],
    users: [TEST_USER],
    clock,
    issuer: origin,
    autoApprove: options.autoApprove ?? true,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 5400,
  });

  const authorize = (params: Record<string, string | undefined> = {}): Promise<Response> => {
    const url = new URL('/connect/authorize', origin);
    const merged: Record<string, string | undefined> = {
      client_id: client.clientId,
      response_type: 'code',
      state: 'state-123',
      redirect_uri: 'http://127.0.0.1:8000/',
      scope: SPEC_SCOPE,
      ...params,
    };
    for (const [name, value] of Object.entries(merged)) {
      if (value !== undefined) {
        url.searchParams.set(name, value);
      }
    }
    return fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  };

  return {
    origin,
    callbackUri,
    client,
    user: TEST_USER,
    clock,
    oauth,
    authorize,
    async obtainCode(params = {}) {
      const response = await authorize(params);
      const location = response.headers.get('location');
      const code = location === null ? null : new URL(location).searchParams.get('code');
      if (response.status !== 302 || code === null) {
        throw new Error(`expected a redirect with a code, got ${response.status} ${location ?? ''}`);
      }
      return code;
    },
    token(form, headers = {}) {
      return fetch(new URL('/connect/token', origin), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    },
    close: listening.close,
  };
}

/** The form of an authorization_code exchange by TEST_CLIENT for the default redirect URI. */
export function codeExchangeForm(
  code: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:8000/',
    client_id: TEST_CLIENT.clientId,
    client_secret: TEST_CLIENT.clientSecret,
    ...overrides,
  };
}

/** The form of a refresh_token grant by TEST_CLIENT. */
export function refreshForm(
  refreshToken: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: TEST_CLIENT.clientId,
    client_secret: TEST_CLIENT.clientSecret,
    ...overrides,
  };
}

/** HTTP Basic credentials per RFC 6749 2.3.1 (each part form-urlencoded first). */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string): string => encodeURIComponent(value).replaceAll('%20', '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
