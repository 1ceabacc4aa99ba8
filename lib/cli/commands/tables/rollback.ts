import { UsageError } from '../../../command-line';
import { lakeTable, listSnapshots, rollbackTo } from '../../../export';
import type { IOStreams } from '../../shared/io-streams';
import { colors, formatCount } from '../../shared/terminal';
import { datasetArgument, lakeArguments, parseSubcommand } from './arguments';
import { tablesLocation } from './location';
import { TABLES_ROLLBACK_COMMAND } from './spec';

/** Who made a rollback snapshot, in its summary (besides rollbackTo's `report-export.rollback-to`). */
const ROLLBACK_FROM_KEY = 'report-export.rollback-from';

/**
 * `tables rollback <table> <snapshot-id>`: a new snapshot whose data is the target's. Like
 * the other commands that change what is stored (directory delete, run), it asks nothing:
 * the change is itself undone by a rollback to the snapshot that was current, which it prints.
 */
export async function tablesRollback(argv: readonly string[], io: IOStreams): Promise<number> {
  const parsed = parseSubcommand(TABLES_ROLLBACK_COMMAND, argv, io);
  if (parsed === undefined) return 0;
  const { v, args } = parsed;
  const [word, id, ...extra] = args;
  if (word === undefined || id === undefined || extra.length > 0) {
    throw new UsageError(
      `tables rollback takes a table and a snapshot id (tables rollback calls <snapshot-id>), got ${args.length} argument${args.length === 1 ? '' : 's'}`,
    );
  }
  const dataset = datasetArgument(word, 'tables rollback');
  const lake = await tablesLocation('tables rollback', v, io);
  const table = lakeTable(lake, dataset);
  const listHint = `report-export tables snapshots ${dataset} ${lakeArguments(v)}`;
  const { snapshots, currentSnapshotId } = await listSnapshots(table);
  const target = snapshots.find((s) => String(s['snapshot-id']) === id);
  if (target === undefined) {
    throw new UsageError(
      `table ${dataset} has no snapshot '${id}' (it has ${snapshots.length}; an expired snapshot is gone); list them: ${listHint}`,
    );
  }
  const c = colors(io.stdout, io.env);
  if (String(currentSnapshotId) === id) {
    if (v.json)
      io.stdout.write(
        `${JSON.stringify({ table: dataset, snapshotId: target['snapshot-id'], rolledBack: false })}\n`,
      );
    else io.stdout.write(`${dataset} is at snapshot ${id} already: nothing to roll back\n`);
    return 0;
  }
  const result = await rollbackTo(table, target['snapshot-id'], {
    [ROLLBACK_FROM_KEY]: String(currentSnapshotId),
  });
  const undo = `report-export tables rollback ${dataset} ${currentSnapshotId} ${lakeArguments(v)}`;
  if (v.json) {
    io.stdout.write(
      `${JSON.stringify({
        table: dataset,
        rolledBack: true,
        rolledBackTo: target['snapshot-id'],
        previousSnapshotId: currentSnapshotId,
        snapshotId: result.snapshotId,
        sequenceNumber: result.sequenceNumber,
        addedFiles: result.addedFiles,
        deletedFiles: result.deletedFiles,
        addedRows: result.addedRows,
        deletedRows: result.deletedRows,
        totalRows:
          target.summary['total-records'] === undefined ? null : Number(target.summary['total-records']),
        attempts: result.attempts,
        conflicts: result.conflicts,
        undo,
      })}\n`,
    );
    return 0;
  }
  const committed = new Date(target['timestamp-ms']).toISOString();
  io.stdout.write(
    [
      `${c.green('Rolled back')} ${dataset} to snapshot ${id} (committed ${committed}${target.summary['report-export.run-id'] === undefined ? '' : ` by run ${target.summary['report-export.run-id']}`})`,
      `  new snapshot ${c.bold(String(result.snapshotId))}: data files +${formatCount(result.addedFiles)} -${formatCount(result.deletedFiles)}, rows +${formatCount(result.addedRows)} -${formatCount(result.deletedRows)}${target.summary['total-records'] === undefined ? '' : `, ${formatCount(Number(target.summary['total-records']))} rows in the table`}`,
      `  the previous snapshot ${currentSnapshotId} stays readable (query --as-of ${currentSnapshotId}); undo: ${undo}`,
      '',
    ].join('\n'),
  );
  return 0;
}
