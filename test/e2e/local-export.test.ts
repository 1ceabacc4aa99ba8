import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveFiles, tableLocation } from '../../lib/export/table';
import { fileCatalogOf, LocalDirectoryStore } from '../../lib/stores';
import { type CliRun, runCli } from '../support/cli-process';
import { duckdbQuery, sqlString } from '../support/duckdb';

/** The tenants of the local service, as `npm start` names them. */
const TENANTS = ['london', 'new-york', 'sydney'];

/** `date -> report name -> rows` from a tenant's "Rows per day and report" table `npm start` prints. */
function printedRows(stdout: string, tenant: string): Map<string, Map<string, number>> {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l === `Rows per day and report: ${tenant}`);
  const header = (lines[at + 1] ?? '').split(/\s{2,}/);
  const out = new Map<string, Map<string, number>>();
  for (const line of lines.slice(at + 3)) {
    if (line.trim() === '') break;
    const [dt, ...counts] = line.trim().split(/\s{2,}/);
    const perReport = new Map<string, number>();
    counts.forEach((n, i) => {
      perReport.set(header[i + 1] as string, Number(n.replaceAll(',', '')));
    });
    out.set(dt as string, perReport);
  }
  return out;
}

/** Report name -> id of a tenant's reports: `  <name>  <dataset>/format=csv/tenant=<tenant>/report_id=<id>`. */
function printedReportIds(stdout: string, tenant: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const m of stdout.matchAll(
    /^ {2}(.+?)\s+(?:calls|summaries)\/format=(?:\*|csv)\/tenant=([a-z0-9-]+)\/report_id=([0-9a-f-]{36})$/gm,
  ))
    if (m[2] === tenant) ids.set(m[1] as string, m[3] as string);
  return ids;
}

/**
 * `tenant|report_id|dt|rows` for every partition with rows, counted by DuckDB from the files
 * of both datasets (calls, and summaries for the summary report), read together by column name.
 */
async function countedByDuckdb(lake: string, format: 'parquet' | 'csv'): Promise<string[]> {
  const glob = path.join(lake, '*', `format=${format}`, '*', '*', '*', `*.${format}`);
  const reader =
    format === 'parquet'
      ? await tablesReader(lake, ['calls', 'summaries'])
      : `read_csv(${sqlString(glob)}, hive_partitioning=true, header=true, union_by_name=true)`;
  const rows = await duckdbQuery(
    `SELECT tenant, report_id, strftime(dt, '%Y-%m-%d') AS dt, count(*)::INTEGER AS n FROM ${reader} GROUP BY ALL`,
  );
  return rows.map((r) => `${r.tenant}|${r.report_id}|${r.dt}|${r.n}`).sort();
}

/**
 * DuckDB's reader of the Iceberg tables' current snapshots: the live data files their
 * metadata lists (the data folders also hold earlier runs' files), read by column name.
 */
async function tablesReader(lake: string, datasets: readonly string[]): Promise<string> {
  const store = new LocalDirectoryStore(lake);
  const files: string[] = [];
  for (const dataset of datasets) {
    const table = {
      catalog: fileCatalogOf({ store, prefix: '' }),
      id: { namespace: '', name: dataset },
      location: tableLocation(store, '', dataset),
    };
    for (const f of (await liveFiles(table)).files) files.push(path.join(lake, f.key));
  }
  return `read_parquet([${files.map(sqlString).join(', ')}], union_by_name=true)`;
}

/** `tenant|report_id|dt|rows` of every partition with rows, as the tables `npm start` printed say. */
function expectedFromOutput(stdout: string): string[] {
  const out: string[] = [];
  for (const tenant of TENANTS) {
    const ids = printedReportIds(stdout, tenant);
    for (const [dt, perReport] of printedRows(stdout, tenant)) {
      if (dt === 'total') continue;
      for (const [name, n] of perReport) {
        // A day without calls is published empty (no data file), so no reader counts it.
        if (name !== 'all reports' && n > 0) out.push(`${tenant}|${ids.get(name)}|${dt}|${n}`);
      }
    }
  }
  return out.sort();
}

