import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../lib/cli/main';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { duckdbQuery, sqlString } from '../../support/duckdb';

/**
 * A small lake in the export's layout: two reports (ids all digits, which DuckDB would
 * type as a number unless told) over two days, and one run record. The files leave out the
 * report_id lineage column, so its type can only come from the partition key.
 */
async function writeLake(dir: string): Promise<void> {
  const parts: [string, string, number][] = [
    ['4711', '2026-03-01', 3],
    ['4711', '2026-03-02', 2],
    ['5000', '2026-03-01', 4],
  ];
  for (const [report, dt, n] of parts) {
    const partition = path.join(dir, 'calls', 'format=parquet', `report_id=${report}`, `dt=${dt}`);
    await mkdir(partition, { recursive: true });
    await duckdbQuery(
      `COPY (SELECT 'c' || i AS conn_id, TIMESTAMP '${dt} 09:00:00' + INTERVAL (i) MINUTE AS start,
               (i % 2)::INTEGER AS ans, 60.0 * i AS duration
             FROM range(${n}) t(i))
       TO ${sqlString(path.join(partition, 'part-00000.parquet'))} (FORMAT parquet)`,
    );
  }
  const runs = path.join(dir, 'runs', 'dt=2026-03-03');
  await mkdir(runs, { recursive: true });
  await writeFile(
    path.join(runs, 'run-1.json'),
    `${JSON.stringify({ runId: 'run-1', status: 'SUCCEEDED', rows: 9, startedAt: '2026-03-03T00:05:00Z' })}\n`,
  );
}

