import { refreshTokens } from '../../../api';
import type { FreshnessVerdict, ServiceSecret, TenantEntry } from '../../../workflow';
import {
  heldReportPartitions,
  SecretTokenSource,
  tenantFreshness,
  tokenRefreshLease,
} from '../../../workflow';
import { openSecretStore } from '../../aws/secret-access';
import {
  openDeployment,
  type TenantsDependencies,
  type TenantsDeployment,
} from '../../aws/tenants-deployment';
import { verdictCell } from '../../shared/freshness-status';
import type { IOStreams } from '../../shared/io-streams';
import { registeredEntry } from '../../shared/known-tenants';
import { latestRunRecords } from '../../shared/run-records';
import { parseTenantsSubcommand } from '../../shared/tenant-check';
import { colors, renderTable } from '../../shared/terminal';
import { type ScheduleState, scheduleState } from './schedules';
import { TENANTS_STATUS_COMMAND } from './spec';

/** Run records read per tenant for its status: the last run, and the newest day its recent runs exported. */
const RECORDS_READ = 20;

/** Tenants whose status is read at once. */
const STATUS_CONCURRENCY = 8;

/** A tenant's status line. */
interface TenantStatus {
  tenant: string;
  enabled: boolean;
  lastRun: { runId: string; status: string; startedAt: string; error: string | null } | null;
  /** The newest local day a successful run of the last {@link RECORDS_READ} exported. */
  newestDay: string | null;
  /** Partitions the shrink guard held in its last successful run (a later run may publish them). */
  heldPartitions: number;
  /** Its data's freshness, the worst of its reports' (`report-export status` judges each: docs/status.md). */
  verdict: FreshnessVerdict;
  /**
   * Its login: `none` (no secret, or no refresh token), `stored` (not checked; its access
   * token's expiry in `loginExpires`), `refreshes` (--check-login refreshed it), or `failed: <why>`.
   */
  login: string;
  loginExpires: string | null;
  /** `n/a` locally (no Scheduler). */
  schedule: ScheduleState | 'n/a';
}

/**
 * The tenant's login: read as stored, or with `check` refreshed once under the tenant's
 * token-refresh lease, as its runs take it (the stored token counts as expired, so the
 * refresh happens; a rotated refresh token is stored before anything else uses it).
 */
async function loginStatus(
  d: TenantsDeployment,
  id: string,
  check: boolean,
  deps: TenantsDependencies,
): Promise<Pick<TenantStatus, 'login' | 'loginExpires'>> {
  const clients = d.kind === 'aws' ? { secretsManager: () => d.secretsManager } : {};
  const { store, name } = openSecretStore(d.secretOf(id), clients);
  const fetchOption = deps.fetch === undefined ? {} : { fetch: deps.fetch };
  const tokens = new SecretTokenSource({
    secrets: store,
    secretName: name,
    leases: await d.leases(),
    leaseKey: tokenRefreshLease(id),
    expirySkewMs: check ? Number.POSITIVE_INFINITY : 0,
    refresh: (client, refreshToken, signal) =>
      refreshTokens(client, refreshToken, { transport: fetchOption, ...(signal ? { signal } : {}) }),
  });
  let secret: ServiceSecret;
  try {
    secret = await tokens.read();
  } catch (error) {
    // No login stored is `none`; a secret that could not be read (refused, throttled) is not.
    if ((error as Error).name !== 'StoreFailedError') return { login: 'none', loginExpires: null };
    return { login: `unreadable: ${rootCauseName(error)}`, loginExpires: null };
  }
  const expires = (s: ServiceSecret) =>
    s.accessTokenExpiresAt === undefined ? null : new Date(s.accessTokenExpiresAt).toISOString();
  if (!check) return { login: 'stored', loginExpires: expires(secret) };
  try {
    await tokens.getAccessToken();
    return { login: 'refreshes', loginExpires: expires(await tokens.read()) };
  } catch (error) {
    return { login: `failed: ${whyNotRefreshed(error, secret)}`, loginExpires: expires(secret) };
  }
}

/**
 * Why a login did not refresh. A login of the local service `npm start` starts (on this
 * machine's loopback) cannot be checked after it: that service lives only while npm start
 * runs, and the next start signs its tenants in again. Said as such, not as a bare failure.
 */
function whyNotRefreshed(error: unknown, secret: ServiceSecret): string {
  const message = (error as Error).message;
  const host = URL.canParse(secret.authUrl) ? new URL(secret.authUrl).hostname : '';
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host) || !unreachable(error)) return message;
  return `${message}: its service ${secret.authUrl} is not running (the local service lives only while npm start runs, and each start signs its tenants in again; check this login while it runs)`;
}

/** A connection refused or reset anywhere in the cause chain: no server answered. */
function unreachable(error: unknown): boolean {
  let e = error as { code?: unknown; cause?: unknown; name?: string } | undefined;
  for (let depth = 0; depth < 6 && e !== undefined && e !== null; depth++) {
    if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.name === 'ConnectionError') return true;
    e = e.cause as typeof e;
  }
  return false;
}

