import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { LeaseStore } from '../../../stores';
import { type ServiceSecret, type TenantEntry, tokenRefreshLease } from '../../../workflow';
import { isLoopbackUrl, noServerAnswered, storedLoginTokens } from '../../aws/login-refresh';
import { type AwsClients, refreshLeaseStore, warnIfSecretFileOpen } from '../../aws/secret-access';
import type { TenantsDeployment } from '../../aws/tenants-deployment';
import { type ResolvedConfig, type SecretLocation, secretLocation } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { type Check, type CheckId, check, type Redactor } from './report';

/** Logins checked at once: a deployment's thousands are not read one after another. */
const LOGIN_CONCURRENCY = 8;

/** Bound on one refresh (the lease, the token request, storing the rotated token). */
const REFRESH_TIMEOUT_MS = 30_000;

/** What every login check shares. */
export interface LoginCheckContext {
  /** Refresh each login once (--check), else only read it (no network for a file). */
  refresh: boolean;
  clients: AwsClients;
  redactor: Redactor;
  signal: AbortSignal | undefined;
}

/** One login to check: where it is, its lease, and what logs it in again. */
interface StoredLogin {
  id: CheckId;
  subject: string | null;
  location: SecretLocation;
  leases: () => Promise<LeaseStore>;
  leaseKey?: string;
  /** The command line that fills it again. */
  loginCommand: string;
  /** A login nothing runs with yet (a disabled tenant's): its faults are warnings. */
  idle?: boolean;
}

function describeLocation(location: SecretLocation): string {
  return location.kind === 'file' ? location.file : `Secrets Manager secret ${location.secretId}`;
}

/** The messages of an error and its causes, as one line (a wrapper's "failed" says little alone). */
function causeMessages(error: unknown): string {
  const out: string[] = [];
  let e = error as { message?: unknown; cause?: unknown } | null | undefined;
  for (let i = 0; i < 4 && typeof e === 'object' && e !== null; i++, e = e.cause as typeof e) {
    if (
      typeof e.message === 'string' &&
      e.message !== '' &&
      !out.some((m) => m.includes(e?.message as string))
    )
      out.push(e.message);
  }
  return out.join(': ').replace(/\s+/g, ' ') || String(error);
}

const expiry = (s: ServiceSecret) =>
  s.accessTokenExpiresAt === undefined
    ? 'no access token yet'
    : `access token until ${new Date(s.accessTokenExpiresAt).toISOString()}`;

/** Reads the login (and, with `refresh`, refreshes it once); its values go to the redactor before anything is said. */
async function loginCheck(login: StoredLogin, ctx: LoginCheckContext): Promise<Check> {
  const where = describeLocation(login.location);
  const more = { subject: login.subject };
  const tokens = storedLoginTokens({
    location: login.location,
    leases: await login.leases(),
    ...(login.leaseKey === undefined ? {} : { leaseKey: login.leaseKey }),
    clients: ctx.clients,
    force: true,
  });
  let secret: ServiceSecret;
  try {
    secret = await tokens.read();
  } catch (error) {
    if ((error as Error).name === 'StoreFailedError') {
      return check(login.id, 'fail', `cannot read ${where}: ${causeMessages(error)}`, {
        ...more,
        fix:
          login.location.kind === 'file'
            ? 'make the file readable by you (and only you: chmod 600)'
            : 'use credentials allowed secretsmanager:GetSecretValue on it (and kms:Decrypt on its key)',
      });
    }
    const missing =
      login.location.kind === 'file' &&
      (await stat(login.location.file).catch(() => undefined)) === undefined;
    return notStored(login.idle ? 'warn' : 'fail', where, missing, login, more);
  }
  ctx.redactor.add(secret.clientSecret, secret.refreshToken, secret.accessToken);
  let open: string | undefined;
  if (login.location.kind === 'file') {
    await warnIfSecretFileOpen(login.location.file, (text) => {
      // Its own words end in the fix, which the check gives apart.
      open = text
        .replace(/^warning: /, '')
        .replace(/: chmod 600 .*$/s, '')
        .trim();
    });
  }
  if (!ctx.refresh) {
    if (open !== undefined) return check(login.id, 'warn', open, { ...more, fix: `chmod 600 ${where}` });
    return check(
      login.id,
      'ok',
      `stored in ${where} (${expiry(secret)}; not refreshed offline: --check does)`,
      more,
    );
  }
  try {
    ctx.redactor.add(await tokens.getAccessToken(refreshSignal(ctx.signal)));
    const after = await tokens.read();
    ctx.redactor.add(after.refreshToken, after.accessToken);
    if (open !== undefined)
      return check(login.id, 'warn', `refreshes, but ${open}`, { ...more, fix: `chmod 600 ${where}` });
    return check(
      login.id,
      'ok',
      `refreshes (${where}; new ${expiry(after)}, the rotated refresh token stored)`,
      more,
    );
  } catch (error) {
    return refreshFailed(error, secret, login, ctx);
  }
}

function refreshSignal(signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(REFRESH_TIMEOUT_MS);
  return signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
}

