import { mkdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { fileCatalogOf, LocalDirectoryStore } from '../../../lib/stores';
import { runInProcess } from '../../support/cli-in-process';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { useStoreFetch } from '../../support/store-fetch';
import { useTempDir } from '../../support/test-scope';
import { csvDays, csvRows, tableRows } from './tenant-check';
import { DAYS, forcedRollback, SUMMARY_DAY, writeTenantLake } from './tenant-lake';

interface TableOutcome {
  table: string;
  currentSnapshotId: number;
  targetSnapshotId: number | null;
  discarded: { snapshotId: number; runId: string | null }[];
  partitions: { reportId: string; dt: string; rowsNow: number; rowsAfter: number }[];
  rolledBack?: boolean;
  snapshotId?: number;
  csv?: { rewritten: number; emptied: number } | null;
}

const PER_DAY =
  'SELECT tenant, dt::VARCHAR AS dt, count(*)::INTEGER AS n FROM calls GROUP BY ALL ORDER BY ALL';

describe('report-export tables rollback --tenant (a multi-tenant lake)', () => {
  const dir = useTempDir('tenant-rollback-');
  const serve = useStoreFetch();
  let n = 0;
  async function lake() {
    const root = path.join(dir(), `lake-${++n}`);
    await mkdir(root);
    const store = new LocalDirectoryStore(root);
    serve(store);
    return { root, store, ...(await writeTenantLake(store)) };
  }
  const snapshotCount = async (root: string) =>
    (JSON.parse((await runInProcess(['tables', 'snapshots', '--dir', root, '--json'])).stdout) as unknown[])
      .length;

  /** The tenant's rows of both tables (icebird) and of its CSV (DuckDB), over the CSV's columns. */
  async function bothFormats(root: string, dataset: string, tenant: string) {
    const csv = await csvRows(root, dataset, tenant);
    return {
      csv: csv.rows,
      table: await tableRows(root, dataset, tenant, csv.columns),
      columns: csv.columns,
    };
  }

  it("restores the tenant's partitions of both tables in one snapshot each, keeps the other tenant's, and rewrites the CSV to equal the table", async () => {
    // Prepare
    const { root, target } = await lake();
    const bruinBefore = await bothFormats(root, 'calls', 'bruin');
    const before = await snapshotCount(root);

    // Act
    const run = await runInProcess(forcedRollback(root, target, 'acme', '--json'));

    // Assess: one new snapshot per table; each discards acme's later snapshot only.
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { rolledBack: boolean; tables: TableOutcome[] };
    expect(out.rolledBack).toBe(true);
    expect(await snapshotCount(root)).toBe(before + 2);
    const listed = await runInProcess(['tables', 'snapshots', 'calls', '--dir', root]);
    expect(listed.stdout).toMatch(/rollback of acme to \d+.*current/);
    const [calls, summaries] = out.tables as [TableOutcome, TableOutcome];
    expect(calls.discarded.map((s) => s.runId)).toHaveLength(1);
    expect(summaries.discarded).toHaveLength(1);
    expect(calls.partitions.map((p) => [p.dt, p.rowsNow, p.rowsAfter])).toEqual([
      ['2026-11-21', 5, 3],
      ['2026-11-23', 5, 0],
    ]);
    expect(calls.csv).toEqual({ rewritten: 1, emptied: 1 });
    expect(summaries.csv).toEqual({ rewritten: 1, emptied: 0 });

    // The table (DuckDB over the current snapshot's files, as query reads it): acme's first
    // export, bruin's rows as they were (its commits after the target stay).
    const query = await runInProcess(['query', '--dir', root, '--json', PER_DAY]);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout)).toEqual([
      { tenant: 'acme', dt: '2026-11-20', n: 3 },
      { tenant: 'acme', dt: '2026-11-21', n: 3 },
      { tenant: 'acme', dt: '2026-11-22', n: 3 },
      { tenant: 'bruin', dt: '2026-11-20', n: 2 },
      { tenant: 'bruin', dt: '2026-11-21', n: 2 },
      { tenant: 'bruin', dt: '2026-11-22', n: 4 },
    ]);
    // The CSV equals the table row for row (icebird reads the table, DuckDB the CSV).
    expect(await csvDays(root, 'calls', 'acme')).toEqual({
      '2026-11-20': 3,
      '2026-11-21': 3,
      '2026-11-22': 3,
    });
    for (const dataset of ['calls', 'summaries']) {
      const both = await bothFormats(root, dataset, 'acme');
      expect(both.columns.length).toBeGreaterThan(5);
      expect(both.csv.length).toBeGreaterThan(0);
      expect(both.csv).toEqual(both.table);
    }
    const summary = await bothFormats(root, 'summaries', 'acme');
    expect(summary.csv).toHaveLength(1);
    expect(summary.csv[0]).toContain('"3"');
    // The day acme had not exported at the target is emptied as the export empties a day.
    const emptied = path.join(
      root,
      'calls',
      'format=csv',
      'tenant=acme',
      'report_id=calls-1',
      'dt=2026-11-23',
    );
    expect(JSON.parse(await readFile(path.join(emptied, '_manifest.json'), 'utf8'))).toMatchObject({
      rows: 0,
      files: [],
    });
    await expect(stat(path.join(emptied, 'part-00000.csv'))).rejects.toThrow();
    // bruin's rows, in both formats, untouched.
    expect(await bothFormats(root, 'calls', 'bruin')).toEqual(bruinBefore);
    expect(bruinBefore.table).toEqual(bruinBefore.csv);
    expect(DAYS).toContain(SUMMARY_DAY);
  });

  it('refuses without --tenant, and an unknown tenant, naming the tenants the tables hold (exit 2), and rolls nothing back', async () => {
    // Prepare
    const { root, target } = await lake();
    const before = await snapshotCount(root);

    // Act
    const run = await runInProcess(['tables', 'rollback', String(target), '--force', '--dir', root]);
    const unknown = await runInProcess(forcedRollback(root, target, 'acmee'));

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--tenant <id>.*the tables hold acme, bruin/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--tenant acmee: the tables hold no rows of it.*\(they hold acme, bruin\)/,
    );
    expect(await snapshotCount(root)).toBe(before);
  });

  it('plans without confirming (exit 2 off a terminal), refuses --if-current once a snapshot of the tenant landed, and ignores those of other tenants', async () => {
    // Prepare
    const { root, store, target } = await lake();
    const tables = { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' };
    const exportFor = async (tenant: string, tag: string) => {
      const r = await exportReportResult({
        source: resultStreamOf(callsOn(['2026-11-22'], 6, tag), { requestId: `req-${tag}` }),
        store,
        tenant,
        reportId: 'calls-1',
        windowDates: ['2026-11-22'],
        encodeWorker: false,
        tables,
      });
      return r.table?.snapshotId;
    };
    const args = ['tables', 'rollback', String(target), '--tenant', 'acme', '--dir', root];
    const before = await snapshotCount(root);

    // Act: the plan, then an export of acme lands before the operator confirms.
    const planned = await runInProcess([...args, '--json']);
    const plan = JSON.parse(planned.stdout) as { confirm: string; tables: TableOutcome[] };
    const ids = plan.tables.map((t) => t.currentSnapshotId).join(',');
    const text = await runInProcess(args);
    const landed = await exportFor('acme', 'a3');
    const stale = await runInProcess([...args, '--if-current', ids]);
    const after = await snapshotCount(root);
    // A fresh plan; bruin's export lands before the confirmation: nothing of acme is discarded unseen.
    const replanned = JSON.parse((await runInProcess([...args, '--json'])).stdout) as {
      tables: TableOutcome[];
    };
    await exportFor('bruin', 'b3');
    const confirmed = await runInProcess([
      ...args,
      '--if-current',
      replanned.tables.map((t) => t.currentSnapshotId).join(','),
    ]);

    // Assess
    expect(planned.code).toBe(2);
    expect(plan.confirm).toContain(`--if-current ${ids}`);
    expect(text.stdout).toMatch(
      /calls: current \d+ -> snapshot \d+ \(current then\): 2 partitions change, 10 rows -> 3/,
    );
    expect(text.stdout).toMatch(/discards 1 snapshot of acme: \d+/);
    expect(text.stdout).toContain("other tenants' partitions and commits stay as they are");
    expect(text.stderr).toMatch(/nothing rolled back; confirm the plan above with --if-current/);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`landed after snapshot`);
    expect(stale.stderr).toContain(String(landed));
    expect(after).toBe(before + 1);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toContain("Rolled back tenant acme's partitions of calls");
    const query = await runInProcess(['query', '--dir', root, '--json', PER_DAY]);
    expect(JSON.parse(query.stdout)).toContainEqual({ tenant: 'bruin', dt: '2026-11-22', n: 6 });
    expect(JSON.parse(query.stdout)).toContainEqual({ tenant: 'acme', dt: '2026-11-22', n: 3 });
    const both = await bothFormats(root, 'calls', 'acme');
    expect(both.csv).toEqual(both.table);
  });
});
