import { datesInRange } from '../calendar';
import { type ObjectStore, readObject } from '../stores';
import {
  dataInstantOf,
  type FreshnessSchedule,
  type FreshnessVerdict,
  judgeFreshness,
  LONGEST_EXECUTION_MS,
  type ReportFreshness,
  recordDatesToRead,
  worstVerdict,
} from './freshness';
import { type HeldDay, type ReportPartitions, type ReportRun, reportPartitions } from './report-partitions';
import { parseRunRecord, parseRunRecordKey, type RunRecord, runRecordsPrefix } from './run-record';

/**
 * A tenant's freshness, from its run records (the CLI's `status` and `tenants status`, the
 * nightly digest): each report judged
 * per day partition (lib/workflow's freshness), with its last run and held days. Reads at most
 * the records of the UTC dates `recordDatesToRead` bounds, newest first, and stops early once
 * no older record could hold a day newer than every report's newest settled one.
 */

/** A report's freshness and what its run records say of it. */
export interface ReportStatus extends ReportFreshness {
  reportId: string;
  reportName: string;
  /** Its job in the newest record that ran it; null: none in the records read. */
  lastRun: ReportRun | null;
  /** Days the shrink guard held (the lake kept the earlier copy) that no later run published. */
  heldDays: HeldDay[];
}

/** A tenant's newest run, whatever it ran. */
export interface TenantRun extends ReportRun {
  finishedAt: string;
}

export interface TenantFreshness {
  /** The worst of its reports' verdicts. */
  verdict: FreshnessVerdict;
  reports: ReportStatus[];
  lastRun: TenantRun | null;
  /** The run records read: the UTC dates `from`..`to` (`runs/.../dt=<date>/`) and how many. */
  records: { from: string; to: string; read: number };
}

/** A tenant's (or, `tenant` undefined, a single-tenant lake's) schedule and reports. */
export type JudgedSchedule = FreshnessSchedule & { reports: readonly { id: string; name: string }[] };

const DAY_MS = 86_400_000;

/**
 * Judges the reports of `schedule` at `now` from the run records in `lake` (`tenant`'s, under
 * `runs/tenant=<t>/`, or a single-tenant lake's under `runs/dt=.../`). A record that cannot be
 * read is passed to `onUnreadable` and skipped.
 */
export async function tenantFreshness(
  lake: { store: ObjectStore; prefix: string },
  tenant: string | undefined,
  schedule: JudgedSchedule,
  now: Date,
  onUnreadable: (key: string, reason: string) => void,
): Promise<TenantFreshness> {
  const bound = recordDatesToRead(schedule, now);
  const records: RunRecord[] = [];
  let from = bound.to;
  for (const dt of datesInRange(bound.from, bound.to).reverse()) {
    if (dt !== bound.to && noNewerIn(dt, reportPartitions(records, schedule.reports), schedule)) break;
    from = dt;
    records.push(...(await runRecordsOfDate(lake, tenant, dt, onUnreadable)));
  }
  return {
    ...judgeTenantRecords(records, schedule, now),
    records: { from, to: bound.to, read: records.length },
  };
}

/**
 * The run records of one UTC date (`runs/[tenant=<t>/]dt=<dt>/`), runs and caught failures
 * alike; a record that cannot be read is passed to `onUnreadable` and skipped.
 */
export async function runRecordsOfDate(
  lake: { store: ObjectStore; prefix: string },
  tenant: string | undefined,
  dt: string,
  onUnreadable: (key: string, reason: string) => void,
): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for await (const info of lake.store.list(`${runRecordsPrefix(lake.prefix, tenant)}dt=${dt}/`)) {
    if (parseRunRecordKey(info.key)?.dt !== dt) continue;
    const record = parseRunRecord(new TextDecoder().decode(await readObject(lake.store, info.key)));
    if (typeof record === 'string') onUnreadable(info.key, record);
    else records.push(record);
  }
  return records;
}

/**
 * A tenant's freshness from run records already read (pure): each report judged per day
 * partition at `now`, its last run and held days, and the tenant's newest run.
 */
export function judgeTenantRecords(
  records: readonly RunRecord[],
  schedule: JudgedSchedule,
  now: Date,
): Omit<TenantFreshness, 'records'> {
  const reports = reportPartitions(records, schedule.reports).map(
    (r): ReportStatus => ({
      reportId: r.reportId,
      reportName: r.reportName,
      ...judgeFreshness(r.days, schedule, now),
      lastRun: r.lastRun,
      heldDays: r.held,
    }),
  );
  const last = records.reduce<RunRecord | undefined>(
    (a, b) => (a === undefined || b.startedAt > a.startedAt ? b : a),
    undefined,
  );
  return {
    verdict: worstVerdict(reports.map((r) => r.verdict)),
    reports,
    lastRun:
      last === undefined
        ? null
        : {
            runId: last.runId,
            startedAt: last.startedAt,
            finishedAt: last.finishedAt,
            status: last.status,
            error: last.error ?? null,
          },
  };
}

/**
 * Whether the records of UTC date `dt` and earlier hold nothing newer than what is known: they
 * started before the next date and hold data at most LONGEST_EXECUTION_MS after their start,
 * so once every report's newest settled day ends later than that, none of them can give a
 * report a newer settled day, a provisional day after it, or a later data time.
 */
function noNewerIn(dt: string, known: readonly ReportPartitions[], schedule: FreshnessSchedule): boolean {
  const reach = Date.parse(`${dt}T00:00:00Z`) + DAY_MS + LONGEST_EXECUTION_MS;
  return known.every((r) => {
    const settled = r.days
      .filter((d) => d.asOf === undefined)
      .map((d) => dataInstantOf(d, schedule.timeZone));
    return settled.length > 0 && Math.max(...settled) > reach;
  });
}
