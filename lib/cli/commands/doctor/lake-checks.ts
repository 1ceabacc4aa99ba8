import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import {
  CONTACT_TABLES,
  hasLocalTable,
  LAKE_DATASETS,
  type LakeTableName,
  localLakeTables,
  readTables,
} from '../../shared/lake-tables';
import { type Check, check } from './report';

/**
 * `lake.tables` and `lake.table`: each Iceberg table of the local lake read as `query` and
 * `npm start` read it (its current metadata, its snapshot's manifest list and manifests, the
 * live data files they name; files themselves are not opened), so a table no reader can open
 * is named before the next run commits on top of it. Local files only.
 */
export async function lakeChecks(lakeDir: string): Promise<Check[]> {
  if ((await stat(lakeDir).catch(() => undefined))?.isDirectory() !== true) {
    return [check('lake.tables', 'skip', `no lake at ${lakeDir} yet (npm start, or run --out, writes it)`)];
  }
  const names: LakeTableName[] = [];
  for (const name of [...LAKE_DATASETS, ...CONTACT_TABLES])
    if (await hasLocalTable(lakeDir, name)) names.push(name);
  if (names.length === 0) {
    return [
      check(
        'lake.tables',
        'skip',
        `${lakeDir} has no Iceberg tables (nothing exported yet, or the Hive layout)`,
      ),
    ];
  }
  const lake = localLakeTables(lakeDir);
  const checks = await Promise.all(names.map((name) => tableCheck(lake, lakeDir, name)));
  // The summary says what was found; each table's verdict is its own check (counted once).
  const failed = checks.filter((c) => c.status === 'fail').map((c) => c.subject);
  const summary = check(
    'lake.tables',
    'ok',
    `${names.length} Iceberg table${names.length === 1 ? '' : 's'} in ${lakeDir} (${names.join(', ')})${failed.length > 0 ? `, ${failed.length} unreadable (below): queries and the next commit to ${failed.length === 1 ? 'it' : 'them'} fail` : ''}`,
  );
  return [summary, ...checks];
}

async function tableCheck(
  lake: ReturnType<typeof localLakeTables>,
  lakeDir: string,
  name: LakeTableName,
): Promise<Check> {
  try {
    const [read] = await readTables(lake, [name], { listHint: `report-export tables snapshots ${name}` });
    if (read?.snapshot === undefined)
      return check('lake.table', 'ok', 'no snapshot yet (reads as empty)', { subject: name });
    const at = new Date(read.snapshot['timestamp-ms']).toISOString();
    return check(
      'lake.table',
      'ok',
      `snapshot ${read.snapshot['snapshot-id']} of ${at}, ${read.files.length} data file${read.files.length === 1 ? '' : 's'}`,
      { subject: name },
    );
  } catch (error) {
    const metadata = path.join(lakeDir, 'tables', name, 'metadata');
    // A moved lake's error says its own remedy; any other is a damaged table.
    const moved = (error as Error).name === 'MovedLakeError';
    return check('lake.table', 'fail', `cannot be read: ${(error as Error).message.replace(/\s+/g, ' ')}`, {
      subject: name,
      fix: moved
        ? 'read it where it was written (see the message)'
        : `restore ${metadata} from a backup; or move ${path.join(lakeDir, 'tables', name)} aside and export again (npm start), which starts the table afresh`,
    });
  }
}
