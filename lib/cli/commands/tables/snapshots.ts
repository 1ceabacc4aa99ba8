import { UsageError } from '../../../command-line';
import { lakeTable, listSnapshots, type Snapshot } from '../../../export';
import type { IOStreams } from '../../shared/io-streams';
import { colors, formatCount, renderTable } from '../../shared/terminal';
import { LAKE_TABLES, parseSubcommand, tableArgument } from './arguments';
import { tablesLocation } from './location';
import { TABLES_SNAPSHOTS_COMMAND } from './spec';

/** A snapshot as `tables snapshots --json` prints it: the summary's values named, and all of it. */
function snapshotEntry(table: string, s: Snapshot, currentId: number | string | null) {
  const n = (key: string) => (s.summary[key] === undefined ? null : Number(s.summary[key]));
  return {
    table,
    snapshotId: s['snapshot-id'],
    parentSnapshotId: s['parent-snapshot-id'] ?? null,
    sequenceNumber: s['sequence-number'],
    committedAt: new Date(s['timestamp-ms']).toISOString(),
    operation: s.summary.operation,
    runId: s.summary['report-export.run-id'] ?? null,
    requestId: s.summary['report-export.request-id'] ?? null,
    addedRows: n('added-records'),
    deletedRows: n('deleted-records'),
    totalRows: n('total-records'),
    rollbackTo: s.summary['report-export.rollback-to'] ?? null,
    rollbackTenant: s.summary['report-export.rollback-tenant'] ?? null,
    current: currentId !== null && String(currentId) === String(s['snapshot-id']),
    summary: s.summary,
  };
}

export async function tablesSnapshots(argv: readonly string[], io: IOStreams): Promise<number> {
  const parsed = parseSubcommand(TABLES_SNAPSHOTS_COMMAND, argv, io);
  if (parsed === undefined) return 0;
  const { v, args } = parsed;
  if (args.length > 1)
    throw new UsageError(`tables snapshots takes one table at most, got ${args.join(' ')}`);
  const datasets = args[0] === undefined ? LAKE_TABLES : [tableArgument(args[0], 'tables snapshots')];
  const lake = await tablesLocation('tables snapshots', v, io);
  const entries: ReturnType<typeof snapshotEntry>[] = [];
  for (const dataset of datasets) {
    const { snapshots, currentSnapshotId } = await listSnapshots(lakeTable(lake, dataset));
    if (snapshots.length === 0) io.stderr.write(`${dataset}: no snapshot yet (no table, or no commit)\n`);
    for (const s of snapshots) entries.push(snapshotEntry(dataset, s, currentSnapshotId));
  }
  if (v.json) {
    io.stdout.write(`${JSON.stringify(entries)}\n`);
    return 0;
  }
  if (entries.length === 0) return 0;
  const c = colors(io.stdout, io.env);
  const count = (x: number | null) => (x === null ? '' : formatCount(x));
  const rows = entries.map((e) => ({
    table: e.table,
    snapshot: String(e.snapshotId),
    committed: e.committedAt.replace('T', ' ').slice(0, 19),
    operation: e.operation,
    run:
      e.rollbackTo === null
        ? (e.runId ?? '')
        : `rollback${e.rollbackTenant === null ? '' : ` of ${e.rollbackTenant}`} to ${e.rollbackTo}`,
    request: e.requestId ?? '',
    added: count(e.addedRows),
    deleted: count(e.deletedRows),
    total: count(e.totalRows),
    current: e.current ? 'current' : '',
  }));
  io.stdout.write(
    renderTable(
      rows,
      [
        'table',
        'snapshot',
        { key: 'committed', header: 'committed (UTC)' },
        'operation',
        'run',
        'request',
        { key: 'added', header: 'rows added', align: 'right' },
        { key: 'deleted', header: 'deleted', align: 'right' },
        { key: 'total', header: 'total rows', align: 'right' },
        { key: 'current', format: (s) => c.green(String(s)) },
      ],
      { header: c.bold },
    ),
  );
  return 0;
}
