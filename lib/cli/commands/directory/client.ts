import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  createClient,
  NotFoundError,
  type PhoneRegion,
  refreshTokens,
  requireRegion,
  type ServiceClient,
} from '../../../api';
import { isGuid } from '../../../api/validate';
import { UsageError } from '../../../command-line';
import type { Directory } from '../../../spec';
import { LocalFileSecretStore, type SecretStore } from '../../../stores';
import { secretStoreFromUri } from '../../../stores/aws';
import { SecretTokenSource } from '../../../workflow';
import { checkAwsForSecret, refreshLeaseStore, warnIfSecretFileOpen } from '../../aws/secret-access';
import { resolveConfig, secretLocation, serviceUrls } from '../../shared/config';
import { CLI_DEFAULTS } from '../../shared/defaults';
import type { IOStreams } from '../../shared/io-streams';
import { checkedTenant } from '../../shared/tenant-check';
import { tenantConfig } from '../../shared/tenant-config';
import { DIRECTORY_CLI_ERROR_CODES, DirectoryCommandError } from './errors';
import { type ServedServices, serveStoppedLocalService } from './served-service';
import { DIRECTORY_ENV, regionMessage } from './spec';

/**
 * How a `directory` command reaches the service: the login's secret (a local file or a
 * Secrets Manager secret, refreshed and rotated under a lease like the workflow does), or
 * for scripts and tests an access token in `REPORT_EXPORT_ACCESS_TOKEN` with `--base-url`.
 */

/** Name of the secret inside a local secret file (`{ "service": ServiceSecret }`). */
const SECRET_NAME = 'service';

/** Variable of a bare access token (never a flag: a flag shows in `ps`). */
const ACCESS_TOKEN_ENV = 'REPORT_EXPORT_ACCESS_TOKEN';

/**
 * The region of `--default-region` once the phone library says it knows it (the option's
 * parser checks only the form, so the help and completion need not load the library); a
 * usage error naming the flag otherwise.
 */
export function supportedRegion(region: PhoneRegion, flag = '--default-region'): PhoneRegion {
  try {
    return requireRegion(region);
  } catch {
    throw new UsageError(regionMessage(flag, region));
  }
}

interface ConnectInput {
  /** Parsed option values (flag name -> value). */
  flags: Readonly<Record<string, unknown>>;
  /** The command's streams (warnings go to its stderr), environment and working directory. */
  io: Pick<IOStreams, 'stderr' | 'env' | 'cwd'>;
  defaultRegion?: PhoneRegion | undefined;
  /** Per-attempt timeout of every call. Default the client's (30 s). */
  timeoutMs?: number;
  /**
   * Where a local service the command serves itself is kept until the command ends (a tenant
   * of the local deployment while no `npm start` runs); without it, none is served.
   */
  services?: ServedServices;
}

