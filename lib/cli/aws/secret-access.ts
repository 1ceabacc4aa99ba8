import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  API_ERROR_CODES,
  ApiError,
  createClient,
  type FetchLike,
  refreshTokens,
  type ServiceClient,
} from '../../api';
import { CLI_ERROR_CODES, CommandError, ConfigError } from '../../command-line';
import type { Lease, LeaseStore, SecretStore } from '../../stores';
import { LocalFileSecretStore } from '../../stores';
import { leaseStoreFromUri, SecretsManagerStore } from '../../stores/aws';
import { SecretTokenSource, type ServiceSecret, TOKEN_REFRESH_LEASE } from '../../workflow';
import { type ResolvedConfig, type SecretLocation, secretLocation, serviceUrls } from '../shared/config';
import { CLI_DEFAULTS } from '../shared/defaults';
import type { IOStreams } from '../shared/io-streams';
import { type AwsTarget, checkAws, quietAwsSdk, regionOfArn } from './preflight';
import { bucketTargets, type S3ClientFactory, s3ClientFactory } from './s3-client';

/** Clients the commands build from the environment by default; tests pass doubles. */
export interface AwsClients {
  secretsManager?: () => SecretsManagerClient;
  s3?: S3ClientFactory;
  fetch?: FetchLike;
}

/** The store holding the secret and the secret's name in it (`service` in a local file). */
export function openSecretStore(
  location: SecretLocation,
  clients: AwsClients = {},
): { store: SecretStore; name: string } {
  if (location.kind === 'file') return { store: new LocalFileSecretStore(location.file), name: 'service' };
  const client = clients.secretsManager?.() ?? secretsManagerClientFor(location.secretId);
  return { store: new SecretsManagerStore({ client }), name: location.secretId };
}

/**
 * A Secrets Manager client in the secret's own region when it is given as an ARN (so no
 * AWS_REGION is needed then), else the SDK's default region; credentials from the usual chain.
 */
export function secretsManagerClientFor(secretId: string): SecretsManagerClient {
  quietAwsSdk();
  const region = regionOfArn(secretId);
  return new SecretsManagerClient(region === undefined ? {} : { region });
}

/**
 * The pre-flight target of a Secrets Manager secret (none for a secret file): `read` for
 * a command that reads it next, `exists` for `login`, which writes it. `injected`: the
 * client is the caller's (only the cheap call is made on it).
 */
export function secretTargets(
  location: SecretLocation,
  clients: Pick<AwsClients, 'secretsManager'>,
  use: 'read' | 'exists',
  injected = clients.secretsManager !== undefined,
): AwsTarget[] {
  if (location.kind === 'file') return [];
  const client = clients.secretsManager?.() ?? secretsManagerClientFor(location.secretId);
  return [{ kind: 'secret', secretId: location.secretId, client, use, where: location.where, injected }];
}

/**
 * Warns (on `write`, the command's stderr) when a secret file may be read by other users
 * (any group or other permission bit): its tokens sign in as the tenant. Returns whether
 * it warned. A missing file, or a platform without POSIX modes, is not warned about.
 */
export async function warnIfSecretFileOpen(file: string, write: (text: string) => void): Promise<boolean> {
  if (process.platform === 'win32') return false;
  const info = await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile() || (info.mode & 0o077) === 0) return false;
  const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
  const shown = path.resolve(file);
  write(
    `warning: the secret file ${shown} may be read by other users (mode ${mode}); it holds the login's tokens: chmod 600 ${shown}\n`,
  );
  return true;
}

/**
 * Checks, before a command reads (`read`) or writes (`exists`, login) the login, what AWS
 * it needs for it: a Secrets Manager secret and an `s3://` refresh-lease store
 * ({@link checkAws}: exit 2 naming what is missing and how to fix it). Nothing to check
 * for a secret file with a local lease store. Returns the clients the command goes on with.
 */
export async function checkAwsForSecret(
  command: string,
  use: 'read' | 'exists',
  config: ResolvedConfig,
  location: SecretLocation,
  clients: AwsClients,
  env: Readonly<Record<string, string | undefined>>,
): Promise<AwsClients> {
  const sm =
    clients.secretsManager?.() ??
    (location.kind === 'secrets-manager' ? secretsManagerClientFor(location.secretId) : undefined);
  const s3 = clients.s3 ?? s3ClientFactory(config, env);
  const checked: AwsClients = { ...clients, s3, ...(sm ? { secretsManager: () => sm } : {}) };
  const leases = {
    uri: await refreshLeaseStoreUri(config, env, location),
    where: config.leaseStore?.where ?? '--lease-store',
  };
  await checkAws(
    command,
    [
      ...secretTargets(location, checked, use, clients.secretsManager !== undefined),
      ...bucketTargets([leases], s3, {
        injected: clients.s3 !== undefined,
        ...(config.s3Endpoint === undefined ? {} : { endpoint: config.s3Endpoint.value }),
      }),
    ],
    { env },
  );
  return checked;
}

