import {
  type ClientOptions,
  createClient,
  type FetchLike,
  type ServiceClient,
  TokenProvider,
  type TokenProviderOptions,
  type TokenSet,
} from '../../../lib/api';
import { nodeHttpFetch } from '../../../lib/api/http/node-fetch';
import { loginWithAutoApproval } from '../../../lib/local/auto-approve-login';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../../lib/simulator/index';

export type { RunningSimulator };

/** Starts the local service on 127.0.0.1:0 with fast reports. */
export function startTestSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ autoApprove: true, reportLatencyMs: 50, rowsPerDay: 200, ...options });
}

export function clientConfig(sim: RunningSimulator) {
  return {
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
  };
}

/** The authorization code flow against the auto-approving login: authorize, redirect, exchange. */
export function login(sim: RunningSimulator, pkce = true): Promise<TokenSet> {
  return loginWithAutoApproval(clientConfig(sim), { pkce });
}

/** The transport's default fetch, counting the calls to the token endpoint. */
export function countingFetch(): { fetch: FetchLike; tokenCalls: () => number; calls: () => number } {
  let tokenCalls = 0;
  let calls = 0;
  const counted: FetchLike = (input, init) => {
    calls++;
    if (String(input).endsWith('/connect/token')) tokenCalls++;
    return nodeHttpFetch(input, init);
  };
  return { fetch: counted, tokenCalls: () => tokenCalls, calls: () => calls };
}

/** Logs in and builds a client with a token provider; fast retries for tests. */
export async function connect(
  sim: RunningSimulator,
  options: { provider?: Partial<TokenProviderOptions>; client?: Partial<ClientOptions> } = {},
): Promise<{ api: ServiceClient; tokens: TokenProvider; counter: ReturnType<typeof countingFetch> }> {
  const initial = await login(sim);
  const counter = countingFetch();
  const tokens = new TokenProvider({
    client: clientConfig(sim),
    tokens: initial,
    transport: { fetch: counter.fetch, timeoutMs: 10_000 },
    ...options.provider,
  });
  const api = createClient({
    baseUrl: sim.baseUrl,
    auth: tokens,
    workspaceId: sim.workspaceId,
    fetch: counter.fetch,
    timeoutMs: 10_000,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 200,
    ...options.client,
  });
  return { api, tokens, counter };
}
