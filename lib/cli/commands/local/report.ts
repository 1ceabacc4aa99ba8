import * as path from 'node:path';
import { describeHeld, type RunOutcome } from '../../shared/run-outcome';
import { colors, formatCount, renderTable, type TerminalStream } from '../../shared/terminal';
import type { CallSummary } from './call-summary';
import { type ContactMatches, describeContacts } from './contacts-summary';
import type { LocalExportResult, TenantExportResult } from './export';

const DAY_MS = 86_400_000;

/** The calendar dates `from` to `to` inclusive (YYYY-MM-DD). */
function datesFromTo(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    dates.push(new Date(t).toISOString().slice(0, 10));
  }
  return dates;
}

/**
 * The table of rows per day (rows) and report (columns), with totals: what the lake holds
 * for the window, this run's rows, and for a day the shrink guard held, its published rows,
 * marked `held`.
 */
export function rowsTable(result: Pick<TenantExportResult, 'dates' | 'reports' | 'held'>): string {
  // Every day of the window, whether this run published it, held it, or found nothing.
  const dates = [
    ...new Set([
      ...datesFromTo(result.dates.from, result.dates.to),
      ...result.reports.flatMap((r) => r.days.map((d) => d.dt)),
      ...result.held.map((h) => h.dt),
    ]),
  ].sort();
  const header = (name: string, i: number) =>
    result.reports.some((r, j) => j !== i && r.reportName === name) ? `${name} (${i + 1})` : name;
  type Row = Record<string, string>;
  const columnTotals = result.reports.map(() => 0);
  const rows: Row[] = dates.map((dt) => {
    const row: Row = { dt };
    let total = 0;
    result.reports.forEach((r, i) => {
      const held = result.held.find((h) => h.reportId === r.reportId && h.dt === dt);
      const n = held?.publishedRows ?? r.days.find((d) => d.dt === dt)?.rows ?? 0;
      row[`r${i}`] = held === undefined ? formatCount(n) : `${formatCount(n)} held`;
      total += n;
      columnTotals[i] = (columnTotals[i] ?? 0) + n;
    });
    row.total = formatCount(total);
    return row;
  });
  const totals: Row = { dt: 'total', total: formatCount(columnTotals.reduce((a, b) => a + b, 0)) };
  columnTotals.forEach((n, i) => {
    totals[`r${i}`] = formatCount(n);
  });
  rows.push(totals);
  return renderTable(rows, [
    { key: 'dt', header: 'date' },
    ...result.reports.map((r, i) => ({
      key: `r${i}`,
      header: header(r.reportName, i),
      align: 'right' as const,
    })),
    { key: 'total', header: 'all reports', align: 'right' },
  ]);
}

/** The held partitions and partial days, under the table (nothing when there are none). */
function outcomeLines(result: RunOutcome, bold: (text: string) => string): string[] {
  const lines: string[] = [];
  if (result.heldPartitions > 0) {
    lines.push(
      `${bold('Held')} (the shrink guard kept the published partition: this run had far fewer rows, or calls; --force-replace replaces it)`,
      ...result.held.map((h) => `  ${describeHeld(h)}`),
    );
    const unlisted = result.heldPartitions - result.held.length;
    if (unlisted > 0) lines.push(`  ... and ${unlisted} more (see the run records)`);
    lines.push('');
  }
  if (result.partialDays.length > 0) {
    lines.push(
      `${bold('Provisional days')} (exported before the day ended: provisional = true until a run after it ends settles it)`,
      ...result.partialDays.map((d) => `  ${d.dt}  calls up to ${d.cutOff}`),
      '',
    );
  }
  return lines;
}

/** The sample query's answer as a table. */
function perDayTable(summary: CallSummary): string {
  return renderTable(
    summary.days.map((d) => ({
      // A day read before it ended (today so far): its calls may still grow.
      dt: d.provisional ? `${d.dt} (provisional)` : d.dt,
      calls: formatCount(d.calls),
      answered: d.answerRate === null ? '-' : `${(d.answerRate * 100).toFixed(1)} %`,
      talk: d.avgTalkSeconds === null ? '-' : `${d.avgTalkSeconds.toFixed(0)} s`,
    })),
    [
      { key: 'dt', header: 'date' },
      { key: 'calls', align: 'right' },
      { key: 'answered', align: 'right' },
      { key: 'talk', header: 'avg talk time', align: 'right' },
    ],
  );
}

/** What {@link renderLocalExportReport} reads back: each tenant's calls per day, and the summary page. */
export interface LocalReadBack {
  /** By tenant id (a tenant that failed has none). */
  summaries: ReadonlyMap<string, CallSummary>;
  /** By tenant id: the window's external calls a contact matched (a tenant that synced none has none). */
  matches: ReadonlyMap<string, ContactMatches>;
  page: string;
}

