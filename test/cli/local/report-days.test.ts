import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lakeTableDirs, readReportDays } from '../../../lib/cli/commands/local/report-days';
import type { Plan } from '../../../lib/workflow';
import { useTempDir } from '../../support/test-scope';
import { TABLE_LAKE_DAYS, writeTableLake } from '../tables/table-lake';

/** The plan of one job of report-1, as readReportDays reads it. */
const PLANS = [{ jobs: [{ reportId: 'report-1', reportName: 'Calls by user' }] }] as unknown as Plan[];
const RANGE = { from: TABLE_LAKE_DAYS[0] as string, to: TABLE_LAKE_DAYS[2] as string };

describe('readReportDays over Iceberg tables', () => {
  const dir = useTempDir('report-days-');
  let lake: string;

  beforeAll(async () => {
    lake = path.join(dir(), 'lake');
    await mkdir(lake);
    await writeTableLake(lake);
  });

  it("counts the days a run published (its CSV manifests) with the rows of the table's current snapshot", async () => {
    // Act: the second run (req-2) replaced 2026-11-21; the first (req-1) keeps the other days.
    const [second] = await readReportDays(lake, PLANS, RANGE, new Set(['req-2']));
    const [first] = await readReportDays(lake, PLANS, RANGE, new Set(['req-1']));

    // Assess: one CSV file and one data file per day.
    expect(second).toMatchObject({
      dataset: 'calls',
      rows: 5,
      files: 2,
      days: [{ dt: '2026-11-21', rows: 5 }],
    });
    expect(first).toMatchObject({
      rows: 6,
      files: 4,
      days: [
        { dt: '2026-11-20', rows: 3 },
        { dt: '2026-11-22', rows: 3 },
      ],
    });
  });

  it('names the tables of the lake', async () => {
    // Act
    const tables = await lakeTableDirs(lake);

    // Assess
    expect(tables).toContain(path.join(lake, 'tables', 'calls'));
  });
});