async function statusOf(
  d: TenantsDeployment,
  entry: TenantEntry,
  check: boolean,
  io: IOStreams,
  deps: TenantsDependencies,
  now: Date,
): Promise<TenantStatus> {
  const unreadable = (key: string, reason: string) =>
    io.stderr.write(`warning: skipped the unreadable run record ${key}: ${reason}\n`);
  const records = await latestRunRecords(d.lake, RECORDS_READ, unreadable, entry.id);
  const last = records[0];
  const succeeded = records.filter((r) => r.status === 'SUCCEEDED');
  const newestDay = succeeded
    .map((r) => r.newestDate)
    .reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
  const lastGood = succeeded[0];
  return {
    tenant: entry.id,
    enabled: entry.enabled,
    lastRun:
      last === undefined
        ? null
        : { runId: last.runId, status: last.status, startedAt: last.startedAt, error: last.error ?? null },
    newestDay,
    heldPartitions: lastGood === undefined ? 0 : heldReportPartitions(lastGood.jobs ?? []).length,
    verdict: (await tenantFreshness(d.lake, entry.id, entry, now, unreadable)).verdict,
    ...(await loginStatus(d, entry.id, check, deps)),
    schedule:
      d.kind === 'aws' ? await scheduleState(d.scheduler, d.outputs.TenantScheduleGroup, entry.id) : 'n/a',
  };
}

export async function tenantsStatus(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_STATUS_COMMAND, argv, io, 'optional');
  if (parsed === undefined) return 0;
  const { v, id } = parsed;
  const d = await openDeployment(v, io, deps);
  let entries: TenantEntry[];
  if (id === undefined) {
    entries = await d.registry.list({
      onInvalid: (bad, error) => io.stderr.write(`warning: skipped tenant ${bad}: ${error.message}\n`),
    });
  } else {
    entries = [await registeredEntry(d.registry, id, d.describe, null)];
  }
  // A few tenants at once: a deployment's thousands are not read one after another.
  const statuses: TenantStatus[] = new Array(entries.length);
  const now = new Date();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < entries.length; i = next++) {
      statuses[i] = await statusOf(d, entries[i] as TenantEntry, v['check-login'], io, deps, now);
    }
  };
  await Promise.all(Array.from({ length: Math.min(STATUS_CONCURRENCY, entries.length) }, worker));
  if (v.json) {
    io.stdout.write(`${JSON.stringify(statuses)}\n`);
    return 0;
  }
  if (statuses.length === 0) {
    io.stderr.write(`no tenants in the ${d.describe}\n`);
    return 0;
  }
  const c = colors(io.stdout, io.env);
  io.stdout.write(
    renderTable(
      statuses.map((s) => ({
        tenant: s.tenant,
        enabled: s.enabled ? 'yes' : 'no',
        'last run':
          s.lastRun === null
            ? 'never'
            : `${s.lastRun.startedAt.replace('T', ' ').slice(0, 16)} ${s.lastRun.status}`,
        'newest day': s.newestDay ?? '',
        held: s.heldPartitions,
        verdict: s.verdict,
        login: s.login.startsWith('failed') ? 'FAILED (below)' : s.login,
        schedule: s.schedule,
      })),
      [
        'tenant',
        'enabled',
        { key: 'last run', format: (t) => (String(t).endsWith('FAILED') ? c.red(String(t)) : String(t)) },
        'newest day',
        { key: 'held', format: (n) => (Number(n) > 0 ? c.yellow(String(n)) : String(n)) },
        { key: 'verdict', format: verdictCell(c) },
        {
          key: 'login',
          format: (t) => (String(t).startsWith('FAILED') || t === 'none' ? c.red(String(t)) : String(t)),
        },
        'schedule',
      ],
      { header: c.bold },
    ),
  );
  for (const s of statuses) {
    if (s.lastRun?.error)
      io.stdout.write(`${s.tenant}  last run ${s.lastRun.runId} failed: ${s.lastRun.error}\n`);
    if (s.login.startsWith('failed')) io.stdout.write(`${s.tenant}  login ${s.login}\n`);
    // The schedule is the CLI's to keep in step with the entry (add, set): say when it is not.
    const expected = s.enabled ? 'ENABLED' : 'DISABLED';
    if (s.schedule !== 'n/a' && s.schedule !== expected) {
      io.stdout.write(
        `${s.tenant}  schedule ${s.schedule}, entry ${s.enabled ? 'enabled' : 'disabled'}: report-export tenants set ${s.tenant} --${s.enabled ? 'enabled' : 'disabled'}${d.kind === 'aws' ? ` --stack ${d.stack}` : ''} puts it in step\n`,
      );
    }
  }
  return 0;
}

/** The name of the innermost cause (e.g. AccessDeniedException): what refused the read. */
function rootCauseName(error: unknown): string {
  let e = error as { name?: string; cause?: unknown } | undefined;
  for (let depth = 0; depth < 5 && e?.cause !== undefined && e.cause !== null; depth++) {
    e = e.cause as { name?: string; cause?: unknown };
  }
  return e?.name ?? 'Error';
}
