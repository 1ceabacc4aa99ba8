import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process';
import { childPids, childrenLeft } from './child-processes';

/**
 * The program's `main` in this process (test/support/cli-in-process.ts): what the built
 * program prints and exits with, without a process per test. The built program runs a
 * local export end to end in checks.test.ts (--json) and interrupt.test.ts.
 */
describe('report-export (default command: npm start)', () => {
  let work: string;
  let children: Set<number>;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'start-cli-'));
  });

  beforeEach(async () => {
    children = await childPids();
  });

  afterEach(async () => {
    // The functions' processes a run started here are its children: every one has ended.
    expect(await childrenLeft(children)).toEqual([]);
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const cli = (argv: string[]) => runInProcess(argv, { cwd: work });
  /** Runs into `lake` over `window` with a number of rows per day (and more options), each lake its own login. */
  const runsInto =
    (lake: string, window: string[]) =>
    (rows: string, ...extra: string[]) =>
      cli([
        ...extra,
        ...window,
        '--rows-per-day',
        rows,
        '--out',
        lake,
        '--secrets-file',
        `${lake}.secrets.json`,
      ]);

  it('prints the help with its options and an example and exits 0 when given --help', async () => {
    // Act
    const run = await cli(['--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: report-export <command> \[options\].*\n\nCommands:/);
    for (const name of ['local', 'query', 'runs', 'sim'])
      expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(run.stdout).toContain('--rows-per-day <n>');
    expect(run.stdout).toMatch(/Examples:\n {2}report-export\n/);
  });

  it.each([
    [['--rows-per-day', '0'], /--rows-per-day must be a positive integer \(1 to 1000000\), got '0'/],
    [['--from', '2026-02-30'], /--from must be a calendar date YYYY-MM-DD, got '2026-02-30'/],
    [['--to', 'yesterday'], /--to must be a calendar date/],
    [['--from', '2026-03-10', '--to', '2026-03-01'], /--from 2026-03-10 is after --to 2026-03-01/],
    [['--bogus'], /unknown option '--bogus'/],
    [['--out'], /--out needs a value <dir>/],
    [['local', 'extra'], /unexpected argument 'extra'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('exits 2 with a message naming the problem when argv is %j', async (argv, message) => {
    // Act
    const run = await cli(argv);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/\[CLI_USAGE\]/);
    expect(run.stdout).toBe('');
  });

  it('exits 2 naming --report before any report runs when the report is not in the workspace', async () => {
    // Act
    const run = await cli([
      '--report',
      'No such report',
      '--out',
      path.join(work, 'lake-x'),
      '--secrets-file',
      path.join(work, 's-x.json'),
    ]);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--report 'No such report' is not a report of tenant [a-z-]+'s workspace/);
    expect(run.stderr).not.toMatch(/requested/);
  });

  it('prints one JSON document whose counts add up when given --json, one tenant and one report by name', async () => {
    // Act
    const run = await cli([
      '--json',
      '--tenant',
      'new-york',
      '--report',
      'Lost calls',
      '--from',
      '2026-03-02',
      '--to',
      '2026-03-03',
      '--rows-per-day',
      '200',
      '--csv-gzip',
      '--out',
      path.join(work, 'lake-json'),
      '--secrets-file',
      path.join(work, 's-json.json'),
    ]);

    // Assess
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      status: string;
      rows: number;
      csvExtension: string;
      tenants: {
        tenant: string;
        timeZone: string;
        reports: { reportName: string; rows: number; days: { dt: string; rows: number }[] }[];
        perDay: { dt: string; calls: number; answered: number }[];
      }[];
      summaryPage: string;
    };
    expect(doc.status).toBe('SUCCEEDED');
    expect(doc.csvExtension).toBe('csv.gz');
    expect(doc.tenants.map((t) => [t.tenant, t.timeZone])).toEqual([['new-york', 'America/New_York']]);
    const [tenant] = doc.tenants;
    expect(tenant?.reports.map((r) => r.reportName)).toEqual(['Lost calls']);
    const [lost] = tenant?.reports ?? [];
    expect(lost?.days.map((d) => d.dt)).toEqual(['2026-03-02', '2026-03-03']);
    expect(lost?.rows).toBe(lost?.days.reduce((n, d) => n + d.rows, 0));
    expect(doc.rows).toBe(lost?.rows);
    // Only lost calls were exported: none of them is answered.
    expect(tenant?.perDay.map((d) => d.calls)).toEqual(lost?.days.map((d) => d.rows));
    expect(tenant?.perDay.every((d) => d.answered === 0)).toBe(true);
    expect(doc.summaryPage).toBe(path.join(work, 'lake-json', 'summary.html'));
  });

  it('names the held day with both counts in its warning, JSON and summary page, and exits 3, when a run has far fewer rows than the lake', async () => {
    // Prepare: a day published with 400 calls a day, then exported with 100 (the table's
    // held cells: rowsTable's test).
    const lake = path.join(work, 'lake-held');
    const run = runsInto(lake, [
      '--tenant',
      'london',
      '--report',
      'Call list by user',
      '--from',
      '2026-03-04',
      '--to',
      '2026-03-04',
    ]);
    const first = await run('400', '--json');

    // Act
    const second = await run('100', '--json');

    // Assess
    expect(first.code).toBe(0);
    const published = (JSON.parse(first.stdout) as { rows: number }).rows;
    expect(second.code).toBe(3);
    const doc = JSON.parse(second.stdout) as {
      heldPartitions: number;
      tenants: { held: { dt: string; publishedRows: number; rows: number }[] }[];
    };
    expect(doc.heldPartitions).toBe(1);
    const [held] = doc.tenants[0]?.held ?? [];
    expect(held?.dt).toBe('2026-03-04');
    expect(held?.publishedRows).toBe(published);
    expect(held?.rows).toBeLessThan(published);
    expect(second.stderr).toMatch(/the shrink guard held 1 partition/);
    expect(second.stderr).toContain(
      `2026-03-04 "Call list by user": kept the published ${published} rows; this run had ${held?.rows}`,
    );
    const page = await readFile(path.join(lake, 'summary.html'), 'utf8');
    expect(page).toContain('<h3 id="held">Held days (1)</h3>');
    expect(page).toContain(`<td>2026-03-04</td><td>Call list by user</td><td>${published} rows</td>`);
  }, 120_000);

  it('lists every held day of the window, in the table from the lake, and replaces them given --force-replace, when more than 20 partitions are held', async () => {
    // Prepare: the default 7 days of every report (a summary among them) published with 40
    // calls a day, then exported with 10: 35 partitions held, more than Finalize's output lists.
    const lake = path.join(work, 'lake-held-all');
    const run = runsInto(lake, ['--tenant', 'london', '--to', '2026-03-08']);
    const first = await run('40', '--json');
    const dates = [
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
    ];

    // Act
    const second = await run('10');
    const page = await readFile(path.join(lake, 'summary.html'), 'utf8');
    const forced = await run('10', '--json', '--force-replace');

    // Assess
    expect(first.code).toBe(0);
    const published = JSON.parse(first.stdout) as {
      rows: number;
      tenants: {
        reports: {
          reportName: string;
          dataset: string;
          reportId: string;
          days: { dt: string; rows: number }[];
        }[];
      }[];
    };
    const reports = published.tenants[0]?.reports ?? [];
    expect(second.code).toBe(3);
    const heldLines = second.stdout.split('\n').filter((l) => /^ {2}\d{4}-\d{2}-\d{2} "/.test(l));
    // The run's total (the end's warning; each job's mid-run warning counts its own window).
    const heldCount = Number(
      /the shrink guard held (\d+) partition\(s\): the lake keeps/.exec(second.stderr)?.[1],
    );
    expect(heldCount).toBeGreaterThan(20);
    expect(heldLines).toHaveLength(heldCount);
    expect(second.stdout).not.toContain('more (see the run records)');
    expect(second.stderr).not.toContain('more (the run records');
    // Every day of the window is a row of the table, and its total is what the lake holds.
    for (const dt of dates) expect(second.stdout).toMatch(new RegExp(`^ *${dt} .*held`, 'm'));
    const heldKeys = new Set(heldLines.map((l) => l.trim().replace(/": .*/, '"')));
    const replaced = reports.flatMap((r) =>
      r.days.filter((d) => !heldKeys.has(`${d.dt} "${r.reportName}"`)).map((d) => d.rows),
    );
    const lakeRows =
      published.rows -
      replaced.reduce((a, b) => a + b, 0) +
      Number(/Exported (\d+) rows/.exec(second.stdout)?.[1]);
    expect(second.stdout).toMatch(new RegExp(`^ *total .* ${lakeRows.toLocaleString('en-US')} *$`, 'm'));
    // The summary report's files are in its dataset, though this run wrote none: its CSV
    // beside the lake's Iceberg tables.
    const summary = reports.find((r) => r.dataset === 'summaries');
    expect(summary).toBeDefined();
    expect(second.stdout).toMatch(
      new RegExp(`${summary?.reportName} +summaries/format=csv/tenant=london/report_id=${summary?.reportId}`),
    );
    expect(second.stdout).toMatch(
      /^ {2}Iceberg tables: \S+\/tables\/calls, \S+\/tables\/summaries, \S+\/tables\/contacts, \S+\/tables\/contact_phones \(/m,
    );
    // The mid-run warning names each held day with both counts.
    // The mid-run warning names each held day with its report and both counts (as the end's does).
    for (const line of heldLines) expect(second.stderr.split(`  held ${line.trim()}\n`)).toHaveLength(3);
    expect(page).toContain(`<h3 id="held">Held days (${heldCount})</h3>`);
    expect(page.match(/<tr><td>2026-03-0\d<\/td>/g)).toHaveLength(heldCount);
    expect(page).not.toContain('more are listed in the run records');
    expect(forced.code).toBe(0);
    expect((JSON.parse(forced.stdout) as { heldPartitions: number }).heldPartitions).toBe(0);
  }, 240_000);
});
