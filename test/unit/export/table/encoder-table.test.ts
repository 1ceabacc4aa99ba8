import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { icebergRead } from 'icebird';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitOverwrite, ensureTable, fileSchema, type IcebergTable } from '../../../../lib/export';
import { ParquetFileEncoder } from '../../../../lib/export/formats/parquet-encoder';
import { CALLS_SCHEMA } from '../../../../lib/export/schema';
import type { ResultRow } from '../../../../lib/spec/types';
import { useStoreFetch } from '../../../support/store-fetch';
import { encodeFile } from '../formats/encode-file';
import { fileTable } from './table-fixture';

const DAY = '2026-11-24';

/** Calls of DAY (UTC), every other one without ring; the report id is encodeFile's `r`. */
function calls(tag: string, n: number): ResultRow[] {
  return Array.from({ length: n }, (_, i) => {
    const row: ResultRow = {
      connId: `${tag}-${i}`,
      start: `${DAY}T0${i}:15:00.${String(100 + i)}`,
      userName: `user ${i}`,
      ring: i + 0.25,
    };
    if (i % 2 === 1) delete row.ring;
    return row;
  });
}

describe('a table of data files from our Parquet encoder', () => {
  let root: string;
  let table: IcebergTable;
  const useFetch = useStoreFetch();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'iceberg-encoder-'));
    table = fileTable(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function publish(rows: ResultRow[]) {
    const loaded = await ensureTable(table, CALLS_SCHEMA);
    const encoder = new ParquetFileEncoder({ iceberg: { file: fileSchema(loaded), dt: DAY } });
    const bytes = new Uint8Array(encodeFile([rows], encoder));
    const key = `${table.location.key}/data/report_id=r/dt=${DAY}/${rows[0]?.connId}.parquet`;
    await table.location.store.put(key, bytes);
    const file = { key, dt: DAY, rows: rows.length, bytes: bytes.byteLength };
    return await commitOverwrite(table, { reportId: 'r', dts: [DAY], files: [file], summary: {} });
  }

  it('reads back every value icebird gives of the current and the earlier snapshot', async () => {
    // Prepare
    await publish(calls('a', 3));
    await publish(calls('b', 2));
    useFetch(table.location.store);

    // Act
    const read = async (metadataFileName?: string) =>
      (
        await icebergRead({ tableUrl: table.location.uri, ...(metadataFileName ? { metadataFileName } : {}) })
      ).map((r) => ({
        conn_id: r.conn_id,
        start: (r.start as Date).toISOString(),
        user_name: r.user_name,
        ring: r.ring,
        report_id: r.report_id,
        dt: (r.dt as Date).toISOString().slice(0, 10),
      }));
    const earlier = await read('v2.metadata.json');
    const current = await read();

    // Assess
    const expected = (rows: ResultRow[]) =>
      rows.map((r) => ({
        conn_id: r.connId,
        start: `${r.start}Z`,
        user_name: r.userName,
        ring: r.ring ?? null,
        report_id: 'r',
        dt: DAY,
      }));
    expect(earlier).toEqual(expected(calls('a', 3)));
    expect(current).toEqual(expected(calls('b', 2)));
  });
});
