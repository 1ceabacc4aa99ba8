import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import { startSimulator } from '../../../../lib/simulator/index';
import {
  createOAuthServer,
  DEFAULT_REDIRECT_URIS,
  type OAuthServer,
  type OAuthServerOptions,
} from '../../../../lib/simulator/oauth';
import { MAX_STATE_LENGTH } from '../../../../lib/simulator/oauth/authorize-request';
import { OAUTH_SCOPE } from '../../../../lib/spec/types';
import { listenOnLoopback } from '../../../support/loopback';

const REQUEST_TIMEOUT_MS = 5_000;
const CLIENT = {
  clientId: 'throttle-client',
  clientSecret: 'secret',
  redirectUris: [...DEFAULT_REDIRECT_URIS],
};
const USER = {
  subject: '5b0f4a7e-3c1d-4e2f-9a8b-7c6d5e4f3a2b',
  username: 'admin@example.com',
  password: 'right-password',
  tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e',
};

interface LoginServer {
  origin: string;
  clientId: string;
  username: string;
  password: string;
  clock: ManualClock;
  close(): Promise<void>;
}

/** The authorization server alone on 127.0.0.1 with the given limits. */
async function startLoginServer(
  options: Pick<OAuthServerOptions, 'loginThrottle' | 'maxLoginTransactions'>,
): Promise<LoginServer> {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9));
  let oauth: OAuthServer | undefined;
  const server = createServer((req, res) => {
    void oauth?.handle(req, res, new URL(req.url ?? '/', 'http://127.0.0.1'));
  });
  const listening = await listenOnLoopback(server);
  const origin = listening.url;
  oauth = await createOAuthServer({
    clients: [CLIENT],
    users: [USER],
    clock,
    issuer: origin,
    autoApprove: false,
    rotateRefreshTokens: false,
    accessTokenTtlSeconds: 5400,
    ...options,
  });
  return {
    origin,
    clientId: CLIENT.clientId,
    username: USER.username,
    password: USER.password,
    clock,
    close: listening.close,
  };
}

/** Opens the login page (a new login transaction); returns the response and the transaction id. */
async function openLogin(
  s: Pick<LoginServer, 'origin' | 'clientId'>,
  state = 'st',
): Promise<{ response: Response; txn: string | undefined }> {
  const url = new URL('/connect/authorize', s.origin);
  url.search = new URLSearchParams({
    client_id: s.clientId,
    response_type: 'code',
    state,
    redirect_uri: 'http://127.0.0.1:8000/',
    scope: OAUTH_SCOPE,
  }).toString();
  const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const html = response.status === 200 ? await response.clone().text() : '';
  return { response, txn: /name="txn" value="([^"]+)"/.exec(html)?.[1] };
}

function signIn(origin: string, txn: string, username: string, password: string): Promise<Response> {
  return fetch(`${origin}/connect/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ txn, username, password, decision: 'approve' }).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

/** `count` failed sign-ins, each in a fresh login transaction. */
async function failInFreshTransactions(
  s: LoginServer,
  count: number,
  username = s.username,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const { txn } = await openLogin(s);
    statuses.push((await signIn(s.origin, txn ?? '', username, `wrong-${i}`)).status);
  }
  return statuses;
}

describe('login throttling and login transaction limits over HTTP', () => {
  let server: LoginServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('refuses the right password of a user with 429 and Retry-After after 10 failures in fresh transactions, until the window passes', async () => {
    // Prepare: the local service itself, with its default limits.
    const clock = new ManualClock(Date.UTC(2026, 2, 30, 9));
    const sim = await startSimulator({ clock, reportLatencyMs: 0 });
    const s = { ...sim, origin: sim.authUrl, clock, close: () => sim.close() };
    server = s;
    await failInFreshTransactions(s, 10);
    // Act
    const { txn } = await openLogin(s);
    const refused = await signIn(s.origin, txn ?? '', s.username, s.password);
    const page = await refused.text();
    clock.advance(15 * 60_000);
    const later = await signIn(s.origin, (await openLogin(s)).txn ?? '', s.username, s.password);
    // Assess
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(15 * 60);
    expect(page).toContain('Too many failed sign-in attempts. Try again in 15 minute(s).');
    expect(later.status).toBe(302);
    expect(new URL(later.headers.get('location') ?? 'about:blank').searchParams.get('code')).toBeTruthy();
  });

  it('refuses every user of a client with 429 when the client reached its failures across usernames', async () => {
    // Prepare
    server = await startLoginServer({ loginThrottle: { maxFailuresPerUser: 100, maxFailuresPerClient: 4 } });
    const s = server;
    const statuses = [
      ...(await failInFreshTransactions(s, 2, 'guess-one')),
      ...(await failInFreshTransactions(s, 2, 'guess-two')),
    ];
    // Act
    const { txn } = await openLogin(s);
    const refused = await signIn(s.origin, txn ?? '', s.username, s.password);
    // Assess
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(refused.status).toBe(429);
  });

  it('lets the right password in after fewer failures than the limit and counts afresh after a success', async () => {
    // Prepare
    server = await startLoginServer({ loginThrottle: { maxFailuresPerUser: 3 } });
    const s = server;
    await failInFreshTransactions(s, 2);
    // Act
    const first = await signIn(s.origin, (await openLogin(s)).txn ?? '', s.username, s.password);
    await failInFreshTransactions(s, 2);
    const second = await signIn(s.origin, (await openLogin(s)).txn ?? '', s.username, s.password);
    // Assess
    expect(first.status).toBe(302);
    expect(second.status).toBe(302);
  });

  it('forgets the oldest pending login transaction when more are opened than the limit', async () => {
    // Prepare
    server = await startLoginServer({ maxLoginTransactions: 3 });
    const s = server;
    const opened = [];
    for (let i = 0; i < 4; i++) opened.push((await openLogin(s)).txn ?? '');
    // Act
    const oldest = await signIn(s.origin, opened[0] ?? '', s.username, s.password);
    const newest = await signIn(s.origin, opened[3] ?? '', s.username, s.password);
    // Assess
    expect(oldest.status).toBe(400);
    expect(await oldest.text()).toContain('The sign-in session is unknown or has expired.');
    expect(newest.status).toBe(302);
  });

  it('redirects with invalid_request and keeps no login transaction when the state is longer than the limit', async () => {
    // Prepare
    server = await startLoginServer({});
    // Act
    const { response, txn } = await openLogin(server, 'x'.repeat(MAX_STATE_LENGTH + 1));
    const location = new URL(response.headers.get('location') ?? 'about:blank');
    // Assess
    expect(response.status).toBe(302);
    expect(txn).toBeUndefined();
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.has('state')).toBe(false);
  });
});
