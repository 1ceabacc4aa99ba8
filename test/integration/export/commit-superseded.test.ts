import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import {
  commitStagedRuns,
  ensureTable,
  exportReportResult,
  type StagedRunRef,
  tableSchema,
} from '../../../lib/export';
import { tableLocation } from '../../../lib/export/table';
import type { ResultRow } from '../../../lib/spec/types';
import { fileCatalogOf, type LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { useServedLakes } from './served-lakes';

const TENANT = 'acme';
const OLD_DAYS = ['2026-11-20', '2026-11-21'];
const NEW_DAYS = ['2026-11-20'];

describe('commitStagedRuns after a newer export of the same days (an older execution committing last)', () => {
  const lake = useServedLakes('commit-superseded-');

  const tables = (store: LocalDirectoryStore) => ({
    catalog: fileCatalogOf({ store, prefix: '' }),
    namespace: '',
  });

  /** A tenant's deferred run of report r1 over `days`, exported at `exportedAt` (its data read as of `dataAsOf`). */
  async function defer(
    store: LocalDirectoryStore,
    rows: ResultRow[],
    days: string[],
    requestId: string,
    exportedAt: string,
    dataAsOf?: string,
  ): Promise<StagedRunRef> {
    const summary = await exportReportResult({
      source: resultStreamOf(rows, { requestId }),
      store,
      reportId: 'r1',
      tenant: TENANT,
      windowDates: days,
      encodeWorker: false,
      tables: tables(store),
      commit: 'defer',
      now: () => new Date(exportedAt),
      ...(dataAsOf === undefined ? {} : { dataAsOf }),
    });
    if (summary.staged === undefined) throw new Error('nothing staged');
    return summary.staged;
  }

  const commit = (store: LocalDirectoryStore, ref: StagedRunRef) =>
    commitStagedRuns({ store, prefix: '', tables: tables(store), tenant: TENANT }, [ref]);
  const connIdsOn = async (store: LocalDirectoryStore, dt: string) =>
    (await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` }))
      .filter(
        (r) => String(r.dt).startsWith(dt) || (r.dt instanceof Date && r.dt.toISOString().startsWith(dt)),
      )
      .map((r) => String(r.conn_id))
      .sort();
  const csvRunOf = async (store: LocalDirectoryStore, dt: string) =>
    (
      JSON.parse(
        Buffer.from(
          await readObject(store, `calls/format=csv/tenant=${TENANT}/report_id=r1/dt=${dt}/_manifest.json`),
        ).toString('utf8'),
      ) as { runId: string }
    ).runId;

  it("keeps the newer export's rows of a day both replace, lands the older run's other days, and names the day it kept", async () => {
    // Prepare: the older run (exported at 01:00) of two days, then the newer (01:30) of the
    // first day, with other calls; the newer commits first.
    const store = await lake();
    await ensureTable(
      {
        catalog: tables(store).catalog,
        id: { namespace: '', name: 'calls' },
        location: tableLocation(store, '', 'calls'),
      },
      tableSchema(),
      { tenant: TENANT },
    );
    const olderRows = callsOn(OLD_DAYS, 2, 'old');
    const newerRows = callsOn(NEW_DAYS, 3, 'new');
    const older = await defer(store, olderRows, OLD_DAYS, 'req-old', '2026-11-22T01:00:00.000Z');
    const newer = await defer(store, newerRows, NEW_DAYS, 'req-new', '2026-11-22T01:30:00.000Z');
    const newerCommit = await commit(store, newer);
    const filesBefore = (await listAll(store, 'tables/calls/data/')).map((o) => o.key);

    // Act
    const result = await commit(store, older);

    // Assess: the first day keeps the newer rows (table and CSV); the second is the older run's.
    expect(newerCommit.runs[0]).toMatchObject({ status: 'committed', partitions: 1 });
    expect(result.runs[0]).toMatchObject({
      status: 'committed',
      partitions: 1,
      rows: 2,
      superseded: ['2026-11-20'],
    });
    expect(await connIdsOn(store, '2026-11-20')).toEqual(newerRows.map((r) => String(r.connId)).sort());
    expect(await connIdsOn(store, '2026-11-21')).toEqual(
      olderRows
        .filter((r) => String(r.start).startsWith('2026-11-21'))
        .map((r) => String(r.connId))
        .sort(),
    );
    expect(await csvRunOf(store, '2026-11-20')).toBe(newer.runId);
    expect(await csvRunOf(store, '2026-11-21')).toBe(older.runId);
    // The older run's file of the kept day is no snapshot's: deleted, not left as an orphan.
    const filesAfter = (await listAll(store, 'tables/calls/data/')).map((o) => o.key);
    expect(filesAfter.filter((k) => k.includes('dt=2026-11-20'))).toHaveLength(
      filesBefore.filter((k) => k.includes('dt=2026-11-20')).length - 1,
    );
    expect(await listAll(store, '_staging/')).toEqual([]);
  });

  it('keeps the copy read later when a run that read the day earlier exports and commits after it', async () => {
    // Prepare: a refresh read the 20th at 23:55 (provisional) but its export finished at
    // 00:50; one that read it whole at 00:40 exported at 00:41 and committed first.
    const store = await lake();
    await ensureTable(
      {
        catalog: tables(store).catalog,
        id: { namespace: '', name: 'calls' },
        location: tableLocation(store, '', 'calls'),
      },
      tableSchema(),
      { tenant: TENANT },
    );
    const early = callsOn(NEW_DAYS, 2, 'early');
    const whole = callsOn(NEW_DAYS, 3, 'whole');
    const slow = await defer(
      store,
      early,
      NEW_DAYS,
      'req-early',
      '2026-11-21T00:50:00.000Z',
      '2026-11-20T23:55:00Z',
    );
    const quick = await defer(
      store,
      whole,
      NEW_DAYS,
      'req-whole',
      '2026-11-21T00:41:00.000Z',
      '2026-11-21T00:40:00Z',
    );
    await commit(store, quick);

    // Act
    const result = await commit(store, slow);

    // Assess: the day keeps the copy read later, settled; the slow run lands nothing.
    expect(result.runs[0]).toMatchObject({ superseded: ['2026-11-20'], partitions: 0 });
    expect(await connIdsOn(store, '2026-11-20')).toEqual(whole.map((r) => String(r.connId)).sort());
    const rows = await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` });
    expect(new Set(rows.map((r) => r.provisional))).toEqual(new Set([false]));
    expect(await csvRunOf(store, '2026-11-20')).toBe(quick.runId);
  });
});
