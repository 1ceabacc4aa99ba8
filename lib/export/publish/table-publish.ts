import { randomBytes } from 'node:crypto';
import { forEachLimited } from '../concurrency';
import { EXPORT_ERROR_CODES, PublishError, VerificationError } from '../errors';
import { tenantSegment } from '../layout';
import { type IcebergTable, liveFiles, type NewDataFile } from '../table';
import type { PartitionOutput } from '../types';
import { callsInFiles, type PublishedLookup } from './published-partition';

/**
 * Publishing into an Iceberg table (lib/export/table): the Parquet files of a run are written
 * straight to their data keys, unique to the run and attempt (a table's files are immutable,
 * and a key no snapshot names is read by nobody), then ONE commit per table replaces the
 * run's partitions (report, day) in one `overwrite` snapshot: readers see the whole run or
 * none of it. The committer (commit-staged.ts) runs that commit as the last step of the CSV
 * promotion, so a failed commit rolls the CSV back too.
 */

/** The tables a run publishes to: its dataset's, and the report's other dataset's (a report that changed shape). */
export interface TableTarget {
  table: IcebergTable;
  other: IcebergTable | undefined;
}

/**
 * What a table holds of the report's days (the tenant's, in a multi-tenant lake's table: the
 * shrink guard never compares with another tenant's), read once from its current snapshot.
 */
export function tableLookup(table: IcebergTable, reportId: string, tenant?: string): PublishedLookup {
  let days: Promise<Map<string, NewDataFile[]>> | undefined;
  const load = async (): Promise<Map<string, NewDataFile[]>> => {
    const byDay = new Map<string, NewDataFile[]>();
    for (const file of (await liveFiles(table)).files) {
      if (file.reportId !== reportId || file.tenant !== tenant) continue;
      const list = byDay.get(file.dt) ?? [];
      list.push(file);
      byDay.set(file.dt, list);
    }
    return byDay;
  };
  return async (dt, { calls }) => {
    days ??= load();
    const files = (await days).get(dt);
    if (files === undefined) return undefined;
    const rows = files.reduce((n, f) => n + f.rows, 0);
    if (!calls) return { rows };
    return {
      rows,
      calls: await callsInFiles(
        table.location.store,
        files.map((f) => f.key),
      ),
    };
  };
}

/**
 * The key of a run's data file under the table's root key:
 * `<table>/data/[tenant=<t>/]report_id=<id>/dt=<day>/<run>-<attempt: 8 hex>-<part: 5 digits>.parquet`.
 */
export function dataFileKey(
  tableKey: string,
  file: {
    tenant?: string | undefined;
    reportId: string;
    dt: string;
    runId: string;
    attempt: string;
    part: number;
  },
): string {
  const name = `${file.runId}-${file.attempt}-${String(file.part).padStart(5, '0')}.parquet`;
  return `${tableDataPrefix(tableKey, file.tenant)}/report_id=${file.reportId}/dt=${file.dt}/${name}`;
}

/**
 * Where a table's data files of a tenant lie (`<table>/data/tenant=<t>`; `<table>/data`
 * without a tenant), no trailing slash: a tenant's IAM policy allows writes under it only.
 */
export function tableDataPrefix(tableKey: string, tenant?: string): string {
  return tenant === undefined ? `${tableKey}/data` : `${tableKey}/data/${tenantSegment(tenant)}`;
}

/**
 * Uploads every Parquet file of `partitions` to its data key, create-only (the store's
 * putFileIfAbsent: a data file once written is never replaced, by this run or another
 * session), and checks the stored size. Resolves with the files as the commit adds them.
 * On a failure it deletes nothing: a tenant's session may not delete data files (what a
 * failed run wrote is an orphan, removed by the table's orphan-file deletion); a caller
 * that is its own committer (commit 'now') may delete `written` with deleteDataFiles.
 */
export async function writeDataFiles(
  run: {
    table: IcebergTable;
    tenant?: string | undefined;
    reportId: string;
    runId: string;
    requestId: string;
  },
  partitions: readonly PartitionOutput[],
  options: {
    concurrency?: number;
    /** Each key is pushed here before its write starts: what a failed run may have left. */
    written?: string[];
  } = {},
): Promise<NewDataFile[]> {
  const { concurrency = 4, written = [] } = options;
  const attempt = randomBytes(4).toString('hex');
  const store = run.table.location.store;
  const jobs = partitions.flatMap((p) =>
    p.files
      .filter((f) => f.format === 'parquet')
      .map((file) => ({
        file,
        dt: p.dt,
        key: dataFileKey(run.table.location.key, {
          tenant: run.tenant,
          reportId: run.reportId,
          dt: p.dt,
          runId: run.runId,
          attempt,
          part: file.part,
        }),
      })),
  );
  await forEachLimited(jobs, concurrency, async ({ file, key }) => {
    let sizes: [number | undefined, number | undefined];
    try {
      written.push(key);
      const info = await store.putFileIfAbsent(key, file.path, {
        contentType: 'application/vnd.apache.parquet',
      });
      // Undefined: the key had an object. Its name carries this run's id and a random attempt,
      // so it is this write's own (a request the SDK retried after its reply was lost) or
      // nobody's; the stored size below tells which it can be.
      sizes = [info?.size ?? file.bytes, (await store.head(key))?.size];
    } catch (cause) {
      throw new PublishError(EXPORT_ERROR_CODES.stagingFailed, `Writing data file ${key} failed`, {
        cause,
        requestId: run.requestId,
      });
    }
    if (sizes[0] !== file.bytes || sizes[1] !== file.bytes) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.verifyFailed,
        `Data file ${key}: ${sizes[0]} bytes sent, ${sizes[1] ?? 'no object'} stored, ${file.bytes} written`,
        { requestId: run.requestId },
      );
    }
  });
  return jobs.map(({ file, dt, key }) => ({ key, dt, rows: file.rows, bytes: file.bytes }));
}

/** Deletes data files no snapshot names (best effort: a file left is an orphan nobody reads). */
export async function deleteDataFiles(
  store: IcebergTable['location']['store'],
  keys: readonly string[],
): Promise<void> {
  try {
    if (keys.length > 0) await store.deleteMany(keys);
  } catch {
    // orphans: the table's orphan-file cleanup removes them
  }
}