describe('npm start (bin/report-export.ts, default command)', () => {
  let work: string;
  let lake: string;
  let first: CliRun;
  let second: CliRun;
  const args = () => [
    '--out',
    lake,
    '--secrets-file',
    path.join(work, 'state', 'secrets.json'),
    '--from',
    '2026-03-27',
    '--to',
    '2026-03-30',
    '--rows-per-day',
    '60',
  ];

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
    lake = path.join(work, 'lake');
    first = await runCli(args(), { timeoutMs: 180_000 });
    second = await runCli(args(), { timeoutMs: 180_000 });
  }, 400_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it.each(TENANTS)(
    'exits 0 and prints rows per report and day of tenant %s for every date of the window when run end to end',
    (tenant) => {
      // Assess
      expect(first.stderr).not.toMatch(/export failed/);
      expect(first.code).toBe(0);
      const table = printedRows(first.stdout, tenant);
      expect([...table.keys()]).toEqual(['2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30', 'total']);
      // Every report of the tenant's workspace: the spec's call lists and the local service's own templates.
      expect([...printedReportIds(first.stdout, tenant).keys()].sort()).toEqual([
        'Call list by hunt group',
        'Call list by user',
        'Call list with details',
        'Lost calls',
        'Summary by user',
      ]);
      expect(first.stdout).toContain(`Calls per day: ${tenant}`);
      // Progress went to stderr, naming the tenant: requested, polls, rows and partitions published.
      expect(first.stderr).toMatch(
        new RegExp(
          `${tenant}: 5/5 requested, \\d+ polls, 5/5 exported: [\\d,]+ rows, 20 partitions published`,
        ),
      );
    },
  );

  it('leaves Iceberg tables and CSV whose DuckDB row counts equal the counts it printed', async () => {
    // Act: the lake holds what the second run published.
    const expected = expectedFromOutput(second.stdout);

    // Assess
    expect(expected.length).toBeGreaterThan(0);
    expect(await countedByDuckdb(lake, 'parquet')).toEqual(expected);
    expect(await countedByDuckdb(lake, 'csv')).toEqual(expected);
  });

  it('prints identical counts and leaves no duplicate rows when run a second time', async () => {
    // Assess
    expect(second.code).toBe(0);
    expect(expectedFromOutput(second.stdout)).toEqual(expectedFromOutput(first.stdout));
    const [dupes] = await duckdbQuery(
      `SELECT count(*) - count(DISTINCT (report_id, conn_id))::INTEGER AS n
       FROM ${await tablesReader(lake, ['calls'])}`,
    );
    expect(Number(dupes?.n)).toBe(0);
  });

  it.each(TENANTS)(
    'prints calls, answer rate and talk time per day of tenant %s equal to what DuckDB finds in its rows',
    async (tenant) => {
      // Prepare
      const lines = second.stdout.split('\n');
      const at = lines.findIndex((l) => l.startsWith(`Calls per day: ${tenant} `));
      const printed = lines
        .slice(at + 3, at + 7)
        .map((l) => l.trim().split(/\s{2,}/))
        .map(
          ([dt, calls, answered, talk]) => `${dt}|${Number(calls?.replaceAll(',', ''))}|${answered}|${talk}`,
        );

      // Act: each call once (the reports overlap), answered when ans = 1, talk time of answered calls.
      const rows = await duckdbQuery(
        `WITH call AS (
         SELECT conn_id, any_value(dt) AS dt, max(ans) AS ans, max(duration) AS duration
         FROM ${await tablesReader(lake, ['calls'])}
         WHERE tenant = ${sqlString(tenant)}
         GROUP BY conn_id)
       SELECT strftime(dt, '%Y-%m-%d') AS dt, count(*)::INTEGER AS n,
              (count(*) FILTER (WHERE ans = 1))::INTEGER AS answered,
              avg(duration) FILTER (WHERE ans = 1) AS talk
       FROM call GROUP BY dt ORDER BY dt`,
      );

      // Assess (formatted as the CLI does: one decimal of percent, whole seconds)
      expect(printed).toEqual(
        rows.map((r) => {
          const n = Number(r.n);
          const percent = ((Number(r.answered) / n) * 100).toFixed(1);
          return `${r.dt}|${n}|${percent} %|${Number(r.talk).toFixed(0)} s`;
        }),
      );
    },
  );

  it.each(TENANTS)(
    'keeps tenant %s tokens in its own secret file readable by its owner only, its entry in the registry, and its section in summary.html',
    async (tenant) => {
      // Assess
      const file = path.join(work, 'state', 'secrets', `${tenant}.json`);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const entry = JSON.parse(
        await readFile(path.join(work, 'state', 'tenants', `${tenant}.json`), 'utf8'),
      ) as {
        id: string;
        region: string;
      };
      expect(entry).toMatchObject({ id: tenant, region: 'local' });
      const html = await readFile(path.join(lake, 'summary.html'), 'utf8');
      expect(html).toContain(`<section data-tenant="${tenant}">`);
      expect(html).toContain('data-chart="calls-per-day"');
      // No token reaches the terminal.
      const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, string>>;
      const tokens = Object.values(stored).flatMap((s) => [s.refreshToken, s.accessToken, s.clientSecret]);
      for (const token of tokens.filter((t): t is string => typeof t === 'string' && t.length > 8)) {
        expect(first.stdout + first.stderr).not.toContain(token);
      }
    },
  );
});

