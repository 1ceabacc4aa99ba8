import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { HeldReportPartition } from '../../../workflow';
import type { RunOutcome } from '../../shared/run-outcome';
import { formatCount } from '../../shared/terminal';
import type { CallSummary, SummaryReportTotals } from './call-summary';
import type { ContactMatches, TenantContacts } from './contacts-summary';
import { barChart, escapeHtml, heatmap } from './svg-charts';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

const percent = (rate: number | null): string =>
  rate === null ? 'no calls' : `${(rate * 100).toFixed(1)} %`;

/** Name of the page in the data lake's root. */
const SUMMARY_PAGE_NAME = 'summary.html';

/** What a summary section covers besides its calls. */
interface SummaryContext {
  generatedAt: string;
  /** The IANA zone the dates and hours are local to. */
  timeZone?: string;
  /** The reports the page covers, and where their rows are. */
  reports?: readonly { reportId: string; reportName: string; dataset: string }[];
  /** Totals of the summary reports (their rows are not calls: not in the charts). */
  summaryReports?: readonly SummaryReportTotals[];
  /** What the run held and left partial (the page shows the lake: a held day's published rows). */
  outcome?: RunOutcome;
  /** The contact directories' sync of the run, and the calls a contact matched. */
  contacts?: { sync: TenantContacts; matches: ContactMatches | undefined };
}

/**
 * The summary page: calls per day, answer rate per day and a weekday x hour heatmap of the
 * window, as one self-contained HTML file. Inline CSS and SVG only, and a Content Security
 * Policy that forbids every fetch, so the page shows the same offline and can be mailed.
 */
export function renderSummaryPage(summary: CallSummary, context: SummaryContext & { title: string }): string {
  return summaryDocument(context.title, summarySection(summary, context));
}

/** A tenant's section of the page as written (its tenant's id, and its HTML). */
export interface TenantSection {
  tenant: string;
  html: string;
}

/**
 * The summary page of several tenants: a section of each, under its name, in its own zone.
 * `kept`: sections of an earlier page (of tenants this run did not export, `--tenant`), in
 * that page's order, each replaced by this run's section of its tenant; new tenants after.
 */
export function renderTenantsSummaryPage(
  tenants: readonly { tenant: string; tenantName: string; summary: CallSummary; context: SummaryContext }[],
  title: string,
  kept: readonly TenantSection[] = [],
): string {
  const fresh = new Map(
    tenants.map(({ tenant, tenantName, summary, context }) => {
      // The section's headings one level down, under the tenant's.
      const section = summarySection(summary, context).replaceAll('<h2', '<h3').replaceAll('</h2>', '</h3>');
      const html = `<section data-tenant="${escapeHtml(tenant)}">
<h2>Tenant ${escapeHtml(tenant)}: ${escapeHtml(tenantName)}</h2>
${section}
</section>`;
      return [tenant, html];
    }),
  );
  const ordered = kept.map((k) => fresh.get(k.tenant) ?? k.html);
  for (const [tenant, html] of fresh) if (!kept.some((k) => k.tenant === tenant)) ordered.push(html);
  return summaryDocument(title, ordered.join('\n'));
}

/** A tenant's section as {@link renderTenantsSummaryPage} writes it (sections do not nest). */
const TENANT_SECTION = /<section data-tenant="([a-z0-9-]+)">[\s\S]*?\n<\/section>/g;

/**
 * The tenants' sections of the page in `outDir`, in its order (none when there is no page,
 * or it is not one this program wrote): what a `--tenant` run keeps of the other tenants.
 */
export async function writtenTenantSections(outDir: string): Promise<TenantSection[]> {
  const html = await fs.readFile(path.join(outDir, SUMMARY_PAGE_NAME), 'utf8').catch(() => '');
  return [...html.matchAll(TENANT_SECTION)].map((m) => ({ tenant: m[1] as string, html: m[0] }));
}

