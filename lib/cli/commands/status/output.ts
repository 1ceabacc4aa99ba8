import { ZoneConverter } from '../../../calendar';
import type { FreshnessVerdict, ReportStatus, TenantEntry, TenantFreshness } from '../../../workflow';
import { verdictCell } from '../../shared/freshness-status';
import type { IOStreams } from '../../shared/io-streams';
import { describeHeld } from '../../shared/run-outcome';
import { colors, renderTable } from '../../shared/terminal';
import { FRESHNESS_EXIT_CODES } from './spec';

/**
 * What `status` prints: one JSON document (`--json`, its members in docs/status.md: a script
 * reads them, so they are added to, never renamed), or a table of every tenant's reports with
 * the failures, held days and missing data named under it.
 */

/** A tenant's entry and its judgement. */
export interface JudgedTenant {
  entry: TenantEntry;
  freshness: TenantFreshness;
}

/** The `--json` document, in its documented member order. */
export function statusDocument(
  tenants: readonly JudgedTenant[],
  about: { at: Date; lake: string; verdict: FreshnessVerdict },
) {
  return {
    version: 1,
    at: about.at.toISOString(),
    lake: about.lake,
    verdict: about.verdict,
    exitCode: FRESHNESS_EXIT_CODES[about.verdict],
    tenants: tenants.map(({ entry, freshness: f }) => ({
      tenant: entry.id,
      name: entry.name,
      timeZone: entry.timeZone,
      enabled: entry.enabled,
      verdict: f.verdict,
      lastRun: f.lastRun,
      records: f.records,
      reports: f.reports.map((r) => ({
        reportId: r.reportId,
        reportName: r.reportName,
        verdict: r.verdict,
        newestSettledDay: r.newestSettledDay,
        provisionalDays: r.provisionalDays,
        dataTime: r.dataTime,
        lagMinutes: r.lagMinutes,
        goals: r.goals,
        lastRun: r.lastRun,
        heldDays: r.heldDays,
      })),
    })),
  };
}

/** Minutes for people: `45 min`, `52 h`, `3 h 05 min`, `3 d 04 h`, `7 d` (days from 72 hours on). */
export function formatMinutes(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h < 72) return m === 0 ? `${h} h` : `${h} h ${String(m).padStart(2, '0')} min`;
  return h % 24 === 0 ? `${h / 24} d` : `${Math.floor(h / 24)} d ${String(h % 24).padStart(2, '0')} h`;
}

/** An instant as the tenant's wall-clock time with its offset: `2026-12-04 10:15+00:00`. */
function localTime(iso: string, zone: ZoneConverter): string {
  const at = zone.formatWithOffset(Date.parse(iso));
  return `${at.slice(0, 10)} ${at.slice(11, 16)}${at.slice(19)}`;
}

/** The table, the notes under it, and the overall verdict with its exit status. */
export function statusLines(
  tenants: readonly JudgedTenant[],
  verdict: FreshnessVerdict,
  io: Pick<IOStreams, 'stdout' | 'env'>,
): string {
  const c = colors(io.stdout, io.env);
  const rows = tenants.flatMap(({ entry, freshness }) => {
    const zone = new ZoneConverter(entry.timeZone);
    return freshness.reports.map((r) => ({
      tenant: entry.enabled ? entry.id : `${entry.id} (disabled)`,
      report: r.reportName,
      verdict: r.verdict,
      lag: r.lagMinutes === null ? 'no data' : formatMinutes(r.lagMinutes),
      goals: `${formatMinutes(r.goals.warnAfterMinutes)} / ${formatMinutes(r.goals.errorAfterMinutes)} ${r.goals.basis}`,
      'newest settled': r.newestSettledDay ?? '',
      'provisional as of': r.provisionalDays
        .map((d) => `${d.dt} as of ${localTime(d.asOf, zone)}`)
        .join(', '),
      'last run': r.lastRun === null ? 'none' : `${localTime(r.lastRun.startedAt, zone)} ${r.lastRun.status}`,
      held: r.heldDays.length,
    }));
  });
  const table = renderTable(
    rows,
    [
      'tenant',
      'report',
      { key: 'verdict', format: verdictCell(c) },
      { key: 'lag', align: 'right' },
      { key: 'goals', header: 'goals (warn / error)' },
      'newest settled',
      'provisional as of',
      { key: 'last run', format: (t) => (String(t).endsWith('FAILED') ? c.red(String(t)) : String(t)) },
      { key: 'held', format: (n) => (Number(n) > 0 ? c.yellow(String(n)) : String(n)) },
    ],
    { header: c.bold },
  );
  const notes = tenants.flatMap(({ entry, freshness }) =>
    freshness.reports.flatMap((r) => reportNotes(entry.id, r, freshness.records)),
  );
  const counted = tenants.filter((t) => t.entry.enabled).flatMap((t) => t.freshness.reports);
  const count = (v: FreshnessVerdict) => counted.filter((r) => r.verdict === v).length;
  const summary = `verdict: ${verdictCell(c)(verdict)} (exit ${FRESHNESS_EXIT_CODES[verdict]}): ${count('ok')} ok, ${count('warn')} past warn_after, ${count('error')} past error_after, of ${counted.length} report(s) of the enabled tenants`;
  return `${table}${notes.join('')}${summary}\n`;
}

/** What a report's row cannot say: no data in the records read, a failed last run, each held day. */
function reportNotes(tenant: string, r: ReportStatus, records: { from: string; to: string }): string[] {
  const notes: string[] = [];
  if (r.dataTime === null) {
    notes.push(
      `${tenant}  "${r.reportName}": no published day in its run records of ${records.from}..${records.to} (UTC dates)\n`,
    );
  }
  if (r.lastRun?.status === 'FAILED') {
    notes.push(
      `${tenant}  "${r.reportName}": last run ${r.lastRun.runId} failed: ${r.lastRun.error ?? 'unknown error'}\n`,
    );
  }
  for (const h of r.heldDays) {
    notes.push(
      `${tenant}  held ${describeHeld({ ...h, reportId: r.reportId, reportName: r.reportName })} (run ${h.runId})\n`,
    );
  }
  return notes;
}