describe('npm start (a range continued in several executions)', () => {
  let work: string;
  let run: CliRun;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'npm-start-chain-'));
    // One day per window and one window (5 reports) per execution: 3 dates, 3 executions.
    run = await runCli(
      [
        '--out',
        path.join(work, 'lake'),
        '--secret-file',
        path.join(work, 'state', 'secrets.json'),
        '--from',
        '2026-03-02',
        '--to',
        '2026-03-04',
        '--rows-per-day',
        '40',
      ],
      {
        timeoutMs: 180_000,
        env: { REPORT_EXPORT_MAX_JOBS_PER_EXECUTION: '5', REPORT_EXPORT_MAX_WINDOW_DAYS: '1' },
      },
    );
  }, 200_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('prints every date of the range with counts equal to DuckDB when the range takes 3 executions', async () => {
    // Assess
    expect(run.stderr).not.toMatch(/export failed/);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/^ {2}Run {7}/gm)).toHaveLength(3 * TENANTS.length);
    for (const tenant of TENANTS) {
      expect([...printedRows(run.stdout, tenant).keys()]).toEqual([
        '2026-03-02',
        '2026-03-03',
        '2026-03-04',
        'total',
      ]);
    }
    const expected = expectedFromOutput(run.stdout);
    expect(await countedByDuckdb(path.join(work, 'lake'), 'parquet')).toEqual(expected);
    expect(await countedByDuckdb(path.join(work, 'lake'), 'csv')).toEqual(expected);
  });

  it('counts progress over every execution and never looks finished early when the range is continued', () => {
    // Assess: each tenant's last status covers all its 15 jobs; no status line claims all done before that.
    for (const tenant of TENANTS) {
      expect(run.stderr).toMatch(
        new RegExp(
          `^${tenant}: execution 3/3: 15/15 requested, \\d+ polls, 15/15 exported: [\\d,]+ rows, 15 partitions published$`,
          'm',
        ),
      );
    }
    expect(run.stderr).not.toMatch(
      /^[a-z-]+: (execution [12]\/3: )?\d+\/(\d+) requested, \d+ polls, \2\/\2 exported/m,
    );
  });

  it('says it is preparing the workflow definition after signing in', () => {
    // Assess
    const signedIn = run.stderr.indexOf('signed in as');
    const preparing = run.stderr.indexOf('preparing the workflow definition');
    expect(signedIn).toBeGreaterThan(-1);
    expect(preparing).toBeGreaterThan(signedIn);
  });
});
