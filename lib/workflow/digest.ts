import type { FreshnessVerdict } from './freshness';
import type { RunRecord } from './run-record';
import { type JudgedSchedule, judgeTenantRecords } from './tenant-freshness';
import type { TenantEntry } from './tenant-registry';

/**
 * The night's digest (issue 30): one notice per deployment and night naming the tenants that
 * failed, are held, are stale, and recovered, instead of one notice per failed execution
 * (resellers drown in per-tenant pages, KelvinTegelaar/CIPP #6053). Pure: run records,
 * tenants and the digest's scheduled time in, the digest out; `digestMessage` turns it into
 * an SNS subject and body within SNS's limits. What reads the records is digest-task.ts.
 *
 * - **The night**: the 24 hours before the digest's scheduled time, `[at - 24 h, at)`; night k
 *   is the 24 hours k nights earlier. Records are taken by the instant their execution
 *   started (`startedAt`), so a record written after `at` is never in the digest of `at`.
 * - **Failed**: the tenant's last execution of the night failed (a re-run that succeeded later
 *   the same night clears it). Its error names are those of the night's failed executions
 *   (the run's, and each failed job's). **N nights running**: the nights back from this one
 *   whose last execution failed, without a gap (a night without an execution ends the count:
 *   nothing says it failed; the stale list names such a tenant); counted over at most
 *   {@link MAX_STREAK_NIGHTS} nights. Named "failing N nights running" from
 *   {@link FAILING_NIGHTS_THRESHOLD}.
 * - **Held**: days the shrink guard holds (the lake kept its earlier copy) that no later run
 *   published, in the records the freshness judgement reads (tenant-freshness.ts): a day held
 *   on an earlier night and still held is named again, since it still needs a look.
 * - **Stale**: the tenant's worst report verdict (freshness.ts's judgement at `at`, the same
 *   one `report-export status` gives) is `warn` or `error`. `warn` counts: at the digest's
 *   hour a nightly tenant past `warn_after` has missed its night's run; waiting for `error`
 *   would name it a day later, in the next digest. Disabled tenants are not judged (nothing
 *   runs them); the digest counts them.
 * - **Recovered**: the night before ended failed, this night succeeded.
 */

/** From this many nights running a failing tenant is named "failing N nights running". */
export const FAILING_NIGHTS_THRESHOLD = 3;

/** The nights a streak is counted over at most (the reader reads no further back). */
export const MAX_STREAK_NIGHTS = 30;

export const NIGHT_MS = 24 * 3_600_000;

/** A tenant the digest judges: its registry entry's (or a single-tenant deployment's) settings. */
export interface DigestTenant {
  /** The registry id; null: a single-tenant deployment (its records carry no tenant). */
  id: string | null;
  name: string;
  enabled: boolean;
  schedule: JudgedSchedule;
}

/** A registry entry as the digest judges it. */
export function digestTenant(entry: TenantEntry): DigestTenant {
  return { id: entry.id, name: entry.name, enabled: entry.enabled, schedule: entry };
}

export interface FailedTenant {
  tenant: string | null;
  name: string;
  /** Error names of the night's failed executions, each once, in the order first seen. */
  errors: string[];
  /** Failed executions this night. */
  executions: number;
  /** Nights running whose last execution failed, this one included (at most MAX_STREAK_NIGHTS). */
  nightsRunning: number;
}

export interface HeldTenant {
  tenant: string | null;
  name: string;
  days: { reportName: string; dt: string }[];
}

export interface StaleTenant {
  tenant: string | null;
  name: string;
  verdict: Exclude<FreshnessVerdict, 'ok'>;
  /** The report with the largest lag (a report with no data counts as the largest). */
  reportName: string;
  /** Its lag in minutes; null: no day published. */
  lagMinutes: number | null;
}

export interface RecoveredTenant {
  tenant: string | null;
  name: string;
}

export interface NightDigest {
  /** The night: [from, to) (ISO 8601). */
  night: { from: string; to: string };
  tenants: number;
  disabled: number;
  failed: FailedTenant[];
  held: HeldTenant[];
  stale: StaleTenant[];
  recovered: RecoveredTenant[];
  /** Failed executions of the night recorded without a tenant (an input naming none the registry has). */
  unattributedFailures: number;
}

export interface DigestInput {
  /** The digest's scheduled time: the night ends here. */
  at: Date;
  tenants: readonly DigestTenant[];
  /** Each tenant's run records (key: its id, null for records without a tenant), any order. */
  records: ReadonlyMap<string | null, readonly RunRecord[]>;
}

