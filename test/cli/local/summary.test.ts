import { describe, expect, it } from 'vitest';
import type { CallSummary } from '../../../lib/cli/commands/local/call-summary';
import type { TenantExportResult } from '../../../lib/cli/commands/local/export';
import { ExportProgressTracker } from '../../../lib/cli/commands/local/progress';
import { rowsTable } from '../../../lib/cli/commands/local/report';
import { renderSummaryPage } from '../../../lib/cli/commands/local/summary-page';
import { roundAxis } from '../../../lib/cli/commands/local/svg-charts';
import type { RunOutcome } from '../../../lib/cli/shared/run-outcome';
import type { Job } from '../../../lib/workflow/plan';

function summary(days: number): CallSummary {
  const list = Array.from({ length: days }, (_, i) => ({
    dt: `2026-03-${String(i + 1).padStart(2, '0')}`,
    calls: i === 2 ? 0 : 10 + i,
    answered: i === 2 ? 0 : 5,
    answerRate: i === 2 ? null : 5 / (10 + i),
    avgTalkSeconds: i === 2 ? null : 120,
    // The last day was read before it ended (today so far).
    provisional: i === days - 1,
  }));
  const heatmap = [];
  for (let weekday = 1; weekday <= 7; weekday++) {
    for (let hour = 0; hour < 24; hour++) heatmap.push({ weekday, hour, calls: weekday * hour });
  }
  return { from: list[0]?.dt ?? '', to: list.at(-1)?.dt ?? '', days: list, heatmap, calls: 100 };
}

/** 'By user' on 2026-03-02, held: 400 rows published, 100 this run. */
const HELD_BY_USER = {
  dt: '2026-03-02',
  basis: 'rows',
  publishedRows: 400,
  rows: 100,
  reportId: 'a',
  reportName: 'By user',
} as const;

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

