import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  createClient,
  exchangeCode,
  type OAuthClientConfig,
  processTokenResponse,
  refreshTokens,
  TokenProvider,
} from '../../../lib/api';
import { empty, hangingStep, json, refused, reset, type Step, scriptedFetch } from './scripted-fetch';

const ACCESS = 'eyJhbGciOiJSUzI1NiJ9.SECRET-ACCESS.sig';
const REFRESH = 'SECRET-REFRESH-0';
const ROTATED = 'SECRET-REFRESH-1';
const CLIENT_SECRET = 'SECRET-CLIENT';
const CODE = 'SECRET-CODE';
/** Every secret, plus its first 10 characters (JSON.parse quotes that much of a bad body). */
const SECRETS = [ACCESS, REFRESH, ROTATED, CLIENT_SECRET, CODE].flatMap((s) => [s, s.slice(0, 10)]);

const CLIENT: OAuthClientConfig = {
  authUrl: 'http://auth.test',
  clientId: 'client-1',
  clientSecret: CLIENT_SECRET,
  redirectUri: 'http://127.0.0.1:8000/',
};

/** Every way an error can be shown or logged, along its whole cause chain. */
function renderings(error: unknown): string[] {
  const out: string[] = [inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })];
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    const e = current as Error & Record<string, unknown>;
    out.push(String(e), String(e.stack), JSON.stringify(e));
    const own: Record<string, unknown> = {};
    for (const key of Object.getOwnPropertyNames(e)) own[key] = e[key];
    out.push(JSON.stringify(own, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? '');
    current = e.cause;
  }
  return out;
}

function providerWith(steps: Step[], onTokens?: () => void) {
  const fetch = scriptedFetch(steps);
  return new TokenProvider({
    client: CLIENT,
    tokens: { refreshToken: REFRESH },
    transport: { fetch, maxRetries: 0, timeoutMs: 50 },
    ...(onTokens ? { onTokens } : {}),
  });
}

function apiWith(apiSteps: Step[], tokenSteps: Step[]) {
  return createClient({
    baseUrl: 'http://service.test/api',
    auth: providerWith(tokenSteps),
    workspaceId: '11111111-1111-4111-8111-111111111111',
    fetch: scriptedFetch(apiSteps),
    maxRetries: 0,
    timeoutMs: 50,
  });
}

const tokenOk = () => json(200, { access_token: ACCESS, refresh_token: ROTATED, expires: 5400 });
const ws = (api: ReturnType<typeof apiWith>) => async () => {
  for await (const _ of api.reporting.listWorkspaces()) break;
};

describe('errors never carry a token or secret', () => {
  it.each([
    {
      name: 'a 400 from the API on an authenticated call',
      act: ws(apiWith([json(400, { message: "The value 'x' is not valid." })], [tokenOk()])),
    },
    { name: 'a 401 after the one retry', act: ws(apiWith([empty(401)], [tokenOk(), tokenOk()])) },
    { name: 'a refused connection to the API', act: ws(apiWith([refused()], [tokenOk()])) },
    { name: 'a reset connection to the API', act: ws(apiWith([reset()], [tokenOk()])) },
    { name: 'an API timeout', act: ws(apiWith([hangingStep()], [tokenOk()])) },
    {
      name: 'invalid_grant on refresh',
      act: ws(apiWith([], [json(400, { error: 'invalid_grant', error_description: 'revoked' })])),
    },
    { name: 'a 500 from the token endpoint', act: ws(apiWith([], [empty(500)])) },
    { name: 'a reset during refresh', act: ws(apiWith([], [reset()])) },
    { name: 'a token endpoint timeout', act: ws(apiWith([], [hangingStep()])) },
    {
      name: 'a failing persistence hook',
      act: () =>
        providerWith([tokenOk()], () => {
          throw new Error('store down');
        }).getAccessToken(),
    },
    {
      name: 'a token response that is a bare token, not JSON',
      act: async () => processTokenResponse({ status: 200, headers: new Headers(), text: ACCESS }, 0),
    },
    {
      name: 'a token response that is form-encoded',
      act: async () =>
        processTokenResponse(
          { status: 200, headers: new Headers(), text: `${REFRESH}&access_token=${ACCESS}` },
          0,
        ),
    },
    {
      name: 'an access token that is not a header value',
      act: ws(apiWith([], [json(200, { access_token: `${ACCESS}\n`, expires: 5400 })])),
    },
    {
      name: 'a failed code exchange',
      act: () =>
        exchangeCode(
          CLIENT,
          { code: CODE, codeVerifier: 'v' },
          { transport: { fetch: scriptedFetch([json(400, { error: 'invalid_grant' })]) } },
        ),
    },
    {
      name: 'a refresh over a refused connection',
      act: () =>
        refreshTokens(CLIENT, REFRESH, { transport: { fetch: scriptedFetch([refused()]), maxRetries: 0 } }),
    },
  ])('when $name', async ({ act }) => {
    // Act
    const error = await Promise.resolve()
      .then(act as () => Promise<unknown>)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // Assess
    expect(error).toBeInstanceOf(Error);
    for (const text of renderings(error)) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  });
});
