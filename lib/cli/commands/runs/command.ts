import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseOrHelp, UsageError } from '../../../command-line';
import { readObject } from '../../../stores';
import type { ObjectLocation } from '../../../stores/aws';
import { heldReportPartitions, parseRunRecord, type RunRecord } from '../../../workflow';
import type { S3ClientFactory } from '../../aws/s3-client';
import type { IOStreams } from '../../shared/io-streams';
import { describeHeld } from '../../shared/run-outcome';
import { colors, formatCount, formatDuration, renderTable } from '../../shared/terminal';
import { RUNS_COMMAND } from './spec';

/** Location of the export as a store URI: s3:// as given, a path (relative to `cwd`) as file://. */
async function storeUri(dir: string, cwd: string): Promise<string> {
  if (dir.startsWith('s3://')) return dir;
  const resolved = path.resolve(cwd, dir);
  const stat = await fs.stat(resolved).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new UsageError(
      `--dir ${resolved} is not a directory (export into it first: report-export, or pass --dir)`,
    );
  return pathToFileURL(resolved).href;
}

/** The store of `uri` (`--dir`), a usage error when it is not one. */
async function runsLocation(uri: string, s3?: S3ClientFactory): Promise<ObjectLocation> {
  // Loaded on use: the store adapters bring the AWS SDK clients. For an s3:// URI the SDK
  // takes credentials and region from the process's own environment, not the command's `io.env`.
  const { objectStoreFromUri, StoreUriError } = await import('../../../stores/from-uri');
  try {
    return objectStoreFromUri('--dir', uri, s3 === undefined ? {} : { s3 });
  } catch (cause) {
    if (cause instanceof StoreUriError) throw new UsageError(cause.message, { cause });
    throw cause;
  }
}

/**
 * The S3 client of an s3:// `--dir`, checked as every AWS command checks what it uses
 * (credentials, region, the bucket: exit 2 naming what is missing) before any listing;
 * undefined for a directory.
 */
async function checkedS3(uri: string, io: IOStreams): Promise<S3ClientFactory | undefined> {
  if (!uri.startsWith('s3://')) return undefined;
  // Loaded on use, as the store adapters are: a lake on disk needs no AWS SDK.
  const { checkAws } = await import('../../aws/preflight');
  const { bucketTargets, s3ClientFactory } = await import('../../aws/s3-client');
  const s3 = s3ClientFactory({}, io.env);
  await runsLocation(uri, s3); // a malformed URI is a usage error before AWS is asked anything
  await checkAws('runs', bucketTargets([{ uri, where: '--dir' }], s3, { injected: false }), { env: io.env });
  return s3;
}

/** The warning of a record {@link latestRuns} skips, on `stderr` (the command's). */
function warnUnreadable(stderr: IOStreams['stderr']): (key: string, reason: string) => void {
  return (key, reason) => {
    stderr.write(`warning: skipped the unreadable run record ${key}: ${reason}\n`);
  };
}

/**
 * The newest `limit` records: keys are listed (cheap), then records are read from the
 * newest dates back until `limit` are in hand, so a long history is not read whole.
 */
async function latestRuns(
  uri: string,
  limit: number,
  onUnreadable: (key: string, reason: string) => void,
  s3?: S3ClientFactory,
): Promise<RunRecord[]> {
  const location = await runsLocation(uri, s3);
  const prefix = location.prefix === '' ? 'runs/' : `${location.prefix}/runs/`;
  const byDate = new Map<string, string[]>();
  for await (const info of location.store.list(prefix)) {
    const m = /runs\/dt=(\d{4}-\d{2}-\d{2})\/[^/]+\.json$/.exec(info.key);
    if (m === null) continue;
    const keys = byDate.get(m[1] as string) ?? [];
    keys.push(info.key);
    byDate.set(m[1] as string, keys);
  }
  const records: RunRecord[] = [];
  for (const dt of [...byDate.keys()].sort().reverse()) {
    if (records.length >= limit) break;
    for (const key of byDate.get(dt) ?? []) {
      const text = new TextDecoder().decode(await readObject(location.store, key));
      const record = parseRunRecord(text);
      // One damaged record (hand-edited, truncated by a copy) must not hide the others.
      if (typeof record === 'string') onUnreadable(key, record);
      else records.push(record);
    }
  }
  return records.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '')).slice(0, limit);
}

export async function runsCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(RUNS_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const uri = await storeUri(v.dir, io.cwd);
  const records = await latestRuns(uri, v.limit, warnUnreadable(io.stderr), await checkedS3(uri, io));
  if (v.json) {
    // Every member, and the held partitions of every job in one list with their reports.
    io.stdout.write(
      `${JSON.stringify(records.map((r) => ({ ...r, held: heldReportPartitions(r.jobs ?? []) })))}\n`,
    );
    return 0;
  }
  const c = colors(io.stdout, io.env);
  const rows = records.map((r) => ({
    started: r.startedAt.replace('T', ' ').slice(0, 19),
    run: r.runId,
    status: r.status,
    mode: r.mode ?? '',
    dates: r.dateFrom === null ? '' : r.dateFrom === r.dateTo ? r.dateFrom : `${r.dateFrom}..${r.dateTo}`,
    jobs: r.failedJobs > 0 ? `${r.jobCount - r.failedJobs}/${r.jobCount}` : String(r.jobCount),
    rows: r.rows,
    partitions: r.partitions,
    held: r.heldPartitions ?? 0,
    partial: (r.partialDays ?? []).map((d) => d.dt).join(' '),
    took: formatDuration(r.durationMs),
    error: r.error ?? '',
  }));
  io.stdout.write(
    renderTable(
      rows,
      [
        'started',
        'run',
        { key: 'status', format: (s) => (s === 'SUCCEEDED' ? c.green(String(s)) : c.red(String(s))) },
        'mode',
        'dates',
        { key: 'jobs', align: 'right' },
        { key: 'rows', format: (n) => formatCount(Number(n)) },
        'partitions',
        { key: 'held', format: (n) => (Number(n) > 0 ? c.yellow(String(n)) : String(n)) },
        'partial',
        { key: 'took', align: 'right' },
        'error',
      ],
      { header: c.bold },
    ),
  );
  // Each held partition with its day and both counts, under the table.
  for (const r of records)
    for (const h of heldReportPartitions(r.jobs ?? []))
      io.stdout.write(`${r.runId}  held ${describeHeld(h)}\n`);
  if (records.length === 0) io.stderr.write('no run records yet\n');
  return 0;
}
