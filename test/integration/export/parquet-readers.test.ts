import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readParquet } from 'parquet-wasm/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLocalTime, ZoneConverter } from '../../../lib/calendar';
import { exportReportResult } from '../../../lib/export';
import { COLUMNS } from '../../../lib/export/schema';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { resultStreamOf } from '../../support/result-stream';
import { readArrowIpcStream } from './arrow-ipc';

const ZONE = 'Europe/London';
const NAMES = ['Zoë', 'Ñandú 日本', '🚀 rocket 👩‍👩‍👧', '', 'a,b "q"\r\nnext line', 'x'.repeat(300)];
const INTS = [-2_147_483_648, 2_147_483_647, 0, -1];
const DOUBLES = [-1.5e300, 1e-300, 0.1, -0.000_001, 123_456_789.125, 9_007_199_254_740_991];
/** London's spring-forward and fall-back days, a leap day and an ordinary one. */
const DAYS = ['2024-03-31', '2024-10-27', '2024-02-29', '2024-07-01'];
/** The data is read as of this (11:00 BST on 2024-07-01): that day and later ones are provisional. */
const DATA_AS_OF = '2024-07-01T10:00:00Z';

/** Every column kind with nulls, empty and non-ASCII text, extremes, DST times, sub-ms digits. */
function sourceRows(): ResultRow[] {
  return Array.from({ length: 3_000 }, (_, i): ResultRow => {
    const day = DAYS[i % DAYS.length] as string;
    const minute = i % 180;
    const time = `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    const row: ResultRow = {
      connId: `c-${i}-${i % 11 === 0 ? '✓' : ''}`,
      start: `${day}T${time}${i % 3 === 0 ? `.${String(i).padStart(7, '1')}` : ''}`,
      userName: NAMES[i % NAMES.length] as string,
      cli: `+44${String(i * 7919).padStart(10, '0')}`,
      callType: INTS[i % INTS.length] as number,
      callDir: i,
      ring: DOUBLES[i % DOUBLES.length] as number,
      duration: -i / 7,
      docId: `d-${i}`,
    };
    // Nulls: a member left out in turn, and whole runs of them.
    if (i % 5 === 0) delete row.userName;
    if (i % 7 === 0) delete row.ring;
    if (i % 9 === 0) delete row.callType;
    if (i < 300) delete row.cli;
    // Members without a column: `extra`, JSON text, in every fourth row.
    if (i % 4 === 1) Object.assign(row, { queue: NAMES[i % NAMES.length], wait: i / 4 });
    return row;
  });
}

/** What every reader must return for a source row: epoch ms for both timestamps. */
function expectedRow(row: ResultRow, zone: ZoneConverter): Record<string, unknown> {
  const local = parseLocalTime(row.start as string) as number;
  const out: Record<string, unknown> = {};
  for (const c of COLUMNS) {
    if (c.source.from === 'member') {
      const v = row[c.source.member];
      // A negative zero is written as 0 (see the README's Numbers).
      out[c.name] = c.kind === 'localTimestamp' ? local : v === 0 ? 0 : (v ?? null);
    }
  }
  out.start_utc = zone.toUtc(local);
  out.report_id = 'report-1';
  out.request_id = 'req-0001';
  const { queue, wait } = row as { queue?: string; wait?: number };
  out.extra = queue === undefined ? null : JSON.stringify({ queue, wait });
  out.provisional = (row.start as string).slice(0, 10) >= '2024-07-01';
  return out;
}

/** DuckDB's JS values as the same plain values (timestamps as epoch ms). */
function fromDuckdb(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.getTime() : v]));
}

async function partFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries
    .filter((e) => e.endsWith('.parquet'))
    .map((e) => join(dir, e))
    .sort();
}

describe('Parquet files read by arrow-rs (parquet-wasm) and DuckDB', () => {
  let dir: string;
  let files: string[];
  const source = sourceRows();

  beforeAll(async () => {
    // Prepare: several parts per date and several row groups per part.
    dir = await mkdtemp(join(tmpdir(), 'parquet-readers-'));
    await exportReportResult({
      source: resultStreamOf(source),
      store: new LocalDirectoryStore(dir),
      reportId: 'report-1',
      encodeWorker: false,
      maxRowsPerFile: 400,
      rowGroupRows: 128,
      dataAsOf: DATA_AS_OF,
    });
    files = await partFiles(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads every value as the source gave it, in both readers, when rows cover every column kind', async () => {
    // Act
    const arrow = [];
    const duck = [];
    for (const file of files) {
      arrow.push(...readArrowIpcStream(readParquet(await readFile(file)).intoIPCStream()).rows);
      duck.push(
        ...(
          await duckdbQuery(`SELECT * FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`)
        ).map(fromDuckdb),
      );
    }

    // Assess: the same rows (order by conn_id: files are per date), value for value.
    const zone = new ZoneConverter(ZONE);
    const byConnId = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      String(a.conn_id) < String(b.conn_id) ? -1 : 1;
    const expected = source.map((r) => expectedRow(r, zone)).sort(byConnId);
    expect(files.length).toBeGreaterThan(DAYS.length);
    expect(arrow.sort(byConnId)).toEqual(expected);
    expect(duck.sort(byConnId)).toEqual(expected);
  });

  it('gives start as a local timestamp and start_utc as an instant when both carry TIMESTAMP_MILLIS', async () => {
    // Act
    const file = files[0] as string;
    const { fields } = readArrowIpcStream(readParquet(await readFile(file)).intoIPCStream());
    const described = await duckdbQuery(
      `DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`,
    );

    // Assess: readers that know the logical type keep isAdjustedToUTC apart (unit 1 = ms).
    const arrowType = (name: string) => fields.find((f) => f.name === name)?.type;
    expect(fields.map((f) => f.name)).toEqual([...COLUMNS.map((c) => c.name), 'provisional']);
    expect(fields.find((f) => f.name === 'provisional')).toEqual({
      name: 'provisional',
      nullable: false,
      type: { kind: 'bool' },
    });
    expect(arrowType('start')).toEqual({ kind: 'timestamp', unit: 1, timezone: null });
    expect(arrowType('start_utc')).toMatchObject({
      kind: 'timestamp',
      unit: 1,
      timezone: expect.any(String),
    });
    expect(arrowType('call_type')).toEqual({ kind: 'int', bitWidth: 32, signed: true });
    expect(arrowType('ring')).toEqual({ kind: 'float', precision: 2 });
    const duckType = (name: string) => described.find((d) => d.column_name === name)?.column_type;
    expect([duckType('start'), duckType('start_utc')]).toEqual(['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE']);
  });
});
