import { setTimeout as sleep } from 'node:timers/promises';
import { exportReportResult } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { fileCatalogOf, type LocalDirectoryStore } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';

/** The days of acme's first calls export (and bruin's). */
export const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];
/** The day acme's summaries cover. */
export const SUMMARY_DAY = '2026-11-20';
const SUMMARY_FIELDS = ['userName', 'userNum', 'ans', 'ref', 'lost', 'ring', 'duration'];

/** Snapshot ids of the multi-tenant lake's history (see writeTenantLake). */
export interface TenantLake {
  /** acme's first summary: the point the tests roll acme back to. */
  target: number;
  /** The current snapshots of calls and summaries after the history. */
  calls: number;
  summaries: number;
}

/**
 * A multi-tenant lake as the export writes it (file catalog, CSV beside the tables): tenants
 * acme and bruin, report `calls-1` (calls) and `sum-1` (summaries). In order: acme's calls on
 * DAYS (3 a day), acme's summary of SUMMARY_DAY (ans 3) -- the target --, bruin's calls on DAYS
 * (2 a day), acme's re-export of 2026-11-21 and a new day 2026-11-23 (5 a day), acme's summary
 * again (ans 7), bruin's re-export of 2026-11-22 (4).
 */
export async function writeTenantLake(store: LocalDirectoryStore): Promise<TenantLake> {
  const tables = { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' };
  const run = async (
    tenant: string,
    reportId: string,
    rows: ResultRow[],
    dates: string[],
    requestId: string,
    summary = false,
  ) => {
    const result = await exportReportResult({
      source: resultStreamOf(rows, summary ? { requestId, displayFields: SUMMARY_FIELDS } : { requestId }),
      store,
      tenant,
      reportId,
      windowDates: dates,
      encodeWorker: false,
      tables,
    });
    // Snapshot times are milliseconds: each commit at a later one, so "current at the
    // target's time" names the target's state.
    await sleep(5);
    if (result.table === undefined) throw new Error('the export committed no snapshot');
    return result.table.snapshotId;
  };
  const users = (ans: number) =>
    [{ userName: 'Ann', userNum: '201', ans, ref: 0, lost: 1, ring: 12.5, duration: 300 }] as never[];
  await run('acme', 'calls-1', callsOn(DAYS, 3, 'a1'), DAYS, 'req-a1');
  const target = await run('acme', 'sum-1', users(3), [SUMMARY_DAY], 'req-as1', true);
  await run('bruin', 'calls-1', callsOn(DAYS, 2, 'b1'), DAYS, 'req-b1');
  await run(
    'acme',
    'calls-1',
    callsOn(['2026-11-21', '2026-11-23'], 5, 'a2'),
    ['2026-11-21', '2026-11-23'],
    'req-a2',
  );
  const summaries = await run('acme', 'sum-1', users(7), [SUMMARY_DAY], 'req-as2', true);
  const calls = await run('bruin', 'calls-1', callsOn(['2026-11-22'], 4, 'b2'), ['2026-11-22'], 'req-b2');
  return { target, calls, summaries };
}

/** `tables rollback <target> --tenant <tenant> --force --dir <root>`, then `extra`. */
export function forcedRollback(root: string, target: number, tenant: string, ...extra: string[]): string[] {
  return ['tables', 'rollback', String(target), '--tenant', tenant, '--force', '--dir', root, ...extra];
}