describe('report-export query', () => {
  let work: string;
  let lake: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'query-cli-'));
    lake = path.join(work, 'lake');
    await writeLake(lake);
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('prints a table of the answer when given SQL over calls', async () => {
    // Act
    const run = await runInProcess([
      'query',
      '--dir',
      lake,
      'SELECT dt, count(*) AS n FROM calls GROUP BY dt ORDER BY dt',
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      ['dt          n', '----------  -', '2026-03-01  7', '2026-03-02  2', ''].join('\n'),
    );
    expect(run.stderr).toBe('(2 rows)\n');
  });

  it('types dt and report_id as text, as the Glue tables declare them (Athena projects dt but keeps it a string), when answering --json', async () => {
    // Act
    const run = await runInProcess([
      'query',
      '--dir',
      lake,
      '--json',
      `SELECT DISTINCT report_id, typeof(dt) AS dt_type, typeof(report_id) AS id_type
       FROM calls WHERE dt = '2026-03-02'`,
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ report_id: '4711', dt_type: 'VARCHAR', id_type: 'VARCHAR' }]);
  });

  it('reads the run records as the runs table when asked for CSV', async () => {
    // Act
    const run = await runInProcess([
      'query',
      '--dir',
      lake,
      '--format',
      'csv',
      'SELECT "runId", status, rows, dt FROM runs',
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('runId,status,rows,dt\r\nrun-1,SUCCEEDED,9,2026-03-03\r\n');
  });

  it('answers an empty table when the directory holds no export yet', async () => {
    // Prepare
    const empty = path.join(work, 'empty');
    await mkdir(empty, { recursive: true });

    // Act
    const run = await runInProcess([
      'query',
      '--dir',
      empty,
      '--json',
      'SELECT count(*) AS n FROM calls, runs',
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ n: 0 }]);
  });

  it.each([
    [['query', '--dir', '/nonexistent/lake', 'SELECT 1'], 2, /--dir \/nonexistent\/lake is not a directory/],
    [['query', '--dir', 'lake'], 2, /stdin holds no SQL; give a statement/],
    [['query', 'SELECT 1', 'SELECT 2'], 2, /give the SQL as one argument/],
    [
      ['query', '--format', 'xml', 'SELECT 1'],
      2,
      /--format must be one of 'table', 'csv', 'json', got 'xml'/,
    ],
    [['query', '--json', '--format', 'csv', 'SELECT 1'], 2, /--json and --format csv disagree/],
  ])('exits %#: 2 with a message naming the problem when argv is %j', async (argv, code, message) => {
    // Act
    const run = await runInProcess(argv, { cwd: work });

    // Assess
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
  });

  it('exits 1 with DuckDB message and CLI_QUERY_FAILED when the SQL is wrong', async () => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, 'SELEC 1']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/syntax error at or near "SELEC".*\n[\s\S]*\[CLI_QUERY_FAILED\]/);
  });

  it('writes the whole answer when its output, over 1 MiB, goes to a pipe', async () => {
    // Act: the built program, whose stdout is a real pipe it must flush before it exits.
    const run = await runCli([
      'query',
      '--dir',
      lake,
      '--format',
      'csv',
      "SELECT i, repeat('x', 100) AS pad FROM range(20000) t(i) ORDER BY i",
    ]);

    // Assess
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\r\n');
    expect(run.stdout.length).toBeGreaterThan(2 ** 20);
    expect(lines).toHaveLength(20002);
    expect(lines.at(-2)).toBe(`19999,${'x'.repeat(100)}`);
  });

  it.each([
    ["SELECT * FROM read_text('/etc/passwd')", /Cannot access file "\/etc\/passwd"/],
    ["SELECT * FROM read_csv('https://example.com/x.csv')", /disabled by configuration|Permission Error/],
    ['SET enable_external_access = true', /query is read-only: .* got SET/],
    ['DROP VIEW calls', /query is read-only: .* got DROP/],
    ['CREATE TABLE t AS SELECT 1', /query is read-only: .* got CREATE/],
  ])('exits 1 with a clear message when the SQL reaches out or writes: %s', async (sql, message) => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, sql]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it.each([
    (target: string) => `EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO ${sqlString(target)}`,
    (target: string) => `explain /* plan */ analyse COPY (SELECT 1 AS x) TO ${sqlString(target)}`,
    (target: string) => `SELECT 1; COPY (SELECT 1 AS x) TO ${sqlString(target)}`,
    (target: string) => `EXPORT DATABASE ${sqlString(target)}`,
    (target: string) => `ATTACH ${sqlString(target)} AS written`,
  ])('exits 1 and writes nothing inside --dir for %s', async (make) => {
    // Prepare
    const target = path.join(lake, 'calls', 'written-by-query.parquet');
    const before = await readdir(lake, { recursive: true });

    // Act
    const run = await runInProcess(['query', '--dir', lake, make(target)]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/query is read-only/);
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
    expect(await readdir(lake, { recursive: true })).toEqual(before);
  });

  it('exits 1 and writes no file when asked to COPY TO a file inside --dir', async () => {
    // Prepare
    const target = path.join(lake, 'copied.csv');

    // Act
    const run = await runInProcess(['query', '--dir', lake, `COPY (SELECT 1) TO ${sqlString(target)}`]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/query is read-only: .* got COPY/);
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
  });

  it('ignores an unreadable line of the run records when querying runs', async () => {
    // Prepare
    const damaged = path.join(work, 'damaged');
    const runs = path.join(damaged, 'runs', 'dt=2026-03-04');
    await mkdir(runs, { recursive: true });
    await writeFile(
      path.join(runs, 'run-2.json'),
      `${JSON.stringify({ runId: 'run-2', status: 'FAILED' })}\n`,
    );
    await writeFile(path.join(runs, 'broken.json'), '{not json\n');

    // Act
    const run = await runInProcess(['query', '--dir', damaged, '--json', 'SELECT "runId", status FROM runs']);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ runId: 'run-2', status: 'FAILED' }]);
  });

  it('asks for the SQL when none is given and stdin is a terminal', async () => {
    // Act
    const run = await runInProcess(['query', '--dir', lake], { tty: true });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/a SQL statement is required/);
  });

  it('reads the SQL from a piped stdin when no SQL is given, as duckdb does', async () => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, '--json'], {
      stdin: 'SELECT count(*) AS n FROM calls\n',
    });

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ n: 9 }]);
  });

  it('refuses a wrong --dir at once, without waiting for a stdin that stays open', async () => {
    // Prepare: a pipe nobody writes to or closes.
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    let stderr = '';
    const io = {
      stdin,
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
      env: { NO_COLOR: '1' },
      cwd: work,
    };

    // Act
    const error = await main(['query', '--dir', 'no-such-lake'], io).catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/--dir .*no-such-lake is not a directory/),
    });
    expect(stderr).toBe('');
    stdin.destroy();
  });

  it('reads the SQL from stdin when the argument is -', async () => {
    // Act
    const run = await runInProcess(['query', '--dir', lake, '--json', '-'], {
      stdin: 'SELECT count(*) AS n FROM calls\n',
    });

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ n: 9 }]);
  });

  it('resolves a relative --dir and --file against its working directory', async () => {
    // Prepare
    await writeFile(path.join(work, 'count.sql'), 'SELECT count(*) AS n FROM calls');

    // Act
    const run = await runInProcess(['query', '--dir', 'lake', '--json', '--file', 'count.sql'], {
      cwd: work,
    });

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ n: 9 }]);
  });

  it('prints its help with an example when given --help', async () => {
    // Act
    const run = await runInProcess(['query', '--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: report-export query/);
    expect(run.stdout).toContain('report-export query --dir ./data-lake "SELECT dt, count(*) FROM calls');
  });
});
