import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAuthorizationUrl, exchangeCode, type FetchLike, validateRedirect } from '../../../api';
import { CLI_ERROR_CODES, CommandError, ConfigError, parseOrHelp } from '../../../command-line';
import type { LeaseStore } from '../../../stores';
import { type ServiceSecret, TOKEN_REFRESH_LEASE } from '../../../workflow';
import {
  type AwsClients,
  checkAwsForSecret,
  openSecretStore,
  refreshLeaseStore,
  underRefreshLease,
} from '../../aws/secret-access';
import {
  type ResolvedConfig,
  resolveConfig,
  type SecretLocation,
  secretLocation,
  serviceUrls,
} from '../../shared/config';
import { CLI_DEFAULTS } from '../../shared/defaults';
import type { IOStreams } from '../../shared/io-streams';
import { promptLine } from '../../shared/prompt';
import { type LoopbackOptions, loopbackAddress, openLoopbackRedirect } from './loopback-redirect';
import { LOGIN_COMMAND } from './spec';

/** What tests (and embedding code) may replace. */
export interface LoginDependencies extends AwsClients {
  /** Called with the authorization URL once the redirect listens (tests drive a browser here). */
  onAuthorizationUrl?: (url: string) => void;
  loopback?: LoopbackOptions;
}

/** The JSON line of `login --json`. */
interface LoginLine {
  secret: string;
  authUrl: string;
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  accessTokenExpiresAt: string;
  scope: string | null;
}

async function clientCredentials(
  config: ResolvedConfig,
  io: Pick<IOStreams, 'stdin' | 'stderr'>,
): Promise<{ clientId: string; clientSecret: string }> {
  const interactive = io.stdin.isTTY === true;
  let clientId = config.clientId?.value;
  if (clientId === undefined) {
    if (!interactive) throw new ConfigError('login needs --client-id (or REPORT_EXPORT_CLIENT_ID)');
    clientId = await promptLine(io, 'Client id: ');
  }
  let clientSecret = config.clientSecret?.value;
  if (clientSecret === undefined) {
    if (!interactive) {
      throw new ConfigError(
        'login needs the client secret in REPORT_EXPORT_CLIENT_SECRET (or the config file)',
      );
    }
    clientSecret = await promptLine(io, 'Client secret (not shown): ', { hidden: true });
  }
  if (clientId === '' || clientSecret === '')
    throw new ConfigError('client id and client secret must not be empty');
  return { clientId, clientSecret };
}

/**
 * Opens `url` with xdg-open / open when on a terminal; silently nothing when it cannot.
 * The opener is looked for on, and run with, the command's environment (its PATH, and the
 * DISPLAY or BROWSER it reads).
 */
async function openBrowser(url: string, env: IOStreams['env']): Promise<void> {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  const dirs = (env.PATH ?? '').split(':').filter(Boolean);
  const found = await Promise.any(dirs.map((d) => access(join(d, opener)).then(() => true))).catch(
    () => false,
  );
  if (!found) return;
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true, env: { ...env } });
  child.on('error', () => {});
  child.unref();
}

export async function loginCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: LoginDependencies = {},
): Promise<number> {
  const v = parseOrHelp(LOGIN_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  return signInInto(v, config, secretLocation(config, io.cwd), io, deps);
}

/** Where a sign-in stores the login, when not where the configuration names (`tenants login`). */
export interface LoginTarget {
  /** The lease store and key of the secret's token refresh (a deployment's tenant's). */
  refreshLease?: { leases: LeaseStore; key: string };
}

/**
 * The browser sign-in of `login`, storing the login in `location` under the secret's
 * token-refresh lease; prints where. Shared by `login` and `tenants login`.
 */
export async function signInInto(
  v: { timeout: number; 'no-open': boolean; json: boolean },
  config: ResolvedConfig,
  location: SecretLocation,
  io: IOStreams,
  deps: LoginDependencies = {},
  target: LoginTarget = {},
): Promise<number> {
  const { baseUrl, authUrl } = serviceUrls(config);
  if (baseUrl === undefined || authUrl === undefined) {
    throw new ConfigError('login needs --region uk|na|eu|au, or --base-url and --auth-url');
  }
  const redirectUri = config.redirectUri?.value ?? CLI_DEFAULTS.redirectUri;
  loopbackAddress(redirectUri, config.redirectUri?.where);
  // Before the user is asked for anything or signs in: a login whose tokens cannot be
  // stored (no AWS credentials, no region, no such secret) would be thrown away.
  const aws = await checkAwsForSecret('login', 'exists', config, location, deps, io.env);
  const { clientId, clientSecret } = await clientCredentials(config, io);
  const app = { authUrl: authUrl.value, clientId, clientSecret, redirectUri };
  const { url, state, codeVerifier } = buildAuthorizationUrl({ ...app, pkce: true });

  const loopback = await openLoopbackRedirect(redirectUri, {
    ...deps.loopback,
    certificate: { env: io.env, ...deps.loopback?.certificate },
  });
  try {
    io.stderr.write(
      `Open this URL in a browser and sign in (waiting on ${loopback.origin}):\n\n  ${url.href}\n\n`,
    );
    if (deps.onAuthorizationUrl) deps.onAuthorizationUrl(url.href);
    else if (!v['no-open'] && io.stderr.isTTY === true) await openBrowser(url.href, io.env);
    const timeoutMs = v.timeout * 1000;
    const secret = await loopback.next(async (params) => {
      const { code } = validateRedirect(params, state);
      const fetchOption: { fetch?: FetchLike } = deps.fetch ? { fetch: deps.fetch } : {};
      const tokens = await exchangeCode(app, { code, codeVerifier }, { transport: fetchOption });
      if (tokens.refreshToken === undefined) {
        throw new CommandError(
          CLI_ERROR_CODES.noRefreshToken,
          'The authorization server issued no refresh token (was offline_access granted?); the export cannot run unattended without one',
        );
      }
      const value: ServiceSecret = {
        ...app,
        baseUrl: baseUrl.value,
        refreshToken: tokens.refreshToken,
        accessToken: tokens.accessToken,
        accessTokenExpiresAt: tokens.expiresAt,
      };
      const { store, name } = openSecretStore(location, aws);
      // Under the secret's refresh lease: a command refreshing the old login right now
      // must not store its tokens over these.
      const lease = target.refreshLease ?? {
        leases: await refreshLeaseStore(config, io.env, aws, location),
        key: TOKEN_REFRESH_LEASE,
      };
      await underRefreshLease(lease.leases, () => store.put(name, value), { waitMs: 10_000, key: lease.key });
      return { value, scope: tokens.scope };
    }, timeoutMs);
    const where = location.kind === 'file' ? location.file : location.secretId;
    const line: LoginLine = {
      secret: where,
      authUrl: app.authUrl,
      baseUrl: baseUrl.value,
      clientId,
      redirectUri,
      accessTokenExpiresAt: new Date(secret.value.accessTokenExpiresAt ?? 0).toISOString(),
      scope: secret.scope ?? null,
    };
    if (v.json) io.stdout.write(`${JSON.stringify(line)}\n`);
    else io.stdout.write(`Signed in as client ${clientId}; stored the login in ${where}\n`);
    return 0;
  } finally {
    await loopback.close();
  }
}
