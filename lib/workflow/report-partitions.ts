import { datesInRange } from '../calendar';
import type { HeldPartition } from '../export';
import type { DayPartition } from './freshness';
import type { RunRecord, RunRecordJob } from './run-record';

/**
 * What run records say of each report's day partitions, for the freshness judgement
 * (freshness.ts): which days landed, each settled or provisional as of its cut-off, the days
 * the shrink guard still holds, and the report's last run. Pure.
 *
 * A record lists per job the range of days it published (`firstDate`..`lastDate`), how many
 * (`partitions`), the days the shrink guard held (the first 31, `heldCount` all of them) and
 * its provisional days with their cut-off (`partialDays`), not the list of days published. The
 * range minus the held days is that list when their count is `partitions`; otherwise only the
 * range's ends, which were certainly published (they are the published days' first and last),
 * are taken. A job whose commit failed landed nothing; one the committer refused a run of
 * (`invalid`) landed some runs, the record does not say which: none is taken. Both only ever
 * make data look older than it is, never fresher.
 */

/** A day the shrink guard held (the lake kept its earlier copy), by the run that held it. */
export type HeldDay = HeldPartition & { runId: string };

/** A report's last run, as its job in the newest record that ran it ended. */
export interface ReportRun {
  runId: string;
  startedAt: string;
  status: 'SUCCEEDED' | 'FAILED';
  error: string | null;
}

/** One report over the records read. */
export interface ReportPartitions {
  reportId: string;
  reportName: string;
  /** Each day landed once, as it was last published (settled wins: a later read is never older). */
  days: DayPartition[];
  /** Days held and not published by a later run, by day. */
  held: HeldDay[];
  lastRun: ReportRun | null;
}

/** The days a job landed ({@link ReportPartitions} says which the record lets us know). */
export function landedDays(job: Partial<RunRecordJob>): string[] {
  const status = job.commit?.status;
  if (status === 'failed' || status === 'invalid') return [];
  const { firstDate, lastDate } = job;
  if (typeof firstDate !== 'string' || typeof lastDate !== 'string') return [];
  let range: string[];
  try {
    range = datesInRange(firstDate, lastDate);
  } catch {
    return []; // a damaged record's dates: it says nothing of what landed
  }
  const held = new Set((job.held ?? []).map((h) => h.dt));
  const days = range.filter((dt) => !held.has(dt));
  if (days.length === job.partitions) return days;
  return firstDate === lastDate ? [firstDate] : [firstDate, lastDate];
}

/** What the records read so far say of one report. */
interface Seen {
  days: Map<string, DayPartition>;
  held: Map<string, HeldDay>;
  last: ReportRun | null;
}

const byStart = (a: RunRecord, b: RunRecord) =>
  a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0;

/**
 * Each report's partitions over `records` (any order), for the reports `reports` names, in
 * that order; a report no record ran has no days and no last run.
 */
export function reportPartitions(
  records: readonly RunRecord[],
  reports: readonly { id: string; name: string }[],
): ReportPartitions[] {
  const byReport = new Map<string, Seen>(
    reports.map((r) => [r.id, { days: new Map(), held: new Map(), last: null }]),
  );
  for (const record of [...records].sort(byStart)) {
    for (const job of record.jobs ?? []) {
      const report = byReport.get(job.reportId);
      if (report === undefined) continue;
      // A record with two jobs of the report (a window split across jobs): failed if either did.
      const earlier = report.last?.runId === record.runId ? report.last : undefined;
      report.last =
        earlier?.status === 'FAILED'
          ? earlier
          : {
              runId: record.runId,
              startedAt: record.startedAt,
              status: job.status,
              error: job.error ?? null,
            };
      for (const h of job.held ?? []) report.held.set(h.dt, { ...h, runId: record.runId });
      const cutOffs = new Map((job.partialDays ?? []).map((d) => [d.dt, d.cutOff]));
      for (const dt of landedDays(job)) {
        report.held.delete(dt);
        const asOf = cutOffs.get(dt);
        // Settled wins, then the later as-of: a day read later never holds older data.
        const seen = report.days.get(dt);
        const newer =
          seen === undefined || (seen.asOf !== undefined && (asOf === undefined || asOf > seen.asOf));
        if (newer) report.days.set(dt, asOf === undefined ? { dt } : { dt, asOf });
      }
    }
  }
  return reports.map((r) => {
    const report = byReport.get(r.id);
    return {
      reportId: r.id,
      reportName: r.name,
      days: [...(report?.days.values() ?? [])],
      held: [...(report?.held.values() ?? [])].sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0)),
      lastRun: report?.last ?? null,
    };
  });
}