/** One window's charts, totals, summary reports and outcome (the body of a page or of a tenant's section). */
function summarySection(summary: CallSummary, context: SummaryContext): string {
  const callsChart = barChart(
    summary.days.map((d) => ({
      // A provisional day (read before it ended) is marked: its bar may still grow.
      label: d.provisional ? `${d.dt.slice(5)}*` : d.dt.slice(5),
      value: d.calls,
      title: `${d.dt}: ${formatCount(d.calls)} calls${d.provisional ? ' so far (provisional: the day had not ended when it was read)' : ''}`,
    })),
    {
      id: 'calls-per-day',
      label: 'Calls per day',
      formatTick: (v) => formatCount(v),
      formatValue: (v) => formatCount(Math.round(v)),
    },
  );
  const rateChart = barChart(
    summary.days.map((d) => ({
      label: d.dt.slice(5),
      value: d.answerRate,
      title: `${d.dt}: ${percent(d.answerRate)} answered (${formatCount(d.answered)} of ${formatCount(d.calls)})`,
    })),
    {
      id: 'answer-rate-per-day',
      label: 'Answer rate per day',
      max: 1,
      formatTick: (v) => `${Math.round(v * 100)} %`,
      formatValue: (v) => `${Math.round(v * 100)}%`,
    },
  );
  const heat = heatmap(
    summary.heatmap.map((c) => ({
      row: c.weekday - 1,
      column: c.hour,
      value: c.calls,
      title: `${WEEKDAYS[c.weekday - 1]} ${String(c.hour).padStart(2, '0')}:00: ${formatCount(c.calls)} calls`,
    })),
    {
      id: 'weekday-hour',
      label: 'Calls by weekday and hour',
      rows: WEEKDAYS,
      columns: Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')),
      rowTitle: 'weekday',
      columnTitle: `hour of day (local time${context.timeZone === undefined ? '' : `, ${context.timeZone}`})`,
      formatValue: (v) => formatCount(v),
    },
  );
  const answered = summary.days.reduce((n, d) => n + d.answered, 0);
  const reports = context.reports ?? [];
  const callReports = reports.filter((r) => r.dataset === 'calls');
  const nameOf = (id: string) => reports.find((r) => r.reportId === id)?.reportName ?? id;
  const covered =
    reports.length === 0
      ? ''
      : `<p class="meta">Calls of ${callReports.length === 0 ? 'no call-list report' : callReports.map((r) => `&ldquo;${escapeHtml(r.reportName)}&rdquo;`).join(', ')}: a call none of them lists is not counted here (a &ldquo;Lost calls&rdquo; report alone shows no answered call).</p>`;
  const summaries =
    (context.summaryReports ?? []).length === 0
      ? ''
      : `<h2>Summary reports (table summaries)</h2>
<table><thead><tr><th>report</th><th>days</th><th>rows</th><th>ans</th><th>ref</th><th>lost</th></tr></thead><tbody>
${(context.summaryReports ?? [])
  .map(
    (s) =>
      `<tr><td>${escapeHtml(nameOf(s.reportId))}</td><td>${s.days}</td><td>${formatCount(s.rows)}</td><td>${formatCount(s.ans)}</td><td>${formatCount(s.ref)}</td><td>${formatCount(s.lost)}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
<p class="meta">Their rows are the service's totals (per user ...) for each local day, not calls: they are not in the charts above.</p>`;
  const outcome = outcomeSection(context.outcome);
  const contacts = contactsSection(context.contacts);
  return `<p class="meta">${escapeHtml(summary.from)} to ${escapeHtml(summary.to)} (local dates${context.timeZone === undefined ? '' : ` in ${escapeHtml(context.timeZone)}`}) &middot; generated ${escapeHtml(context.generatedAt)}</p>
${covered}
<dl>
  <dt>Calls</dt><dd>${formatCount(summary.calls)}</dd>
  <dt>Answered</dt><dd>${formatCount(answered)} (${percent(summary.calls === 0 ? null : answered / summary.calls)})</dd>
</dl>
<h2>Calls per day</h2>
${callsChart}
<h2>Answer rate per day</h2>
${rateChart}
<h2>Calls by weekday and hour (local time of the call's start${context.timeZone === undefined ? '' : `, ${escapeHtml(context.timeZone)}`})</h2>
${heat}
<p class="meta">A call is counted once across reports (by conn_id); answered means ans = 1.</p>
${summaries}
${contacts}
${outcome}`;
}

