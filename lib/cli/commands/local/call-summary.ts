import { shiftDate } from '../../../calendar';
import { type LakeDatabase, sqlString } from '../../shared/lake-database';

/** One local day of the export. */
interface DaySummary {
  /** YYYY-MM-DD, the partition's `dt`. */
  dt: string;
  calls: number;
  answered: number;
  /** Answered calls / calls, 0..1; null on a day without calls. */
  answerRate: number | null;
  /** Mean `duration` of answered calls, seconds; null without one. */
  avgTalkSeconds: number | null;
  /** Read before the day ended in the tenant's zone (`provisional` rows): it may still grow. */
  provisional: boolean;
}

/** Calls that started in one local weekday and hour, over the whole window. */
interface HourCell {
  /** ISO weekday: 1 Monday .. 7 Sunday. */
  weekday: number;
  /** Local hour 0..23 of `start`. */
  hour: number;
  calls: number;
}

export interface CallSummary {
  from: string;
  to: string;
  /** Every date of the window, in order, days without calls included (zero). */
  days: DaySummary[];
  /** All 7 x 24 cells, Monday 00h first; zero where no call started. */
  heatmap: HourCell[];
  calls: number;
}

interface CallSummaryScope {
  /** First and last local date (inclusive). */
  from: string;
  to: string;
  /** Only these reports; default every report in the lake. */
  reportIds?: readonly string[];
  /** Only this tenant's rows (the tables' `tenant` column); default every row. */
  tenant?: string;
}

/** The scope's conditions after its window: its reports and its tenant. */
function scopeConditions(scope: CallSummaryScope): string {
  // No report of the dataset: no row, and no column named (a dataset no run wrote is an
  // empty table of its own columns, without the tables' tenant).
  if (scope.reportIds?.length === 0) return 'AND false';
  const reports =
    scope.reportIds === undefined ? '' : `AND report_id IN (${scope.reportIds.map(sqlString).join(', ')})`;
  return scope.tenant === undefined ? reports : `${reports} AND tenant = ${sqlString(scope.tenant)}`;
}

/**
 * The calls of the window, each counted once. The reports overlap (a hunt-group call
 * answered by a user is in "by user" and "by hunt group"), so calls are the distinct
 * `conn_id`s of the exported rows. A call is answered when its row has `ans = 1`: the
 * service's answered count, and exactly one of `ans`, `ref`, `lost` is 1 on a row. Talk
 * time is `duration` (seconds) of answered calls; unanswered ones carry 0 and would
 * only dilute the mean.
 */
function distinctCallsSql(scope: CallSummaryScope): string {
  return `SELECT conn_id, any_value(dt) AS dt, any_value(start) AS start,
      max(ans) AS ans, max(duration) AS duration, bool_or(coalesce(provisional, false)) AS provisional
    FROM calls
    WHERE dt BETWEEN ${sqlString(scope.from)} AND ${sqlString(scope.to)} ${scopeConditions(scope)}
    GROUP BY conn_id`;
}

/** The sample query `npm start` prints: calls, answered rate and average talk time per day. */
function perDaySql(scope: CallSummaryScope): string {
  return `WITH call AS (${distinctCallsSql(scope)})
SELECT dt, count(*)::INTEGER AS calls,
       (count(*) FILTER (WHERE ans = 1))::INTEGER AS answered,
       avg(duration) FILTER (WHERE ans = 1) AS avg_talk_s,
       bool_or(provisional) AS provisional
FROM call GROUP BY dt ORDER BY dt`;
}

function heatmapSql(scope: CallSummaryScope): string {
  return `WITH call AS (${distinctCallsSql(scope)})
SELECT isodow(start)::INTEGER AS weekday, hour(start)::INTEGER AS hour, count(*)::INTEGER AS calls
FROM call GROUP BY ALL`;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));

/** A summary report's totals over the window, from the `summaries` table. */
export interface SummaryReportTotals {
  reportId: string;
  /** Days with a published summary. */
  days: number;
  /** Summary rows (e.g. users) summed over the days. */
  rows: number;
  ans: number;
  ref: number;
  lost: number;
}

/** Totals of the summary reports of the window, per report, in report id order. */
export async function summarizeSummaryReports(
  db: LakeDatabase,
  scope: CallSummaryScope,
): Promise<SummaryReportTotals[]> {
  const answer =
    await db.query(`SELECT report_id, count(DISTINCT dt)::INTEGER AS days, count(*)::INTEGER AS rows,
      coalesce(sum(ans), 0)::BIGINT AS ans, coalesce(sum(ref), 0)::BIGINT AS ref, coalesce(sum(lost), 0)::BIGINT AS lost
    FROM summaries
    WHERE dt BETWEEN ${sqlString(scope.from)} AND ${sqlString(scope.to)} ${scopeConditions(scope)}
    GROUP BY report_id ORDER BY report_id`);
  return answer.rows.map((r) => ({
    reportId: String(r.report_id),
    days: num(r.days),
    rows: num(r.rows),
    ans: num(r.ans),
    ref: num(r.ref),
    lost: num(r.lost),
  }));
}

/** Reads the summary of the window from the lake (DuckDB over the files just written). */
export async function summarizeCalls(db: LakeDatabase, scope: CallSummaryScope): Promise<CallSummary> {
  const perDay = new Map<string, DaySummary>();
  for (const r of (await db.query(perDaySql(scope))).rows) {
    const calls = num(r.calls);
    const answered = num(r.answered);
    perDay.set(String(r.dt), {
      dt: String(r.dt),
      calls,
      answered,
      answerRate: calls === 0 ? null : answered / calls,
      avgTalkSeconds: r.avg_talk_s === null || r.avg_talk_s === undefined ? null : num(r.avg_talk_s),
      provisional: r.provisional === true,
    });
  }
  const days: DaySummary[] = [];
  // Bounded by the window's length, which the CLI's parser already limits.
  for (let dt = scope.from; dt <= scope.to && days.length < 3660; dt = shiftDate(dt, 1)) {
    days.push(
      perDay.get(dt) ?? {
        dt,
        calls: 0,
        answered: 0,
        answerRate: null,
        avgTalkSeconds: null,
        provisional: false,
      },
    );
  }
  const cells = new Map<string, number>();
  for (const r of (await db.query(heatmapSql(scope))).rows) cells.set(`${r.weekday}/${r.hour}`, num(r.calls));
  const heatmap: HourCell[] = [];
  for (let weekday = 1; weekday <= 7; weekday++) {
    for (let hour = 0; hour < 24; hour++)
      heatmap.push({ weekday, hour, calls: cells.get(`${weekday}/${hour}`) ?? 0 });
  }
  return { from: scope.from, to: scope.to, days, heatmap, calls: days.reduce((n, d) => n + d.calls, 0) };
}
