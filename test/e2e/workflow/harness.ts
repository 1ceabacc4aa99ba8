import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type LocalDeployment,
  type LocalDeploymentOptions,
  startLocalDeployment,
} from '../../../lib/local/local-deployment';
import type { LocalWorkflowResult } from '../../../lib/local/run-workflow';
import { listAll, readObject } from '../../../lib/stores';
import type { RunRecord } from '../../../lib/workflow/run-record';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { duckdbQuery, sqlString } from '../../support/duckdb';

export interface WorkflowHarness {
  deployment: LocalDeployment;
  s3: Awaited<ReturnType<typeof startLocalS3>>;
  workDir: string;
  /** Copies the lake from S3 (fauxqs) into a directory DuckDB can read. */
  download(): Promise<string>;
  /** Rows per (report_id, dt) in the Parquet and CSV files, read back with DuckDB. */
  countRows(): Promise<{ parquet: number; csv: number; byDay: Record<string, number> }>;
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
  return {
    deployment,
    s3,
    workDir,
    download,
    async countRows() {
      const dir = await download();
      const parquetGlob = sqlString(`${dir}/lake/calls/format=parquet/*/*/*.parquet`);
      const csvGlob = sqlString(`${dir}/lake/calls/format=csv/*/*/*.csv`);
      const has = async (sub: string) =>
        (await fs.stat(path.join(dir, 'lake/calls', sub)).catch(() => undefined)) !== undefined;
      if (!(await has('format=parquet'))) return { parquet: 0, csv: 0, byDay: {} };
      const parquet = await duckdbQuery(
        `SELECT dt::VARCHAR AS dt, count(*)::INTEGER AS n FROM read_parquet(${parquetGlob}, hive_partitioning=true) GROUP BY dt ORDER BY dt`,
      );
      const csv = await duckdbQuery(
        `SELECT count(*)::INTEGER AS n FROM read_csv(${csvGlob}, header = true, quote = '"', escape = '"', all_varchar = true)`,
      );
      const byDay = Object.fromEntries(parquet.map((r) => [String(r.dt), Number(r.n)]));
      return { parquet: parquet.reduce((n, r) => n + Number(r.n), 0), csv: Number(csv[0]?.n ?? 0), byDay };
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

/** Total rows the service reported for the run (sum of the jobs' totals as exported). */
export function exportedRows(result: LocalWorkflowResult): number {
  return result.summaries.reduce((n, s) => n + s.rows, 0);
}
