import diagnosticsChannel from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type FetchLike, TokenProvider } from '../../../lib/api';
import { nodeHttpFetch } from '../../../lib/api/http/node-fetch';
import { clientConfig, connect, login, type RunningSimulator, startTestSimulator } from './sim-fixture';

const RANGE = { start: '2026-11-02T00:00:00+00:00', end: '2026-11-03T00:00:00+00:00' };

describe('the transport against the local service', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('asks for gzip and streams the compressed result to the same rows', async () => {
    // Prepare
    sim = await startTestSimulator();
    const encodings: (string | null)[] = [];
    const recording: FetchLike = async (input, init) => {
      const response = await nodeHttpFetch(input, init);
      if (String(input).endsWith('/data')) encodings.push(response.headers.get('content-encoding'));
      return response;
    };
    const { api } = await connect(sim, { client: { fetch: recording } });
    const reportId = sim.reportIds[0] as string;
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    const ref = { reportId, requestId: run.requestId };
    await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 50 });
    // Act
    const result = await api.reporting.openResult(ref);
    let rows = 0;
    for await (const _ of result.rows) rows++;
    // Assess
    expect(encodings).toEqual(['gzip']);
    expect(rows).toBe((await result.done()).totalCount);
  });

  it('reuses connections when calls follow each other', async () => {
    // Prepare
    sim = await startTestSimulator();
    const { api } = await connect(sim);
    let connects = 0;
    const onConnect = (): void => {
      connects++;
    };
    // Every client socket, whichever HTTP client opens it (node:http or undici).
    diagnosticsChannel.subscribe('net.client.socket', onConnect);
    // Act
    try {
      for (let i = 0; i < 10; i++) await api.directories.getDirectory(sim.directoryIds[0] as string);
    } finally {
      diagnosticsChannel.unsubscribe('net.client.socket', onConnect);
    }
    // Assess
    expect(connects).toBeLessThan(5);
  });

  it.each([
    { name: '503 with Retry-After', retryAfterSeconds: 0, outcome: 'ok', tokenCalls: 2 },
    { name: '503 without Retry-After', outcome: 'temporarily_unavailable', tokenCalls: 1 },
  ])(
    'redeems the rotating refresh token at most once when the token endpoint answers $name',
    async ({ retryAfterSeconds, outcome, tokenCalls }) => {
      // Prepare
      sim = await startTestSimulator({ rotateRefreshTokens: true });
      const { api, tokens, counter } = await connect(sim);
      sim.faults.expireAccessTokens();
      sim.faults.inject({
        route: 'token',
        kind: 'status',
        status: 503,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
      const list = async () => {
        for await (const _ of api.reporting.listWorkspaces()) break;
      };
      // Act
      const first = await list().then(
        () => 'ok',
        (e: unknown) => (e as { error?: string }).error,
      );
      await list(); // the refresh token was not spent by the failed attempt: this succeeds
      // Assess
      expect(first).toBe(outcome);
      expect(counter.tokenCalls()).toBe(tokenCalls + (outcome === 'ok' ? 0 : 1));
      expect(tokens.refreshToken).toBeTruthy();
    },
  );

  it('never shows a token or the client secret in errors from real connections', async () => {
    // Prepare
    sim = await startTestSimulator();
    const config = clientConfig(sim);
    const initial = await login(sim);
    const secrets = [config.clientSecret, initial.accessToken, initial.refreshToken as string];
    const provider = new TokenProvider({ client: config, tokens: initial, transport: { maxRetries: 0 } });
    const api = createClient({
      baseUrl: sim.baseUrl,
      auth: provider,
      workspaceId: sim.workspaceId,
      maxRetries: 0,
    });
    const revoked = new TokenProvider({
      client: config,
      tokens: { refreshToken: `${initial.refreshToken}x` },
    });
    const errors: unknown[] = [];
    const list = async (client = api) => {
      for await (const _ of client.reporting.listWorkspaces()) break;
    };
    // Act
    errors.push(await revoked.getAccessToken().catch((e: unknown) => e));
    sim.faults.inject({ route: 'workspaces', kind: 'latency', ms: 2000 });
    const impatient = createClient({ baseUrl: sim.baseUrl, auth: provider, timeoutMs: 50, maxRetries: 0 });
    errors.push(await list(impatient).catch((e: unknown) => e));
    await sim.close();
    sim = undefined;
    errors.push(await list().catch((e: unknown) => e));
    provider.invalidate(initial.accessToken);
    errors.push(await list().catch((e: unknown) => e));
    // Assess
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual([
      'OAUTH_INVALID_GRANT',
      'API_TIMEOUT',
      'API_CONNECTION_ERROR',
      'API_CONNECTION_ERROR',
    ]);
    for (const error of errors) {
      const text = `${inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })} ${JSON.stringify(error)}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});
