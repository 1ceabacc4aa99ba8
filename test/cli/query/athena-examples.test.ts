import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LakeDatabase, openLake } from '../../../lib/cli/shared/lake-database';
import { exportReportResult } from '../../../lib/export';
import { fileCatalogOf, LocalDirectoryStore } from '../../../lib/stores';
import { finalizeRun } from '../../../lib/workflow/finalize';
import { callsOn, resultStreamOf } from '../../support/result-stream';

/** The chapters of the deploy guide that hold its Athena queries, in reading order. */
const GUIDE = ['docs/deploy.md', 'docs/aws-tables.md', 'docs/many-tenants.md'];

/** Every statement of the ```sql blocks of Markdown files, in order. */
async function sqlExamples(files: readonly string[]): Promise<string[]> {
  const text = (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');
  return [...text.matchAll(/```sql\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] as string)
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}

/** The deploy guide's Athena queries, run as written against a local lake (`query`'s database). */
describe("the deploy guide's Athena examples on a local lake", () => {
  let dir: string;
  let db: LakeDatabase;

  beforeAll(async () => {
    // Prepare: calls with a member the schema does not know, a summary, a run record, in
    // Iceberg tables as a new deployment has them (dt a DATE, as the examples compare it).
    dir = await mkdtemp(path.join(tmpdir(), 'athena-examples-'));
    const store = new LocalDirectoryStore(dir);
    const tables = { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' };
    const calls = callsOn(['2026-11-20', '2026-11-21'], 4, 'a').map((r, i) => ({
      ...r,
      accountCode: `A${i % 2}`,
    }));
    await exportReportResult({ source: resultStreamOf(calls), store, reportId: 'rep-1', tables });
    await exportReportResult({
      source: resultStreamOf(
        [{ userName: 'Ann', userNum: '201', ans: 3, ref: 0, lost: 1, ring: 12, duration: 300 }] as never[],
        {
          displayFields: ['userName', 'userNum', 'ans', 'ref', 'lost', 'ring', 'duration'],
          requestId: 'req-s',
        },
      ),
      store,
      reportId: 'rep-2',
      windowDates: ['2026-11-20'],
      tables,
    });
    await finalizeRun(
      {
        input: { date: '2026-11-20' },
        executionName: 'exec-1',
        startedAt: '2026-11-21T04:00:00.000Z',
        results: [
          {
            jobId: 'job-0001',
            reportId: 'rep-1',
            reportName: 'One',
            status: 'FAILED',
            error: 'ExportFailedError',
            progress: {
              heldCount: 1,
              held: [{ dt: '2026-11-19', basis: 'rows', publishedRows: 10, rows: 0 }],
            },
          },
        ],
      },
      { store, prefix: '', metrics: { add: () => undefined, flush: () => undefined } },
    );
    db = await openLake(dir);
  });
  afterAll(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the examples', async () => {
    expect((await sqlExamples(GUIDE)).length).toBeGreaterThanOrEqual(6);
  });

  it.each([0, 1, 2, 3, 4, 5])('answers example %i as written, with rows', async (i) => {
    // Prepare
    const sql = (await sqlExamples(GUIDE))[i] as string;

    // Act
    const answer = await db.query(sql);

    // Assess: the lake holds what each example looks for.
    expect(answer.rows.length, sql).toBeGreaterThan(0);
  });
});
