import { describe, expect, it } from 'vitest';
import type { CallSummary } from '../../lib/cli/call-summary';
import { ExportProgressTracker } from '../../lib/cli/export-progress';
import type { LocalExportResult } from '../../lib/cli/local-export';
import { rowsTable } from '../../lib/cli/local-export-report';
import { renderSummaryPage } from '../../lib/cli/summary-page';
import type { Job } from '../../lib/workflow/plan';

function summary(days: number): CallSummary {
  const list = Array.from({ length: days }, (_, i) => ({
    dt: `2026-03-${String(i + 1).padStart(2, '0')}`,
    calls: i === 2 ? 0 : 10 + i,
    answered: i === 2 ? 0 : 5,
    answerRate: i === 2 ? null : 5 / (10 + i),
    avgTalkSeconds: i === 2 ? null : 120,
  }));
  const heatmap = [];
  for (let weekday = 1; weekday <= 7; weekday++) {
    for (let hour = 0; hour < 24; hour++) heatmap.push({ weekday, hour, calls: weekday * hour });
  }
  return { from: list[0]?.dt ?? '', to: list.at(-1)?.dt ?? '', days: list, heatmap, calls: 100 };
}

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

describe('renderSummaryPage', () => {
  it('draws a bar per day in both charts and 168 heatmap cells when the window has 10 days', () => {
    // Act
    const html = renderSummaryPage(summary(10), { title: 'Calls', generatedAt: 'now' });

    // Assess
    const chart = (id: string) => {
      const at = html.indexOf(`<svg data-chart="${id}"`);
      return at < 0 ? '' : html.slice(at, html.indexOf('</svg>', at));
    };
    expect(count(chart('calls-per-day'), /<rect class="bar"/g)).toBe(10);
    expect(count(chart('answer-rate-per-day'), /<rect class="bar"/g)).toBe(10);
    expect(count(chart('weekday-hour'), /<rect class="cell"/g)).toBe(168);
    // The day without calls keeps its slot with an empty bar and says so.
    expect(chart('answer-rate-per-day')).toContain('2026-03-03: no calls answered');
  });

  it('loads nothing from elsewhere and escapes text when the title holds markup', () => {
    // Act
    const html = renderSummaryPage(summary(3), { title: '<script>alert(1)</script>', generatedAt: 'now' });

    // Assess
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&#60;script&#62;');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });
});

describe('ExportProgressTracker', () => {
  const jobs = [
    { jobId: 'job-0001', reportId: 'r1', reportName: 'By user' },
    { jobId: 'job-0002', reportId: 'r2', reportName: 'Lost calls' },
  ] as Job[];

  it('counts requests, polls, rows and partitions from events and log lines when a run progresses', () => {
    // Prepare
    const logged: string[] = [];
    const tracker = new ExportProgressTracker([jobs], { update: () => {}, log: (l) => logged.push(l) });
    const lines: string[] = [];
    const entered = (name: string) => ({ type: 'StateEntered', state: { name, type: 'Task' } });

    // Act
    lines.push(
      JSON.stringify({ level: 'INFO', message: 'report requested', jobId: 'job-0001', requestId: 'q1' }),
    );
    tracker.onEvent(entered('CheckStatus'), lines);
    lines.push(
      JSON.stringify({ level: 'INFO', message: 'report requested', jobId: 'job-0002', requestId: 'q2' }),
    );
    lines.push(
      JSON.stringify({
        level: 'INFO',
        message: 'exported',
        jobId: 'job-0002',
        rows: 1234,
        partitions: 3,
        done: true,
      }),
    );
    lines.push(JSON.stringify({ level: 'WARN', message: 'Rows dated outside the window were dropped' }));
    tracker.onEvent(entered('CheckStatus'), lines);

    // Assess
    expect(tracker.status()).toBe('2/2 requested, 2 polls, 1/2 exported: 1,234 rows, 3 partitions published');
    expect([...tracker.requestIds]).toEqual(['q1', 'q2']);
    expect(logged).toEqual([
      'By user: requested',
      'Lost calls: requested',
      'Lost calls: 1,234 rows in 3 partitions published',
      'warning: Rows dated outside the window were dropped',
    ]);
  });
});

describe('rowsTable', () => {
  it('prints a row per date, a column per report and the totals when reports share dates', () => {
    // Prepare
    const result = {
      rows: 1005,
      reports: [
        {
          reportId: 'a',
          reportName: 'By user',
          rows: 1002,
          files: 4,
          days: [
            { dt: '2026-03-01', rows: 1000 },
            { dt: '2026-03-02', rows: 2 },
          ],
        },
        {
          reportId: 'b',
          reportName: 'Lost',
          rows: 3,
          files: 2,
          days: [
            { dt: '2026-03-01', rows: 3 },
            { dt: '2026-03-02', rows: 0 },
          ],
        },
      ],
    } as unknown as LocalExportResult;

    // Act
    const text = rowsTable(result);

    // Assess
    expect(text).toBe(
      [
        'date        By user  Lost  all reports',
        '----------  -------  ----  -----------',
        '2026-03-01    1,000     3        1,003',
        '2026-03-02        2     0            2',
        'total         1,002     3        1,005',
        '',
      ].join('\n'),
    );
  });
});
