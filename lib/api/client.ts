import { DirectoryClient } from './directories';
import type { ApiError } from './errors';
import { type AccessTokenSource, HttpTransport, type TransportOptions } from './http/transport';
import type { PollTiming } from './report-status';
import { ReportingClient } from './reporting';

export interface ClientOptions extends Omit<TransportOptions, 'auth'> {
  /** A {@link TokenProvider} (refreshes on expiry and on 401), or any token source. */
  auth?: AccessTokenSource;
  /** A fixed access token instead of `auth` (no refresh). */
  accessToken?: string;
  /** Workspace used when a reporting call names none. */
  workspaceId?: string;
  /** Region of phone numbers given without a country code. Default `GB`. */
  defaultRegion?: string;
  /** Clock and sleep of `waitForCompletion`; injectable for tests. */
  pollTiming?: PollTiming;
}

/** The client of the whole service: `reporting` and `directories` over one transport. */
export interface ServiceClient {
  readonly reporting: ReportingClient;
  readonly directories: DirectoryClient;
  readonly transport: HttpTransport;
}

/**
 * Creates the service client. Every call has a timeout (default 30 s, per attempt; for
 * result bodies, the longest wait for the next chunk, not counting the time you spend on
 * a row), takes an AbortSignal, and is retried with exponential backoff and jitter on
 * connection errors, 408, 429 (honouring Retry-After) and 5xx, at most `maxRetries` times
 * (default 3). POSTs (report runs, item creation), PATCH and DELETE by crmId are retried
 * only when the service cannot have acted on them (connection refused, 408, or 429/503
 * with Retry-After); otherwise the error surfaces, since a repeat could start a second
 * run. A 401 makes the token provider drop the token and the call is retried once with a
 * fresh one. Redirects are never followed (a 3xx fails with a `RedirectError`), and a body
 * read whole (everything but results) larger than `maxBodyBytes` (default 4 MiB, counted
 * after decompression) fails with a `ResponseTooLargeError`, unretried. Errors are
 * {@link ApiError} subclasses (or OAuth errors from the provider) with `name`s a workflow can
 * match (see `API_TRANSIENT_ERROR_NAMES`), and never carry a token or secret.
 *
 * @example
 * ```ts
 * import { TokenProvider, createClient } from './lib/api';
 *
 * const auth = new TokenProvider({
 *   client: { authUrl: 'https://login.xarios.cloud', clientId, clientSecret, redirectUri },
 *   tokens: { refreshToken },
 *   onTokens: (t) => saveRefreshToken(t.refreshToken), // awaited before the token is used
 * });
 * const api = createClient({ baseUrl: 'https://api.uk.myreports.cloud/api', auth, workspaceId });
 * for await (const report of api.reporting.listReports()) console.log(report.name);
 * const run = await api.reporting.requestReport({ reportId, period: { preset: 'Yesterday' } });
 * await api.reporting.waitForCompletion({ reportId, requestId: run.requestId });
 * const result = await api.reporting.openResult({ reportId, requestId: run.requestId });
 * for await (const row of result.rows) process(row);
 * const { rowsRead, totalCount } = await result.done();
 * ```
 */
export function createClient(options: ClientOptions): ServiceClient {
  const { auth, accessToken, workspaceId, defaultRegion, pollTiming, ...transportOptions } = options;
  const source: AccessTokenSource | undefined =
    auth ?? (accessToken === undefined ? undefined : { getAccessToken: async () => accessToken });
  const transport = new HttpTransport({ ...transportOptions, ...(source ? { auth: source } : {}) });
  return {
    transport,
    reporting: new ReportingClient(transport, { workspaceId, pollTiming }),
    directories: new DirectoryClient(transport, { defaultRegion }),
  };
}
