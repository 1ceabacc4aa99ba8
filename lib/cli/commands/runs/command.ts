import { parseOrHelp } from '../../../command-line';
import { heldReportPartitions, type RunRecord } from '../../../workflow';
import { checkedLakeS3, lakeLocation, lakeUri } from '../../aws/lake-location';
import type { IOStreams } from '../../shared/io-streams';
import { checkLakeTenant } from '../../shared/known-tenants';
import { describeHeld } from '../../shared/run-outcome';
import { latestRunRecords } from '../../shared/run-records';
import { checkedTenant } from '../../shared/tenant-check';
import { colors, formatCount, formatDuration, renderTable } from '../../shared/terminal';
import { RUNS_COMMAND } from './spec';

/** The warning of a record {@link latestRunRecords} skips, on `stderr` (the command's). */
function warnUnreadable(stderr: IOStreams['stderr']): (key: string, reason: string) => void {
  return (key, reason) => {
    stderr.write(`warning: skipped the unreadable run record ${key}: ${reason}\n`);
  };
}

/** A job's table snapshot: the newest one it committed, and how many commits it made. */
interface JobSnapshot {
  jobId: string;
  reportId: string;
  reportName: string;
  table: string;
  snapshotId: number;
  commits: number;
}

/**
 * The snapshot each job of a record committed (the job's newest; its table), in job order.
 * Records from before the tables (or of the Hive layout) have none: read defensively.
 */
function jobSnapshots(record: RunRecord): JobSnapshot[] {
  return (record.jobs ?? []).flatMap((j) => {
    const snapshot = (j as Partial<typeof j>).snapshot;
    if (snapshot === undefined || snapshot === null) return [];
    return [
      {
        jobId: j.jobId,
        reportId: j.reportId,
        reportName: j.reportName,
        table: snapshot.table,
        snapshotId: snapshot.snapshotId,
        commits: (j as Partial<typeof j>).commits ?? 0,
      },
    ];
  });
}

/** The table's cell: the one job's snapshot, or how many jobs committed one (listed under the table). */
function snapshotCell(snapshots: readonly JobSnapshot[]): string {
  if (snapshots.length === 0) return '';
  const [only] = snapshots;
  return snapshots.length === 1 && only !== undefined
    ? `${only.table} ${only.snapshotId}`
    : `${snapshots.length} jobs (below)`;
}

export async function runsCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(RUNS_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const uri = await lakeUri('--dir', v.dir, io.cwd);
  const location = await lakeLocation('--dir', uri, await checkedLakeS3('runs', '--dir', uri, io));
  const tenant = checkedTenant(v.tenant);
  const records = await latestRunRecords(location, v.limit, warnUnreadable(io.stderr), tenant);
  // No record of the tenant: a tenant of the lake that has none yet, or one it does not hold (exit 2).
  if (tenant !== undefined && records.length === 0) await checkLakeTenant(location, tenant, `lake ${uri}`);
  if (v.json) {
    // Every member, and the held partitions and table snapshots of every job in one list each.
    io.stdout.write(
      `${JSON.stringify(records.map((r) => ({ ...r, held: heldReportPartitions(r.jobs ?? []), snapshots: jobSnapshots(r) })))}\n`,
    );
    return 0;
  }
  const c = colors(io.stdout, io.env);
  const rows = records.map((r) => ({
    started: r.startedAt.replace('T', ' ').slice(0, 19),
    tenant: r.tenant ?? '',
    run: r.runId,
    status: r.status,
    mode: r.mode ?? '',
    dates: r.dateFrom === null ? '' : r.dateFrom === r.dateTo ? r.dateFrom : `${r.dateFrom}..${r.dateTo}`,
    jobs: r.failedJobs > 0 ? `${r.jobCount - r.failedJobs}/${r.jobCount}` : String(r.jobCount),
    rows: r.rows,
    partitions: r.partitions,
    held: r.heldPartitions ?? 0,
    snapshot: snapshotCell(jobSnapshots(r)),
    partial: (r.partialDays ?? []).map((d) => d.dt).join(' '),
    took: formatDuration(r.durationMs),
    error: r.error ?? '',
  }));
  io.stdout.write(
    renderTable(
      rows,
      [
        'started',
        // A multi-tenant lake's records name their tenant; a single-tenant lake's table is as before.
        ...(records.some((r) => r.tenant !== undefined) ? (['tenant'] as const) : []),
        'run',
        { key: 'status', format: (s) => (s === 'SUCCEEDED' ? c.green(String(s)) : c.red(String(s))) },
        'mode',
        'dates',
        { key: 'jobs', align: 'right' },
        { key: 'rows', format: (n) => formatCount(Number(n)) },
        'partitions',
        { key: 'held', format: (n) => (Number(n) > 0 ? c.yellow(String(n)) : String(n)) },
        'snapshot',
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
  // Each job's table snapshot: what `query --as-of` and `tables rollback` take.
  for (const r of records)
    for (const s of jobSnapshots(r))
      io.stdout.write(
        `${r.runId}  ${s.reportName}: ${s.table} snapshot ${s.snapshotId} (${s.commits} commit${s.commits === 1 ? '' : 's'})\n`,
      );
  if (records.length === 0) io.stderr.write('no run records yet\n');
  return 0;
}
