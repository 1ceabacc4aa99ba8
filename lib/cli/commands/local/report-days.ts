import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { DATASETS, type Dataset, OUTPUT_FORMATS, type PartitionManifest } from '../../../export';
import type { Plan } from '../../../workflow';
import {
  CONTACT_TABLES,
  hasLocalTable,
  LAKE_DATASETS,
  livePartitionKey,
  livePartitions,
  localLakeTables,
} from '../../shared/lake-tables';

/** One report's rows per local date, as its partitions' manifests state them. */
export interface ReportDays {
  reportId: string;
  reportName: string;
  /** Where its rows are: `calls`, or `summaries` for a summary report. */
  dataset: Dataset;
  rows: number;
  /** Files of both formats (a day without calls has none). */
  files: number;
  days: { dt: string; rows: number }[];
}

/**
 * Rows per report and date this run published (its report runs' request ids), over every
 * date of the requested range, whichever execution of the chain exported it: the days
 * whose manifest names one of the run's requests, their rows from the table's current
 * snapshot (Iceberg tables: the CSV manifests say which days the run published) or from
 * the Parquet manifests (the Hive layout). With `tenant`, that tenant's partitions
 * (`tenant=<id>/` above the report's).
 */
export async function readReportDays(
  outDir: string,
  plans: readonly Plan[],
  range: { from: string; to: string },
  requestIds: ReadonlySet<string>,
  tenant?: string,
): Promise<ReportDays[]> {
  const tenantLevel = tenant === undefined ? [] : [`tenant=${tenant}`];
  const seen = new Map<string, ReportDays>();
  for (const job of plans.flatMap((p) => p.jobs)) {
    if (seen.has(job.reportId)) continue;
    const report = seen.get(job.reportId) ?? {
      reportId: job.reportId,
      reportName: job.reportName,
      dataset: DATASETS.calls as Dataset,
      rows: 0,
      files: 0,
      days: [],
    };
    seen.set(job.reportId, report);
  }
  for (const dataset of Object.values(DATASETS)) {
    // The dataset's table at its current snapshot (what query and the summary page read);
    // undefined for the Hive layout, whose Parquet manifests count the rows.
    const live = await livePartitions(localLakeTables(outDir), dataset);
    const rowsFrom = live === undefined ? OUTPUT_FORMATS.parquet : OUTPUT_FORMATS.csv;
    for (const report of seen.values()) {
      for (const format of Object.values(OUTPUT_FORMATS)) {
        if (live !== undefined && format === OUTPUT_FORMATS.parquet) continue;
        const dir = path.join(
          outDir,
          dataset,
          `format=${format}`,
          ...tenantLevel,
          `report_id=${report.reportId}`,
        );
        const dates = await fs.readdir(dir).catch(() => [] as string[]);
        for (const entry of dates.sort()) {
          const dt = entry.replace(/^dt=/, '');
          if (dt < range.from || dt > range.to) continue;
          const manifest = await readManifest(path.join(dir, entry, '_manifest.json'));
          if (manifest === undefined) continue;
          // The report's dataset, whichever run wrote it (a fully held report wrote none).
          report.dataset = dataset;
          if (!requestIds.has(manifest.requestId)) continue;
          report.files += manifest.files.length;
          if (format !== rowsFrom) continue;
          // A day this run published (its CSV manifest names the run's request): the table's rows of it.
          const partition = live?.get(livePartitionKey(tenant, report.reportId, dt));
          const rows = live === undefined ? manifest.rows : (partition?.rows ?? 0);
          report.files += partition?.files ?? 0;
          report.days.push({ dt, rows });
          report.rows += rows;
        }
      }
    }
  }
  return [...seen.values()];
}

async function readManifest(file: string): Promise<PartitionManifest | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as PartitionManifest;
  } catch {
    return undefined;
  }
}

/** The directories of the lake's Iceberg tables (`<outDir>/tables/<table>`): the report tables', then the contact tables'. */
export async function lakeTableDirs(outDir: string): Promise<string[]> {
  const dirs: string[] = [];
  for (const dataset of [...LAKE_DATASETS, ...CONTACT_TABLES])
    if (await hasLocalTable(outDir, dataset)) dirs.push(path.join(outDir, 'tables', dataset));
  return dirs;
}
