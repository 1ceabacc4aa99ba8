import { setTimeout as sleep } from 'node:timers/promises';
import { exportReportResult } from '../../../lib/export';
import { fileCatalogOf, LocalDirectoryStore, type ObjectStore } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';

/** The days of the first export; the second replaces the middle one. */
export const TABLE_LAKE_DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];

/**
 * A lake written by the real export into Iceberg tables (the file catalog, as `npm start`
 * writes it): report `report-1`, 3 calls on each of the 3 days (request `req-1`), then a
 * re-export of 2026-11-21 with 5 calls (`req-2`), into a directory or a store. Resolves
 * with both snapshots of `calls`.
 */
export async function writeTableLake(lake: string | ObjectStore): Promise<{ first: number; second: number }> {
  const store = typeof lake === 'string' ? new LocalDirectoryStore(lake) : lake;
  const tables = { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' };
  const run = async (tag: string, dates: string[], perDay: number, requestId: string) => {
    const summary = await exportReportResult({
      source: resultStreamOf(callsOn(dates, perDay, tag), { requestId }),
      store,
      reportId: 'report-1',
      windowDates: dates,
      encodeWorker: false,
      tables,
    });
    if (summary.table === undefined) throw new Error('the export committed no snapshot');
    return summary.table.snapshotId;
  };
  const first = await run('a', TABLE_LAKE_DAYS, 3, 'req-1');
  // Snapshot times are milliseconds: the second commit must come at a later one, so that
  // "as of the first snapshot's time" names the first.
  await sleep(5);
  const second = await run('b', ['2026-11-21'], 5, 'req-2');
  return { first, second };
}