/** A string option's value, else undefined. */
const stringFlag = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** The service client of the configured login. */
export async function connect(input: ConnectInput): Promise<ServiceClient> {
  const { io } = input;
  const env = io.env;
  const resolved = await resolveConfig({ flags: input.flags, env, cwd: io.cwd });
  // --tenant: the local deployment's tenant, its stored login under the flags (exit 2 when unknown).
  const tenant = checkedTenant(stringFlag(input.flags.tenant));
  const stateDir = path.resolve(io.cwd, stringFlag(input.flags.dir) ?? CLI_DEFAULTS.stateDir);
  const asTenant = tenant === undefined ? undefined : await tenantConfig(tenant, stateDir, resolved, io.cwd);
  const config = asTenant?.config ?? resolved;
  const { baseUrl, authUrl } = serviceUrls(config);
  const common = {
    ...(input.defaultRegion === undefined ? {} : { defaultRegion: input.defaultRegion }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  };
  const token = env[ACCESS_TOKEN_ENV];
  if (token !== undefined && token !== '') {
    if (baseUrl === undefined) throw new UsageError(`${ACCESS_TOKEN_ENV} needs --base-url (or --region)`);
    return createClient({ baseUrl: baseUrl.value, accessToken: token, ...common });
  }
  // A tenant of the local deployment with its own stored login, no service named by a flag.
  const stored = asTenant?.refreshLeaseKey === undefined ? undefined : config.secretFile?.value;
  if (
    input.services !== undefined &&
    asTenant !== undefined &&
    stored !== undefined &&
    baseUrl === undefined
  ) {
    const served = await serveStoppedLocalService({
      stateDir,
      loginFile: stored,
      workspaceId: asTenant.entry.workspaceId,
      services: input.services,
      log: (line) => io.stderr.write(`${line}\n`),
    });
    if (served !== undefined) return createClient({ ...served, ...common });
  }
  const location = secretLocation(config, io.cwd);
  // Before any request: a Secrets Manager secret or an s3:// lease store AWS cannot reach.
  await checkAwsForSecret('directory', 'read', config, location, {}, env);
  let secrets: SecretStore;
  let secretName: string;
  if (location.kind === 'file') {
    if (!(await exists(location.file))) {
      throw new DirectoryCommandError(
        DIRECTORY_CLI_ERROR_CODES.credentialsMissing,
        `no login: ${location.file} does not exist (${location.where}); run report-export login (or tenants login <id> for --tenant) first, or set ${ACCESS_TOKEN_ENV} with --base-url`,
      );
    }
    await warnIfSecretFileOpen(location.file, (text) => io.stderr.write(text));
    secrets = new LocalFileSecretStore(location.file);
    secretName = SECRET_NAME;
  } else {
    const id = location.secretId;
    const uri = id.startsWith('arn:') ? id : `secretsmanager:${id}`;
    ({ store: secrets, name: secretName } = secretStoreFromUri(location.where, uri));
  }
  // The secret's own refresh lease (or the configured store), shared by every command using
  // this login from any directory.
  const leases = await refreshLeaseStore(config, env, {}, location);
  const tokens = new SecretTokenSource({
    secrets,
    secretName,
    leases,
    ...(asTenant?.refreshLeaseKey === undefined ? {} : { leaseKey: asTenant.refreshLeaseKey }),
    // --auth-url (or the region's) beats the login's authorization server, as for run.
    refresh: (client, refreshToken, signal) =>
      refreshTokens(
        authUrl === undefined ? client : { ...client, authUrl: authUrl.value },
        refreshToken,
        signal === undefined ? {} : { signal },
      ),
  });
  const secret = await tokens.read();
  return createClient({ baseUrl: baseUrl?.value ?? secret.baseUrl, auth: tokens, ...common });
}

/**
 * The directory named by `ref` (`--directory`, else {@link DIRECTORY_ENV}): an id is read
 * (so a wrong one is reported as such, not as "no match"); a name is looked up among all
 * directories, ignoring case.
 */
export async function resolveDirectory(
  api: ServiceClient,
  ref: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Directory> {
  const wanted = ref ?? env[DIRECTORY_ENV];
  if (wanted === undefined || wanted === '') {
    throw new UsageError(`--directory is required (an id or a name; or set ${DIRECTORY_ENV})`);
  }
  if (isGuid(wanted)) {
    try {
      return await api.directories.getDirectory(wanted);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new DirectoryCommandError(
        DIRECTORY_CLI_ERROR_CODES.directoryNotFound,
        `no directory has id ${wanted}`,
        { cause: error },
      );
    }
  }
  const all: Directory[] = [];
  for await (const d of api.directories.listDirectories()) all.push(d);
  const matches = all.filter((d) => d.name.toLowerCase() === wanted.toLowerCase());
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return only;
  if (matches.length > 1) {
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.directoryAmbiguous,
      `${matches.length} directories are named '${wanted}': give the id (${matches.map((d) => d.id).join(', ')})`,
    );
  }
  const names = all.map((d) => `'${d.name}' (${d.id})`).join(', ');
  throw new DirectoryCommandError(
    DIRECTORY_CLI_ERROR_CODES.directoryNotFound,
    `no directory is named '${wanted}'; directories: ${names || 'none'}`,
  );
}