describe('renderSummaryPage', () => {
  it('lists every held day with its report and both counts, and the partial days, when the run held some', () => {
    // Prepare
    const outcome = {
      heldPartitions: 2,
      held: [
        HELD_BY_USER,
        {
          dt: '2026-03-02',
          basis: 'calls',
          publishedRows: 12,
          rows: 12,
          publishedCalls: 361,
          calls: 88,
          reportId: 's',
          reportName: 'Summary <by user>',
        },
      ],
      partialDays: [{ dt: '2026-03-10', cutOff: '2026-03-10T14:00:00.000Z' }],
    } satisfies RunOutcome;

    // Act
    const html = renderSummaryPage(summary(10), { title: 'Calls', generatedAt: 'now', outcome });

    // Assess
    expect(html).toContain('<h2 id="held">Held days (2)</h2>');
    expect(html).toContain('<tr><td>2026-03-02</td><td>By user</td><td>400 rows</td><td>100 rows</td></tr>');
    expect(html).toContain(
      '<tr><td>2026-03-02</td><td>Summary &#60;by user&#62;</td><td>361 calls (12 rows)</td><td>88 calls (12 rows)</td></tr>',
    );
    expect(html).toContain('<h2 id="partial">Provisional days</h2>');
    expect(html).toContain('2026-03-10 (calls up to 2026-03-10T14:00:00.000Z)');
  });

  it('marks a provisional day in the calls chart, its bar labelled and titled as so far', () => {
    // Act
    const html = renderSummaryPage(summary(4), { title: 'Calls', generatedAt: 'now' });

    // Assess: only the last day (read before it ended) is marked.
    const at = html.indexOf('<svg data-chart="calls-per-day"');
    const chart = html.slice(at, html.indexOf('</svg>', at));
    expect(chart).toContain('2026-03-04: 13 calls so far (provisional');
    expect(chart).toContain('03-04*');
    expect(chart).not.toContain('03-02*');
    expect(chart).not.toContain('2026-03-02: 11 calls so far');
  });

  it('has no held or partial section when the run held nothing', () => {
    // Act
    const html = renderSummaryPage(summary(3), {
      title: 'Calls',
      generatedAt: 'now',
      outcome: { heldPartitions: 0, held: [], partialDays: [] },
    });

    // Assess
    expect(html).not.toContain('Held days');
    expect(html).not.toContain('Provisional days');
  });

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

  it('names the call-list reports it counts and lists the summary reports apart when both are exported', () => {
    // Act: a 'Lost calls' export alone answers nothing: the page must say what it covers.
    const html = renderSummaryPage(summary(3), {
      title: 'Calls',
      generatedAt: 'now',
      reports: [
        { reportId: 'r-lost', reportName: 'Lost calls', dataset: 'calls' },
        { reportId: 'r-sum', reportName: 'Summary <by> user', dataset: 'summaries' },
      ],
      summaryReports: [{ reportId: 'r-sum', days: 3, rows: 12, ans: 30, ref: 2, lost: 7 }],
    });

    // Assess
    expect(html).toMatch(/Calls of &ldquo;Lost calls&rdquo;: a call none of them lists is not counted here/);
    expect(html).not.toMatch(/Calls of [^<]*Summary/);
    expect(html).toContain('<h2>Summary reports (table summaries)</h2>');
    expect(html).toContain(
      '<tr><td>Summary &#60;by&#62; user</td><td>3</td><td>12</td><td>30</td><td>2</td><td>7</td></tr>',
    );
  });

  it('names the time zone, writes each value above its bar, titles the heatmap axes and draws its legend', () => {
    // Act
    const html = renderSummaryPage(summary(3), {
      title: 'Calls',
      generatedAt: 'now',
      timeZone: 'Europe/London',
    });

    // Assess
    expect(html).toContain('(local dates in Europe/London)');
    expect(html).toContain("Calls by weekday and hour (local time of the call's start, Europe/London)");
    // (The page's style names the charts too: slice from the svg elements.)
    const calls = html.slice(
      html.indexOf('<svg data-chart="calls-per-day"'),
      html.indexOf('<svg data-chart="answer-rate'),
    );
    expect([...calls.matchAll(/<text class="value"[^>]*>([^<]*)</g)].map((m) => m[1])).toEqual([
      '10',
      '11',
      '0',
    ]);
    const heat = html.slice(html.indexOf('<svg data-chart="weekday-hour"'));
    expect(heat).toContain('>weekday<');
    expect(heat).toContain('>hour of day (local time, Europe/London)<');
    expect(heat.match(/<rect class="legend"/g)).toHaveLength(5);
    // The legend runs from 0 to the busiest cell (7 x 23 = 161 calls).
    expect([...heat.matchAll(/<text class="tick"[^>]*>([^<]*)</g)].map((m) => m[1])).toEqual([
      '0',
      '40',
      '81',
      '121',
      '161',
    ]);
  });

  it.each([
    [13, 15, [0, 3, 6, 9, 12, 15]],
    [100, 100, [0, 25, 50, 75, 100]],
    [1234, 1500, [0, 300, 600, 900, 1200, 1500]],
    [0.7, 0.8, [0, 0.2, 0.4, 0.6, 0.8]],
  ])('rounds an axis up to %d -> top %d with round ticks', (max, top, ticks) => {
    expect(roundAxis(max)).toEqual({ top, ticks });
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
  /** A report with rows on both days. */
  const LOST = {
    reportId: 'b',
    reportName: 'Lost',
    rows: 3,
    files: 2,
    days: [
      { dt: '2026-03-01', rows: 3 },
      { dt: '2026-03-02', rows: 0 },
    ],
  };

  it('prints a row per date, a column per report and the totals when reports share dates', () => {
    // Prepare
    const result = {
      rows: 1005,
      dates: { from: '2026-03-01', to: '2026-03-02' },
      held: [],
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
        LOST,
      ],
    } as unknown as TenantExportResult;

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

  it('prints a row for every day of the window when a day has no partition of this run', () => {
    // Prepare: 2026-03-03 and 2026-03-04 published nothing here (held beyond the listed ones, or no calls).
    const result = {
      rows: 3,
      dates: { from: '2026-03-01', to: '2026-03-04' },
      held: [],
      reports: [LOST],
    } as unknown as TenantExportResult;

    // Act
    const text = rowsTable(result);

    // Assess
    expect(text.split('\n').map((l) => l.slice(0, 10))).toEqual([
      'date      ',
      '----------',
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      'total     ',
      '',
    ]);
  });

  it('prints the published rows of a held day, marked held, and counts them in the totals when the shrink guard held it', () => {
    // Prepare: 'By user' on 2026-03-02 was held (published 400 rows, this run had 100).
    const result = {
      rows: 1003,
      dates: { from: '2026-03-01', to: '2026-03-02' },
      held: [HELD_BY_USER],
      reports: [
        {
          reportId: 'a',
          reportName: 'By user',
          rows: 1000,
          files: 2,
          days: [{ dt: '2026-03-01', rows: 1000 }],
        },
        LOST,
      ],
    } as unknown as TenantExportResult;

    // Act
    const text = rowsTable(result);

    // Assess
    expect(text).toBe(
      [
        'date         By user  Lost  all reports',
        '----------  --------  ----  -----------',
        '2026-03-01     1,000     3        1,003',
        '2026-03-02  400 held     0          400',
        'total          1,400     3        1,403',
        '',
      ].join('\n'),
    );
  });
});