/** A login that did not refresh: revoked (log in again), or its service not answering (and why, for the local one). */
function refreshFailed(
  error: unknown,
  secret: ServiceSecret,
  login: StoredLogin,
  ctx: LoginCheckContext,
): Check {
  const status = login.idle ? 'warn' : 'fail';
  const more = { subject: login.subject };
  const text = ctx.redactor.redact(causeMessages(error));
  if ((error as Error).name === 'LoginRequiredError') {
    return check(login.id, status, `does not refresh: ${text}`, { ...more, fix: login.loginCommand });
  }
  if (noServerAnswered(error) && isLoopbackUrl(secret.authUrl)) {
    return check(
      login.id,
      status,
      `does not refresh: no service answers at ${secret.authUrl}, a login of the local service, which lives only while npm start runs (${text})`,
      {
        ...more,
        fix: 'check it while npm start runs (each start signs its tenants in again), or log it in to another service',
      },
    );
  }
  return check(login.id, status, `does not refresh: ${text}`, {
    ...more,
    fix: `check the network and ${secret.authUrl}, then run report-export doctor --check again`,
  });
}

/** A login that is not there: where it was looked for, and the command that stores one. */
function notStored(
  status: 'warn' | 'fail',
  where: string,
  missing: boolean,
  login: StoredLogin,
  more: { subject: string | null },
): Check {
  const what = missing ? `no login: ${where} does not exist` : `no login stored in ${where}`;
  return check(login.id, status, `${what}${login.idle ? ' (the tenant is disabled)' : ''}`, {
    ...more,
    fix: login.loginCommand,
  });
}

/** `login.tenant`: each registered tenant's own login, in the deployment's secrets, under its own lease. */
export async function tenantLoginChecks(
  d: TenantsDeployment,
  entries: readonly TenantEntry[],
  ctx: LoginCheckContext,
): Promise<Check[]> {
  const where = d.kind === 'aws' ? ` --stack ${d.stack}` : '';
  const clients = d.kind === 'aws' ? { ...ctx.clients, secretsManager: () => d.secretsManager } : ctx.clients;
  const out: Check[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < entries.length; i = next++) {
      const entry = entries[i] as TenantEntry;
      out[i] = await loginCheck(
        {
          id: 'login.tenant',
          subject: entry.id,
          location: d.secretOf(entry.id),
          leases: d.leases,
          leaseKey: tokenRefreshLease(entry.id),
          loginCommand: `report-export tenants login ${entry.id} --client-id <id>${where}`,
          idle: !entry.enabled,
        },
        { ...ctx, clients },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOGIN_CONCURRENCY, entries.length) }, worker));
  return out;
}

/**
 * `login.default`: the login the configuration names (`--secret-file`, default
 * ./.report-export/login.json, or `--secret-id`), which `run`, `workspaces` and `reports` use.
 * Absent at its default place it is not needed (npm start signs its tenants in itself); a
 * Secrets Manager secret is read only with --check (offline means no network).
 */
export async function defaultLoginCheck(
  config: ResolvedConfig | undefined,
  io: Pick<IOStreams, 'env' | 'cwd'>,
  ctx: LoginCheckContext,
): Promise<Check> {
  if (config === undefined)
    return check('login.default', 'skip', 'the configuration does not resolve (config.settings)');
  let location: SecretLocation;
  try {
    location = secretLocation(config, io.cwd);
  } catch (error) {
    return check('login.default', 'fail', (error as Error).message, {
      fix: 'give one of --secret-file and --secret-id',
    });
  }
  if (location.kind === 'secrets-manager' && !ctx.refresh) {
    return check(
      'login.default',
      'skip',
      `${describeLocation(location)} (${location.where}) is read only with --check`,
    );
  }
  if (
    location.kind === 'file' &&
    location.where === 'default' &&
    (await stat(location.file).catch(() => undefined)) === undefined
  ) {
    return check(
      'login.default',
      'skip',
      `no single-tenant login at ${path.relative(io.cwd, location.file) || location.file} (report-export login writes one; npm start signs its tenants in itself)`,
    );
  }
  const again =
    location.kind === 'file'
      ? `report-export login --client-id <id> --region <uk|na|eu|au>${location.where === 'default' ? '' : ` --secret-file ${location.file}`}`
      : `report-export login --client-id <id> --region <uk|na|eu|au> --secret-id ${location.secretId}`;
  return loginCheck(
    {
      id: 'login.default',
      subject: null,
      location,
      leases: () => refreshLeaseStore(config, io.env, ctx.clients, location),
      loginCommand: again,
    },
    ctx,
  );
}

/** `login.stack`: a single-tenant stack's one secret (its SecretArn), under the deployment's own lease store. */
export async function stackLoginCheck(
  secretArn: string,
  bucket: string,
  leases: () => Promise<LeaseStore>,
  ctx: LoginCheckContext,
): Promise<Check> {
  return loginCheck(
    {
      id: 'login.stack',
      subject: null,
      location: { kind: 'secrets-manager', secretId: secretArn, where: 'SecretArn' },
      leases,
      loginCommand: `report-export login --client-id <id> --region <uk|na|eu|au> --secret-id ${secretArn} --lease-store s3://${bucket}/_leases`,
    },
    ctx,
  );
}