/** The directories the run synced and the calls a contact matched; empty when it synced none. */
function contactsSection(contacts: SummaryContext['contacts']): string {
  if (contacts === undefined) return '';
  const { sync, matches } = contacts;
  const matched =
    matches === undefined || matches.share === null
      ? ''
      : `\n  <dt>Calls matched</dt><dd>${formatCount(matches.matched)} of ${formatCount(matches.externalCalls)} external calls (${percent(matches.share)})</dd>`;
  return `<h2 id="contacts">Contacts</h2>
<dl>
  <dt>Directories</dt><dd>${sync.directories} (${escapeHtml(sync.status)}${sync.failed > 0 ? `, ${sync.failed} failed` : ''}${sync.held > 0 ? `, ${sync.held} held` : ''})</dd>
  <dt>Items</dt><dd>${formatCount(sync.items)}</dd>
  <dt>This run</dt><dd>${formatCount(sync.newVersions)} new versions, ${formatCount(sync.closedVersions)} closed, ${formatCount(sync.deletions)} deletions</dd>${matched}
</dl>
<p class="meta">Every version of every item is in the contacts table (valid_from, valid_to, is_current, is_deleted), its numbers in contact_phones; calls_with_contacts gives each call the contact whose number it had.${sync.error === null ? '' : ` Error: ${escapeHtml(sync.error)}`}</p>`;
}

/** The self-contained page around `body`. */
function summaryDocument(rawTitle: string, body: string): string {
  const title = escapeHtml(rawTitle);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 780px; color: #1b2733; padding: 0 1rem; }
  h1 { font-size: 1.4rem; margin-bottom: .2rem; } h2, h3 { font-size: 1.05rem; margin: 2rem 0 .4rem; }
  section > h2 { font-size: 1.25rem; border-top: 1px solid #e3e8ee; padding-top: 1rem; }
  p.meta { color: #5b6b7a; margin-top: 0; }
  svg { width: 100%; height: auto; background: #fff; }
  .bar { fill: #2f6fb5; } [data-chart="answer-rate-per-day"] .bar { fill: #2e8b57; }
  .grid { stroke: #e3e8ee; } .tick, .label, .value { font-size: 11px; fill: #5b6b7a; } .value { fill: #1b2733; }
  dl { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
  dt { color: #5b6b7a; } dd { margin: 0; }
  table { border-collapse: collapse; } th, td { padding: .15rem .6rem; text-align: right; } th:first-child, td:first-child { text-align: left; }
</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;
}

/** The held partitions (both counts) and partial days of the run; empty when there are none. */
function outcomeSection(outcome: RunOutcome | undefined): string {
  if (outcome === undefined) return '';
  const parts: string[] = [];
  if (outcome.heldPartitions > 0) {
    const unlisted = outcome.heldPartitions - outcome.held.length;
    const cells = (h: HeldReportPartition) =>
      h.basis === 'calls'
        ? `<td>${formatCount(h.publishedCalls)} calls (${formatCount(h.publishedRows)} rows)</td><td>${formatCount(h.calls)} calls (${formatCount(h.rows)} rows)</td>`
        : `<td>${formatCount(h.publishedRows)} rows</td><td>${formatCount(h.rows)} rows</td>`;
    parts.push(`<h2 id="held">Held days (${outcome.heldPartitions})</h2>
<table><thead><tr><th>day</th><th>report</th><th>published (kept)</th><th>this run</th></tr></thead><tbody>
${outcome.held.map((h) => `<tr><td>${escapeHtml(h.dt)}</td><td>${escapeHtml(h.reportName)}</td>${cells(h)}</tr>`).join('\n')}
</tbody></table>
<p class="meta">The shrink guard kept these published partitions: this run had far fewer rows (a summary: calls) than the lake holds. The page shows what the lake holds; run again with --force-replace to replace them.${unlisted > 0 ? ` ${unlisted} more are listed in the run records.` : ''}</p>`);
  }
  if (outcome.partialDays.length > 0) {
    parts.push(`<h2 id="partial">Provisional days</h2>
<p class="meta">Exported before the day ended in the tenant's zone: their rows carry provisional = true until a run after the day ends (the nightly run, or a refresh after midnight) settles them: ${outcome.partialDays.map((d) => `${escapeHtml(d.dt)} (calls up to ${escapeHtml(d.cutOff)})`).join(', ')}.</p>`);
  }
  return parts.join('\n');
}

/** Writes the page into `outDir` (atomically: a reader never sees half a page); returns its path. */
export async function writeSummaryPage(outDir: string, html: string): Promise<string> {
  const file = path.join(outDir, SUMMARY_PAGE_NAME);
  const temp = `${file}.${process.pid}.tmp`;
  await fs.mkdir(outDir, { recursive: true });
  await fs.writeFile(temp, html);
  await fs.rename(temp, file);
  return file;
}