/** The workflow's `SECRET_URI` for a location (file URL, Secrets Manager ARN or `secretsmanager:<name>`). */
export function secretUri(location: SecretLocation): string {
  if (location.kind === 'file') return pathToFileURL(location.file).href;
  return location.secretId.startsWith('arn:') ? location.secretId : `secretsmanager:${location.secretId}`;
}

/**
 * The lease store URI of the workflow's partition leases: configured, else
 * `./.report-export/leases`. The token-refresh lease is not taken here unless configured
 * (see {@link refreshLeaseStoreUri}).
 */
export function leaseStoreUri(config: ResolvedConfig, cwd: string): string {
  return config.leaseStore?.value ?? pathToFileURL(path.resolve(cwd, CLI_DEFAULTS.stateDir, 'leases')).href;
}

/**
 * Where the token-refresh lease lives: the configured lease store (`--lease-store`, to
 * share a deployment's), else a place that belongs to the secret, whatever the working
 * directory. With a rotating service, two commands that refresh one secret under two
 * different leases redeem one refresh token twice, and the service then revokes the login.
 *
 * - A secret file: `<its directory>/.<its name>.leases/`, beside the file's real path
 *   (symlinks resolved). Beside the secret rather than in a per-user directory keyed by
 *   its path: every process that can refresh the secret can write there (the secret
 *   store itself writes a temporary file beside the secret and renames it over), whoever
 *   runs it (two users of one service account's file, a container with the directory
 *   mounted elsewhere: a per-user or per-path key would give each its own lease); it goes
 *   where the secret goes, and two secrets in one directory do not wait on each other.
 * - A Secrets Manager secret: this user's cache (`$XDG_CACHE_HOME` or `~/.cache`)
 *   `report-export/leases/<hash of the secret id>`: commands on this machine share it from
 *   any directory. A deployment refreshing the same secret has its own lease store: pass
 *   it as --lease-store to share it.
 */
export async function refreshLeaseStoreUri(
  config: ResolvedConfig,
  env: Readonly<Record<string, string | undefined>>,
  location: SecretLocation,
): Promise<string> {
  if (config.leaseStore !== undefined) return config.leaseStore.value;
  if (location.kind === 'file') {
    const file = await realpath(location.file).catch(() => path.resolve(location.file));
    return pathToFileURL(path.join(path.dirname(file), `.${path.basename(file)}.leases`)).href;
  }
  const cache =
    env.XDG_CACHE_HOME !== undefined && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(env.HOME !== undefined && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), '.cache');
  const key = createHash('sha256').update(location.secretId).digest('hex').slice(0, 32);
  return pathToFileURL(path.join(cache, 'report-export', 'leases', key)).href;
}

/** The lease store of the token-refresh lease ({@link refreshLeaseStoreUri}). */
export async function refreshLeaseStore(
  config: ResolvedConfig,
  env: Readonly<Record<string, string | undefined>>,
  clients: Pick<AwsClients, 's3'> = {},
  location: SecretLocation,
): Promise<LeaseStore> {
  return leaseStoreFromUri(
    config.leaseStore?.where ?? '--lease-store',
    await refreshLeaseStoreUri(config, env, location),
    clients.s3 ? { s3: clients.s3 } : {},
  );
}

/**
 * Runs `write` (a login storing new tokens) under the token-refresh lease, so that a
 * command refreshing the old tokens at that moment cannot store them over the new ones.
 * Waits up to `waitMs` for the lease, then writes anyway: a fresh login is never thrown away.
 * `key`: a deployment tenant's lease (`tenant=<t>/token-refresh`) instead of the secret's own.
 */
export async function underRefreshLease<T>(
  leases: LeaseStore,
  write: () => Promise<T>,
  options: { waitMs?: number; owner?: string; key?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? 20_000);
  const owner = options.owner ?? `login-${process.pid}`;
  let lease: Lease | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      lease = await leases.acquire(options.key ?? TOKEN_REFRESH_LEASE, { ttlMs: 60_000, owner });
    } catch {
      break; // a store that fails (an S3 lease store without credentials) is not waited on
    }
    if (lease !== undefined || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)));
  }
  try {
    return await write();
  } finally {
    await lease?.release().catch(() => {});
  }
}

/**
 * A connection to an address the stored login gave (its `baseUrl` or `authUrl`, neither
 * overridden by a flag, variable or config file) failed: the error names the login's file or
 * secret and how to refresh it, since a login made against a service that has since moved,
 * or a local service no longer running, fails with nothing else to go on. Other errors are
 * returned as they are.
 */
