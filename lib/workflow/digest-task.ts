import { datesInRange } from '../calendar';
import { forEachLimited } from '../export';
import type { NoticeTopic, ObjectStore } from '../stores';
import {
  buildDigest,
  type DigestTenant,
  failingNights,
  MAX_STREAK_NIGHTS,
  NIGHT_MS,
  type NightDigest,
} from './digest';
import { digestMessage } from './digest-message';
import { InvalidConfigError } from './errors';
import { recordDatesToRead } from './freshness';
import type { RunRecord } from './run-record';
import { runRecordsOfDate } from './tenant-freshness';

/**
 * The Digest task: reads the run records the night's digest needs, bounded, builds it
 * (digest.ts) and publishes it as one notice. Per tenant it reads the UTC dates of
 * `runs/tenant=<t>/dt=<date>/` that the freshness judgement reads at the digest's time
 * (`recordDatesToRead`: 3 or 4 dates for a nightly tenant) and those of the night and the
 * night before; for a tenant whose nights failed back to the earliest night read, a week of
 * dates more at a time, until a night did not fail or {@link MAX_STREAK_NIGHTS} nights are
 * read. A deployment of 1,000 nightly tenants that all succeed: about 4,000 LIST requests and
 * as many GETs a night (~$0.02).
 */

export interface DigestDeps {
  lake: { store: ObjectStore; prefix: string };
  tenants: readonly DigestTenant[];
  topic: NoticeTopic;
  /** The deployment's name (the stack's), for the subject. */
  deployment: string;
  /** Single-tenant: records carry no tenant; multi-tenant: those without one are read as unattributed. */
  multiTenant: boolean;
  onUnreadable: (key: string, reason: string) => void;
}

export interface DigestOutput {
  night: NightDigest['night'];
  tenants: number;
  failed: number;
  held: number;
  stale: number;
  recovered: number;
  subject: string;
  bodyBytes: number;
}

/** Tenants whose records are read at once. */
const DIGEST_CONCURRENCY = 16;

/** The UTC dates (YYYY-MM-DD) an interval [from, to) of instants touches. */
function utcDates(from: number, to: number): string[] {
  return datesInRange(new Date(from).toISOString().slice(0, 10), new Date(to - 1).toISOString().slice(0, 10));
}

/** The records of one tenant the digest of `at` needs (see the module's comment). */
async function tenantRecords(deps: DigestDeps, tenant: DigestTenant, at: Date): Promise<RunRecord[]> {
  const read = new Set<string>();
  const records: RunRecord[] = [];
  const readDates = async (dates: readonly string[]) => {
    for (const dt of dates) {
      if (read.has(dt)) continue;
      read.add(dt);
      records.push(...(await runRecordsOfDate(deps.lake, tenant.id ?? undefined, dt, deps.onUnreadable)));
    }
  };
  const t = at.getTime();
  const bound = recordDatesToRead(tenant.schedule, at);
  await readDates([...datesInRange(bound.from, bound.to), ...utcDates(t - 2 * NIGHT_MS, t)]);
  for (let nights = 2; nights < MAX_STREAK_NIGHTS; nights += 7) {
    if (failingNights(records, at) < nights) break;
    const more = Math.min(nights + 7, MAX_STREAK_NIGHTS);
    await readDates(utcDates(t - more * NIGHT_MS, t - nights * NIGHT_MS));
  }
  return records;
}

/** Builds the digest of the night before `at` from the lake's records and publishes it once. */
export async function publishDigest(at: Date, deps: DigestDeps): Promise<DigestOutput> {
  const records = new Map<string | null, RunRecord[]>();
  await forEachLimited([...deps.tenants], DIGEST_CONCURRENCY, async (tenant) => {
    records.set(tenant.id, await tenantRecords(deps, tenant, at));
  });
  if (deps.multiTenant) {
    // Failures recorded without a tenant (`runs/dt=<date>/`): counted, not named.
    const t = at.getTime();
    const none: RunRecord[] = [];
    for (const dt of utcDates(t - NIGHT_MS, t)) {
      none.push(...(await runRecordsOfDate(deps.lake, undefined, dt, deps.onUnreadable)));
    }
    records.set(null, none);
  }
  const digest = buildDigest({ at, tenants: deps.tenants, records });
  const message = digestMessage(digest, deps.deployment);
  await deps.topic.publish(message);
  return {
    night: digest.night,
    tenants: digest.tenants,
    failed: digest.failed.length,
    held: digest.held.length,
    stale: digest.stale.length,
    recovered: digest.recovered.length,
    subject: message.subject,
    bodyBytes: Buffer.byteLength(message.body, 'utf8'),
  };
}

/** The Digest function's own settings (besides the workflow's stores), from its environment. */
export interface DigestSettings {
  /** `NOTICE_TOPIC_URI`: the alarm topic's ARN, or `file:///path` (a local file of JSON lines). */
  noticeTopicUri: string;
  /** `DEPLOYMENT_NAME`: the stack's name, in the subject. */
  deployment: string;
  /** `NIGHTLY_HOUR`: a single-tenant deployment's schedule hour (its freshness goals); 4 by default. */
  nightlyHour: number;
}

/** Reads and checks the Digest function's settings; the error names the setting. */
export function digestSettingsFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): DigestSettings {
  const uri = env.NOTICE_TOPIC_URI;
  if (uri === undefined || uri === '')
    throw new InvalidConfigError('NOTICE_TOPIC_URI is required (the alarm topic)');
  const hour = env.NIGHTLY_HOUR === undefined ? 4 : Number(env.NIGHTLY_HOUR);
  if (!Number.isInteger(hour) || hour < 0 || hour > 23) {
    throw new InvalidConfigError(`NIGHTLY_HOUR ${JSON.stringify(env.NIGHTLY_HOUR)} is not an hour 0..23`);
  }
  return { noticeTopicUri: uri, deployment: env.DEPLOYMENT_NAME || 'report-export', nightlyHour: hour };
}