type NightOutcome = 'failed' | 'succeeded' | 'none';

/** The records that started in night `k` before `at`. */
function recordsOfNight(records: readonly RunRecord[], at: number, k: number): RunRecord[] {
  const to = at - k * NIGHT_MS;
  const from = to - NIGHT_MS;
  return records.filter((r) => {
    const started = Date.parse(r.startedAt);
    return started >= from && started < to;
  });
}

/** How a night ended for a tenant: its last execution's status. */
function outcomeOf(night: readonly RunRecord[]): NightOutcome {
  const last = night.reduce<RunRecord | undefined>(
    (a, b) => (a === undefined || b.startedAt >= a.startedAt ? b : a),
    undefined,
  );
  if (last === undefined) return 'none';
  return last.status === 'FAILED' ? 'failed' : 'succeeded';
}

/** The error names of failed executions, each once. */
function errorNames(failed: readonly RunRecord[]): string[] {
  const names = new Set<string>();
  for (const r of [...failed].sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1))) {
    if (typeof r.error === 'string') names.add(r.error);
    for (const j of r.jobs ?? [])
      if (j.status === 'FAILED' && typeof j.error === 'string') names.add(j.error);
  }
  return [...names];
}

/** Nights running (from this one) whose last execution failed. */
export function failingNights(records: readonly RunRecord[], at: Date): number {
  let n = 0;
  while (n < MAX_STREAK_NIGHTS && outcomeOf(recordsOfNight(records, at.getTime(), n)) === 'failed') n++;
  return n;
}

const byName = <T extends { name: string; tenant: string | null }>(a: T, b: T) =>
  (a.tenant ?? '') < (b.tenant ?? '') ? -1 : (a.tenant ?? '') > (b.tenant ?? '') ? 1 : 0;

/** The night's digest (pure). */
export function buildDigest(input: DigestInput): NightDigest {
  const at = input.at.getTime();
  const digest: NightDigest = {
    night: { from: new Date(at - NIGHT_MS).toISOString(), to: input.at.toISOString() },
    tenants: input.tenants.length,
    disabled: 0,
    failed: [],
    held: [],
    stale: [],
    recovered: [],
    unattributedFailures: 0,
  };
  const known = new Set(input.tenants.map((t) => t.id));
  for (const t of input.tenants) {
    const all = (input.records.get(t.id) ?? []).filter((r) => Date.parse(r.startedAt) < at);
    const tonight = recordsOfNight(all, at, 0);
    const outcome = outcomeOf(tonight);
    if (outcome === 'failed') {
      const failed = tonight.filter((r) => r.status === 'FAILED');
      digest.failed.push({
        tenant: t.id,
        name: t.name,
        errors: errorNames(failed),
        executions: failed.length,
        nightsRunning: failingNights(all, input.at),
      });
    } else if (outcome === 'succeeded' && outcomeOf(recordsOfNight(all, at, 1)) === 'failed') {
      digest.recovered.push({ tenant: t.id, name: t.name });
    }
    if (!t.enabled) {
      digest.disabled++;
      continue;
    }
    const judged = judgeTenantRecords(all, t.schedule, input.at);
    const days = judged.reports.flatMap((r) =>
      r.heldDays.map((h) => ({ reportName: r.reportName, dt: h.dt })),
    );
    if (days.length > 0) digest.held.push({ tenant: t.id, name: t.name, days });
    if (judged.verdict !== 'ok') {
      const lag = (r: { lagMinutes: number | null }) => r.lagMinutes ?? Number.POSITIVE_INFINITY;
      const worst = judged.reports.reduce<(typeof judged.reports)[number] | undefined>(
        (w, r) => (w === undefined || lag(r) > lag(w) ? r : w),
        undefined,
      );
      digest.stale.push({
        tenant: t.id,
        name: t.name,
        verdict: judged.verdict,
        reportName: worst?.reportName ?? '',
        lagMinutes: worst?.lagMinutes ?? null,
      });
    }
  }
  for (const [tenant, records] of input.records) {
    if (known.has(tenant)) continue;
    digest.unattributedFailures += recordsOfNight(records, at, 0).filter((r) => r.status === 'FAILED').length;
  }
  digest.failed.sort(byName);
  digest.held.sort(byName);
  digest.stale.sort(byName);
  digest.recovered.sort(byName);
  return digest;
}
