import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { columnName } from '../../../lib/export/schema';
import { listSnapshots, liveFiles, tableLocation } from '../../../lib/export/table';
import type { ResultRow } from '../../../lib/spec/types';
import { fileCatalogOf, type LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf, sampleRow } from '../../support/result-stream';
import { useServedLakes } from './served-lakes';

const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];

/** What a reader of the table must see of a row: every member, as its Iceberg type reads. */
function expected(row: ResultRow, dt: string, requestId: string): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      Object.entries(row).map(([k, v]) => [columnName(k), k === 'start' ? `${v}.000Z` : v]),
    ),
    start_utc: new Date(new Date(`${row.start}Z`).getTime()).toISOString(), // London in November is UTC
    report_id: 'report-1',
    request_id: requestId,
    extra: null,
    provisional: false,
    dt,
  };
}

function normalised(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof Date) out[k] = k === 'dt' ? v.toISOString().slice(0, 10) : v.toISOString();
    else if (typeof v === 'bigint') out[k] = Number(v);
    else out[k] = v;
  }
  return out;
}

const byConnId = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.conn_id).localeCompare(String(b.conn_id));

describe('exportReportResult into Iceberg tables (file catalog)', () => {
  /** A lake of its own for each test. */
  const lake = useServedLakes('iceberg-export-');

  async function run(
    store: LocalDirectoryStore,
    rows: ResultRow[],
    requestId: string,
    dates = DAYS,
    forceReplace = false,
  ) {
    return exportReportResult({
      forceReplace,
      source: resultStreamOf(rows, { requestId }),
      store,
      reportId: 'report-1',
      windowDates: dates,
      encodeWorker: false,
      tables: { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' },
    });
  }

  it('commits one snapshot per run that icebird reads back exactly, before and after a re-export of some days', async () => {
    const store = await lake();
    const first = callsOn(DAYS, 3, 'a');
    const one = await run(store, first, 'req-1');
    expect(one.table).toMatchObject({ catalog: 'file', table: 'calls', attempts: 1, conflicts: 0 });

    const tableUrl = `${store.rootUri}/tables/calls`;
    const read1 = (await icebergRead({ tableUrl })).map(normalised).sort(byConnId);
    const want1 = DAYS.flatMap((d) =>
      first.filter((r) => String(r.start).startsWith(d)).map((r) => expected(r, d, 'req-1')),
    );
    expect(read1).toEqual(want1.sort(byConnId));

    // A re-export of the middle day: 5 new calls replace its 3; the other days stay.
    const second = callsOn(['2026-11-21'], 5, 'b');
    const two = await run(store, second, 'req-2', ['2026-11-21']);
    expect(two.table?.snapshotId).not.toBe(one.table?.snapshotId);
    const read2 = (await icebergRead({ tableUrl })).map(normalised).sort(byConnId);
    const want2 = [
      ...first
        .filter((r) => !String(r.start).startsWith('2026-11-21'))
        .map((r) => expected(r, String(r.start).slice(0, 10), 'req-1')),
      ...second.map((r) => expected(r, '2026-11-21', 'req-2')),
    ].sort(byConnId);
    expect(read2).toEqual(want2);

    // The earlier snapshot is still there: icebird at the metadata version of the first run.
    const atFirst = (await icebergRead({ tableUrl, metadataFileName: 'v2.metadata.json' }))
      .map(normalised)
      .sort(byConnId);
    expect(atFirst).toEqual(read1);

    const table = {
      catalog: fileCatalogOf({ store, prefix: '' }),
      id: { namespace: '', name: 'calls' },
      location: tableLocation(store, '', 'calls'),
    };
    const { snapshots } = await listSnapshots(table);
    expect(snapshots.map((s) => s.summary['report-export.request-id'])).toEqual(['req-1', 'req-2']);
    const old = await liveFiles(table, { snapshotId: one.table?.snapshotId as number });
    expect(old.files.reduce((n, f) => n + f.rows, 0)).toBe(9);

    // No Hive-layout Parquet was written; the CSV is as before.
    expect(await listAll(store, 'calls/format=parquet/')).toEqual([]);
    const csv = await readObject(store, 'calls/format=csv/report_id=report-1/dt=2026-11-21/part-00000.csv');
    expect(
      Buffer.from(csv)
        .toString('utf8')
        .split('\r\n')
        .filter((l) => l !== '').length,
    ).toBe(6);
  });

  it('a re-export whose window has a day without rows deletes that day from the table (forced past the shrink guard)', async () => {
    const store = await lake();
    await run(store, callsOn(DAYS, 2, 'a'), 'req-1');
    await run(store, callsOn(['2026-11-20'], 2, 'c'), 'req-2', ['2026-11-20', '2026-11-22'], true);
    const rows = (await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` })).map(normalised);
    expect(rows.map((r) => `${r.dt} ${r.request_id}`).sort()).toEqual([
      '2026-11-20 req-2',
      '2026-11-20 req-2',
      '2026-11-21 req-1',
      '2026-11-21 req-1',
    ]);
  });

  it('the shrink guard reads the table: a day with fewer calls is held and the table keeps it', async () => {
    const store = await lake();
    await run(store, callsOn(DAYS, 4, 'a'), 'req-1');
    const again = await run(
      store,
      [...callsOn(['2026-11-20'], 1, 'd'), ...callsOn(['2026-11-21', '2026-11-22'], 4, 'e')],
      'req-2',
    );
    expect(again.held.map((h) => h.dt)).toEqual(['2026-11-20']);
    const rows = (await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` })).map(normalised);
    expect(rows.filter((r) => r.dt === '2026-11-20').map((r) => r.request_id)).toEqual([
      'req-1',
      'req-1',
      'req-1',
      'req-1',
    ]);
    expect(rows.filter((r) => r.dt === '2026-11-22').every((r) => r.request_id === 'req-2')).toBe(true);
  });

  it('a row with a member the schema does not know keeps it in extra, read back as a string', async () => {
    const store = await lake();
    await run(
      store,
      [{ ...sampleRow({ connId: 'x1', start: '2026-11-20T08:00:00' }), accountCode: 'A7' } as ResultRow],
      'req-1',
    );
    const [row] = await icebergRead({ tableUrl: `${store.rootUri}/tables/calls` });
    expect(row?.extra).toBe('{"accountCode":"A7"}');
  });
});