function explainLoginConnection(
  error: unknown,
  login: {
    secret: Pick<ServiceSecret, 'baseUrl' | 'authUrl' | 'clientId'>;
    config: ResolvedConfig;
    location: SecretLocation;
  },
): unknown {
  if (!(error instanceof ApiError) || error.code !== API_ERROR_CODES.connection || error.origin === undefined)
    return error;
  const urls = serviceUrls(login.config);
  const stored = [
    urls.baseUrl === undefined ? login.secret.baseUrl : undefined,
    urls.authUrl === undefined ? login.secret.authUrl : undefined,
  ].filter((u): u is string => u !== undefined && originOf(u) === error.origin);
  if (stored.length === 0) return error;
  const { location } = login;
  const where =
    location.kind === 'file'
      ? `the login file ${path.resolve(location.file)}`
      : `the Secrets Manager secret ${location.secretId}`;
  const again =
    location.kind === 'file'
      ? `--secret-file ${path.resolve(location.file)}`
      : `--secret-id ${location.secretId}`;
  return new CommandError(
    CLI_ERROR_CODES.loginUnreachable,
    `${error.message}; ${error.origin} is the address stored in ${where} by report-export login: if that service has moved or is no longer running, refresh the login with report-export login ${again} --client-id ${login.secret.clientId} (and --region or --base-url naming the service), or give this command --base-url`,
    { cause: error },
  );
}

/** The origin of a URL (scheme, host, port), or undefined for text that is not one. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** A client of the service on the stored secret: tokens refreshed under the lease, rotated ones stored. */
export async function serviceClientFromSecret(
  config: ResolvedConfig,
  io: Pick<IOStreams, 'stderr' | 'env' | 'cwd'>,
  clients: AwsClients = {},
  /** The refresh lease's key: a deployment tenant's (`tenant=<t>/token-refresh`) for its login. */
  leaseKey?: string,
): Promise<{
  client: ServiceClient;
  secret: ServiceSecret;
  tokens: SecretTokenSource;
  /** {@link explainLoginConnection} for this login: what a command rethrows. */
  explain: (error: unknown) => unknown;
}> {
  const location = secretLocation(config, io.cwd);
  if (location.kind === 'file' && (await stat(location.file).catch(() => undefined)) === undefined) {
    throw new ConfigError(
      `the secret file ${path.resolve(location.file)} (${location.where === 'default' ? '--secret-file' : location.where}) does not exist: run report-export login first (report-export tenants login <id> for a tenant), or pass the --secret-file it wrote`,
    );
  }
  if (location.kind === 'file') await warnIfSecretFileOpen(location.file, (text) => io.stderr.write(text));
  const { store, name } = openSecretStore(location, clients);
  const fetchOption = clients.fetch === undefined ? {} : { fetch: clients.fetch };
  const tokens = new SecretTokenSource({
    secrets: store,
    secretName: name,
    leases: await refreshLeaseStore(config, io.env, clients, location),
    ...(leaseKey === undefined ? {} : { leaseKey }),
    refresh: (client, refreshToken, signal) =>
      refreshTokens(client, refreshToken, { transport: fetchOption, ...(signal ? { signal } : {}) }),
  });
  const secret = await tokens.read();
  const baseUrl = serviceUrls(config).baseUrl?.value ?? secret.baseUrl;
  const client = createClient({
    baseUrl,
    auth: tokens,
    timeoutMs: 30_000,
    ...(config.workspace ? { workspaceId: config.workspace.value } : {}),
    ...fetchOption,
  });
  return {
    client,
    secret,
    tokens,
    explain: (error) => explainLoginConnection(error, { secret, config, location }),
  };
}

/** The configured workspace, else the service's default one (else its first). */
export async function resolveWorkspace(config: ResolvedConfig, client: ServiceClient): Promise<string> {
  let first: string | undefined;
  let preferred: string | undefined;
  const ids: string[] = [];
  for await (const w of client.reporting.listWorkspaces()) {
    ids.push(w.id);
    if (w.default) preferred ??= w.id;
    first ??= w.id;
  }
  // A mistyped id would otherwise surface later as a bare 404 of some report call.
  if (config.workspace) {
    if (ids.includes(config.workspace.value)) return config.workspace.value;
    throw new ConfigError(
      `${config.workspace.where === 'default' ? '--workspace' : config.workspace.where} ${config.workspace.value} is not a workspace of this login; workspaces: ${ids.join(', ') || 'none'}`,
    );
  }
  if (preferred !== undefined) return preferred;
  if (first === undefined) throw new Error('The service lists no workspace for this login');
  return first;
}