/** One tenant's part of the report: its window, its rows per day and report, held and partial days, where its reports are. */
function tenantSection(
  t: TenantExportResult,
  result: LocalExportResult,
  c: ReturnType<typeof colors>,
  matches: ContactMatches | undefined,
): string[] {
  const contacts =
    t.contacts === null
      ? []
      : [
          `${c.bold(`Contacts: ${t.tenant}`)} ${describeContacts(t.contacts, matches)}`,
          ...(t.contacts.error === null ? [] : [`  ${c.red(t.contacts.error)}`]),
          '',
        ];
  // --contacts only: the directories alone, no report.
  if (result.contactsOnly) {
    const verdict = t.status === 'SUCCEEDED' ? c.green('synced its contact directories') : c.red('FAILED');
    return [
      `${c.bold(`Tenant ${t.tenant}`)} (${t.tenantName}, ${t.timeZone}): ${verdict}`,
      ...(t.status === 'SUCCEEDED' ? [] : [`  ${c.red(t.error ?? 'error')}${t.cause ? `: ${t.cause}` : ''}`]),
      '',
      ...contacts,
      ...t.runRecords.map((key) => `  Run       ${path.join(result.outDir, key)}`),
      '',
    ];
  }
  const verdict = t.status === 'SUCCEEDED' ? c.green('exported') : c.red('FAILED');
  const nameWidth = Math.max(0, ...t.reports.map((r) => r.reportName.length));
  const layout = result.tables.length > 0 ? 'csv' : '*';
  return [
    `${c.bold(`Tenant ${t.tenant}`)} (${t.tenantName}, ${t.timeZone}): ${verdict} ${formatCount(t.rows)} rows of ${t.reports.length} report(s), ${t.dates.from} .. ${t.dates.to}`,
    ...(t.status === 'SUCCEEDED' ? [] : [`  ${c.red(t.error ?? 'error')}${t.cause ? `: ${t.cause}` : ''}`]),
    '',
    c.bold(`Rows per day and report: ${t.tenant}`),
    rowsTable(t),
    ...outcomeLines(t, c.bold),
    ...contacts,
    // Each report's dataset: calls, or summaries for a report whose rows have no start.
    ...t.reports.map(
      (r) =>
        `  ${r.reportName.padEnd(nameWidth)}  ${r.dataset}/format=${layout}/tenant=${t.tenant}/report_id=${r.reportId}`,
    ),
    ...t.runRecords.map((key) => `  Run       ${path.join(result.outDir, key)}`),
    `  Secret    ${t.secretFile} (mode 0600)`,
    '',
  ];
}

/** What `npm start` prints on stdout when done: a section per tenant, the files, each tenant's calls per day. */
export function renderLocalExportReport(
  result: LocalExportResult,
  readBack: LocalReadBack | undefined,
  context: { seconds: number; out: TerminalStream; env: Readonly<Record<string, string | undefined>> },
): string {
  const c = colors(context.out, context.env);
  const example = (format: 'parquet' | 'csv', ext: string) =>
    path.join(
      result.outDir,
      '<dataset>',
      `format=${format}`,
      'tenant=<tenant>',
      'report_id=<id>',
      'dt=<date>',
      `part-00000.${ext}`,
    );
  const verdict =
    result.status === 'SUCCEEDED'
      ? c.green('Exported')
      : c.red(`Export FAILED for ${result.failedTenants.join(', ')}; exported`);
  if (result.contactsOnly) {
    const synced =
      result.status === 'SUCCEEDED'
        ? c.green('Synced')
        : c.red(`Contacts sync FAILED for ${result.failedTenants.join(', ')}; synced`);
    return [
      '',
      `${synced} the contact directories of ${result.tenants.length} tenant(s) into one lake, in ${context.seconds.toFixed(1)} s`,
      '',
      ...result.tenants.flatMap((t) => tenantSection(t, result, c, readBack?.matches.get(t.tenant))),
      `More: report-export query --dir ${result.outDir} "SELECT tenant, directory_name, count(*) FILTER (WHERE is_current AND NOT is_deleted) AS items FROM contacts GROUP BY ALL"`,
      '',
    ].join('\n');
  }
  const lines = [
    '',
    `${verdict} ${c.bold(formatCount(result.rows))} rows of ${result.tenants.reduce((n, t) => n + t.reports.length, 0)} report(s) of ${result.tenants.length} tenant(s) into one lake, in ${context.seconds.toFixed(1)} s`,
    '',
    ...result.tenants.flatMap((t) => tenantSection(t, result, c, readBack?.matches.get(t.tenant))),
    c.bold('Files'),
    // The Parquet: Iceberg tables (what query reads), or the Hive layout (TABLE_CATALOG=hive).
    ...(result.tables.length > 0
      ? [`  Iceberg tables: ${result.tables.join(', ')} (report-export tables snapshots)`]
      : [`  Parquet   ${example('parquet', 'parquet')}`]),
    `  CSV       ${example('csv', result.csvExtension)}`,
    ...(readBack === undefined ? [] : [`  Summary   ${readBack.page}`]),
    `  Tenants   ${path.join(result.stateDir, 'tenants')} (the local registry: one <id>.json per tenant)`,
    '',
  ];
  for (const t of result.tenants) {
    const summary = readBack?.summaries.get(t.tenant);
    if (summary === undefined) continue;
    lines.push(
      c.bold(`Calls per day: ${t.tenant}`) +
        c.dim(
          result.tables.length > 0
            ? ` (${t.timeZone}; DuckDB over the calls table's current snapshot, tenant = '${t.tenant}'; a call once across reports; answered: ans = 1)`
            : ` (${t.timeZone}; DuckDB over the files just written; a call once across reports; answered: ans = 1)`,
        ),
      perDayTable(summary),
      '',
    );
  }
  if (readBack !== undefined) {
    lines.push(
      `More: report-export query --dir ${result.outDir} "SELECT tenant, dt, count(*) FROM calls GROUP BY ALL ORDER BY ALL"`,
      '',
    );
  }
  return lines.join('\n');
}
