import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { icebergRead } from 'icebird';
import {
  type LocalDeployment,
  type LocalDeploymentOptions,
  startLocalDeployment,
} from '../../../lib/local/local-deployment';
import type { LocalWorkflowResult } from '../../../lib/local/run-workflow';
import { listAll, type ObjectStore, readObject } from '../../../lib/stores';
import type { RunRecord } from '../../../lib/workflow/run-record';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { installStoreFetch } from '../../support/store-fetch';

export interface WorkflowHarness {
  deployment: LocalDeployment;
  s3: Awaited<ReturnType<typeof startLocalS3>>;
  workDir: string;
  /** Copies the lake from S3 (fauxqs) into a directory DuckDB can read. */
  download(): Promise<string>;
  /**
   * Rows of the calls table's current snapshot (read back with icebird, an independent
   * Iceberg reader) per day, and of the CSV files (DuckDB).
   */
  countRows(): Promise<{ parquet: number; csv: number; byDay: Record<string, number> }>;
  /** Every row of a dataset's table at its current snapshot (or at `metadataFileName`), read with icebird. */
  tableRows(
    dataset: 'calls' | 'summaries' | 'contacts' | 'contact_phones',
    metadataFileName?: string,
  ): Promise<Record<string, unknown>[]>;
  /** Every text a secret could leak into: history, logs, metrics, run records, notifications. */
  everything(result: LocalWorkflowResult): Promise<string>;
  secretValues(): Promise<string[]>;
  /** The run records the executions wrote under `lake/runs/`. */
  runRecords(): Promise<RunRecord[]>;
  close(): Promise<void>;
}

const BUCKET = 'lake-bucket';

export async function startHarness(
  options: Omit<LocalDeploymentOptions, 'workDir'> = {},
): Promise<WorkflowHarness> {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'workflow-e2e-'));
  const s3 = await startLocalS3(BUCKET);
  const deployment = await startLocalDeployment({
    workDir,
    objectStoreUri: `s3://${BUCKET}/lake`,
    s3: () => s3.client,
    s3Endpoint: s3.endpoint,
    ...options,
    simulator: { reportLatencyMs: 50, rowsPerDay: 120, ...options.simulator },
  });
  const store = s3.store();
  const download = async () => {
    const dir = await fs.mkdtemp(path.join(workDir, 'download-'));
    for (const o of await listAll(store, 'lake/')) {
      const file = path.join(dir, o.key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, await readObject(store, o.key));
    }
    return dir;
  };
  const tableRows = (
    dataset: 'calls' | 'summaries' | 'contacts' | 'contact_phones',
    metadataFileName?: string,
  ) => readTable(store, `s3://${BUCKET}/lake/tables/${dataset}`, metadataFileName);
  return {
    deployment,
    s3,
    workDir,
    download,
    tableRows,
    async countRows() {
      const rows = await tableRows('calls');
      const byDay: Record<string, number> = {};
      for (const row of rows) {
        const dt = (row.dt as Date).toISOString().slice(0, 10);
        byDay[dt] = (byDay[dt] ?? 0) + 1;
      }
      if (rows.length === 0) return { parquet: 0, csv: 0, byDay };
      const dir = await download();
      const csvGlob = sqlString(`${dir}/lake/calls/format=csv/*/*/*.csv`);
      const csv = await duckdbQuery(
        `SELECT count(*)::INTEGER AS n FROM read_csv(${csvGlob}, header = true, quote = '"', escape = '"', all_varchar = true)`,
      );
      return {
        parquet: rows.length,
        csv: Number(csv[0]?.n ?? 0),
        byDay: Object.fromEntries(Object.entries(byDay).sort()),
      };
    },
    async everything(result) {
      const records: string[] = [];
      for (const o of await listAll(store, 'lake/runs/'))
        records.push(Buffer.from(await readObject(store, o.key)).toString());
      return [
        JSON.stringify(result.executions.map((e) => e.events)),
        JSON.stringify(result.executions.map((e) => e.output)),
        JSON.stringify(result.notifications),
        deployment.logLines.join('\n'),
        deployment.metricLines.join('\n'),
        records.join('\n'),
      ].join('\n');
    },
    async secretValues() {
      const s = JSON.parse(await fs.readFile(deployment.secretFile, 'utf8')) as {
        service: Record<string, string>;
      };
      return [s.service.clientSecret, s.service.refreshToken, s.service.accessToken].filter(
        (v): v is string => typeof v === 'string' && v.length > 8,
      );
    },
    async runRecords() {
      const records: RunRecord[] = [];
      for (const o of await listAll(store, 'lake/runs/'))
        records.push(JSON.parse(Buffer.from(await readObject(store, o.key)).toString()) as RunRecord);
      return records;
    },
    async close() {
      await deployment.close();
      await s3.close();
      await fs.rm(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * A table's rows as icebird reads them (over a fetch served from the store); none when the
 * table has no metadata yet or its snapshot has no data file (icebird throws for both).
 */
async function readTable(
  store: ObjectStore,
  tableUrl: string,
  metadataFileName?: string,
): Promise<Record<string, unknown>[]> {
  if ((await listAll(store, `${tableUrl.replace(/^s3:\/\/[^/]+\//, '')}/metadata/`)).length === 0) return [];
  const uninstall = installStoreFetch(store);
  try {
    return await icebergRead({ tableUrl, ...(metadataFileName === undefined ? {} : { metadataFileName }) });
  } catch (error) {
    if (error instanceof Error && /No data manifest files|No current snapshot/.test(error.message)) return [];
    throw error;
  } finally {
    uninstall();
  }
}

/** Total rows the service reported for the run (sum of the jobs' totals as exported). */
export function exportedRows(result: LocalWorkflowResult): number {
  return result.summaries.reduce((n, s) => n + s.rows, 0);
}
