import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportResultStream } from '../../../lib/api';
import { windowForDates } from '../../../lib/calendar';
import {
  EXPORT_ERROR_CODES,
  type ExportOptions,
  exportReportResult,
  type PartitionManifest,
} from '../../../lib/export';
import { COLUMNS } from '../../../lib/export/schema';
import { LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { snapshot } from './failing-store';

const reportId = 'rep-s';
const DAY = '2026-06-01';
const DISPLAY_FIELDS = ['userName', 'userNum', 'ans', 'ref', 'lost', 'ring', 'duration', 'calls'];

/** Totals per user, as a summary report's rows come (no start, no connId). */
const ROWS = [
  '{"userName":"Alice","userNum":"201","ans":40,"ref":2,"lost":3,"ring":123.5,"duration":4567.25,"calls":45}',
  '{"userName":"Bob, \\"B\\"","userNum":"202","ans":0,"ref":0,"lost":1,"ring":0,"duration":0,"calls":1}',
  '{"userName":"Carol","userNum":"203","ans":7,"ref":1,"lost":0,"ring":12.25,"duration":300,"calls":8.50}',
];
const EXPECTED = [
  {
    user_name: 'Alice',
    user_num: '201',
    ans: 40,
    ref: 2,
    lost: 3,
    ring: 123.5,
    duration: 4567.25,
    extra: '{"calls":45}',
    dt: DAY,
  },
  {
    user_name: 'Bob, "B"',
    user_num: '202',
    ans: 0,
    ref: 0,
    lost: 1,
    ring: 0,
    duration: 0,
    extra: '{"calls":1}',
    dt: DAY,
  },
  {
    user_name: 'Carol',
    user_num: '203',
    ans: 7,
    ref: 1,
    lost: 0,
    ring: 12.25,
    duration: 300,
    extra: '{"calls":8.50}',
    dt: DAY,
  },
];

/** A result document as the service writes it, with its request's displayFields. */
function documentOf(
  rows: readonly string[],
  options: { requestId?: string; fields?: string[] } = {},
): Buffer {
  const requestId = options.requestId ?? 'req-s';
  const displayFields = (options.fields ?? DISPLAY_FIELDS).map((fieldName) => ({
    fieldName,
    mandatory: false,
  }));
  const head = {
    requestId,
    tenantId: 't',
    request: { requestId, reportId, timeZoneId: 'Europe/London', displayFields },
    totalCount: rows.length,
  };
  return Buffer.from(
    `${JSON.stringify(head).slice(0, -1)},"data":[\n${rows.join(',\n')}\n],"summary":[],"status":1,"rowLimit":1000000}`,
  );
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function partitionPath(format: 'parquet' | 'csv', dt = DAY): string {
  return `summaries/format=${format}/report_id=${reportId}/dt=${dt}/`;
}

const SELECT = `user_name, user_num, ans::INTEGER AS ans, ref::INTEGER AS ref, lost::INTEGER AS lost, ring::DOUBLE AS ring, duration::DOUBLE AS duration, extra::VARCHAR AS extra, CAST(dt AS VARCHAR) AS dt`;

describe('exportReportResult with a summary result', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'summ-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function exportSummary(
    rows: readonly string[],
    options: Partial<ExportOptions> = {},
    document: { requestId?: string; fields?: string[] } = {},
  ) {
    const source = await parseReportResultStream(chunks(documentOf(rows, document), 53));
    return exportReportResult({
      source,
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(DAY, DAY, 'Europe/London'),
      ...options,
    });
  }

  it('publishes the rows under summaries on the window day and nothing under calls when no display field is start', async () => {
    // Act
    const summary = await exportSummary(ROWS);

    // Assess
    expect(summary.dataset).toBe('summaries');
    expect(summary.rows).toBe(3);
    expect(summary.partitions.map((p) => [p.dt, p.rows, p.files])).toEqual([[DAY, 3, 2]]);
    const keys = (await listAll(store, '')).map((o) => o.key);
    expect(keys).toEqual([
      `${partitionPath('csv')}_manifest.json`,
      `${partitionPath('csv')}part-00000.csv`,
      `${partitionPath('parquet')}_manifest.json`,
      `${partitionPath('parquet')}part-00000.parquet`,
    ]);
    for (const format of ['parquet', 'csv'] as const) {
      const manifest = JSON.parse(
        Buffer.from(await readObject(store, `${partitionPath(format)}_manifest.json`)).toString(),
      ) as PartitionManifest;
      expect(manifest).toMatchObject({ dataset: 'summaries', dt: DAY, rows: 3, format, reportId });
    }
  });

  it.each(['parquet', 'csv'] as const)(
    'reads back every row exactly, without start or start_utc and with unknown members in extra, when the format is %s',
    async (format) => {
      // Act
      await exportSummary(ROWS);

      // Assess
      const file = join(root, `${partitionPath(format)}part-00000.${format}`);
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(file)}, hive_partitioning = false)`
          : `read_csv(${sqlString(file)}, header = true, quote = '"', escape = '"', allow_quoted_nulls = false, hive_partitioning = false, all_varchar = true)`;
      const described = await duckdbQuery(`DESCRIBE SELECT * FROM ${from}`);
      expect(described.map((d) => d.column_name)).toEqual([
        ...COLUMNS.map((c) => c.name).filter((n) => n !== 'start' && n !== 'start_utc'),
        'provisional',
      ]);
      const glob = join(root, `summaries/format=${format}/report_id=${reportId}/*/part-*`);
      const all =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)}, hive_partitioning = true)`
          : `read_csv(${sqlString(glob)}, header = true, quote = '"', escape = '"', allow_quoted_nulls = false, hive_partitioning = true, all_varchar = true)`;
      const rows = await duckdbQuery(
        `SELECT ${SELECT}, conn_id, report_id, request_id FROM ${all} ORDER BY user_num`,
      );
      expect(rows).toEqual(
        EXPECTED.map((r) => ({ ...r, conn_id: null, report_id: reportId, request_id: 'req-s' })),
      );
    },
  );

  it("writes the summaries dataset's promoted columns after extra and not the calls one's when both are declared", async () => {
    // Prepare
    const rows = [
      '{"userName":"Alice","userNum":"201","ans":40,"calls":45,"team":"North"}',
      '{"userName":"Bob","userNum":"202","ans":0,"team":"South"}',
    ];

    // Act
    await exportSummary(rows, {
      promotedColumns: {
        calls: [{ name: 'team', type: 'string' }],
        summaries: [{ name: 'calls', type: 'int' }],
      },
    });

    // Assess
    const file = join(root, `${partitionPath('parquet')}part-00000.parquet`);
    const described = await duckdbQuery(
      `DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`,
    );
    expect(described.slice(-3).map((d) => [d.column_name, d.column_type])).toEqual([
      ['extra', 'JSON'],
      ['calls', 'INTEGER'],
      ['provisional', 'BOOLEAN'],
    ]);
    const got = await duckdbQuery(
      `SELECT user_num, calls, extra::VARCHAR AS extra FROM read_parquet(${sqlString(file)}) ORDER BY user_num`,
    );
    expect(got).toEqual([
      { user_num: '201', calls: 45, extra: '{"team":"North"}' },
      { user_num: '202', calls: null, extra: '{"team":"South"}' },
    ]);
    const manifest = JSON.parse(
      Buffer.from(await readObject(store, `${partitionPath('csv')}_manifest.json`)).toString(),
    ) as PartitionManifest;
    expect(manifest.promotedColumns).toEqual([{ name: 'calls', type: 'int' }]);
  });

  it.each([
    { day: '2026-03-29', zone: 'Europe/London', hours: 23 },
    { day: '2026-10-25', zone: 'Europe/London', hours: 25 },
    { day: '2026-11-01', zone: 'America/New_York', hours: 25 },
  ])('publishes on $day when the window is that day of $hours hours in $zone', async ({ day, zone }) => {
    // Prepare
    const requestId = 'req-dst';
    const head = {
      requestId,
      tenantId: 't',
      request: {
        requestId,
        reportId,
        timeZoneId: zone,
        displayFields: DISPLAY_FIELDS.map((fieldName) => ({ fieldName, mandatory: false })),
      },
      totalCount: 1,
    };
    const document = `${JSON.stringify(head).slice(0, -1)},"data":[${ROWS[0]}],"summary":[],"status":1,"rowLimit":1000000}`;
    const source = await parseReportResultStream(chunks(Buffer.from(document), 53));

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      encodeWorker: false,
      window: windowForDates(day, day, zone),
    });

    // Assess
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([[day, 1]]);
    expect((await listAll(store, partitionPath('parquet', day))).map((o) => o.key)).toEqual([
      `${partitionPath('parquet', day)}_manifest.json`,
      `${partitionPath('parquet', day)}part-00000.parquet`,
    ]);
  });

  it('reads rows sent as arrays in displayFields order like rows sent as objects', async () => {
    // Prepare
    const arrays = [
      '["Alice","201",40,2,3,123.5,4567.25,45]',
      '["Bob, \\"B\\"", "202", 0, 0, 1, 0, 0, 1]',
      '["Carol","203",7,1,0,12.25,300,8.50]',
    ];

    // Act
    await exportSummary(arrays);

    // Assess
    const glob = join(root, `summaries/format=parquet/report_id=${reportId}/*/part-*`);
    const rows = await duckdbQuery(
      `SELECT ${SELECT} FROM read_parquet(${sqlString(glob)}, hive_partitioning = true) ORDER BY user_num`,
    );
    expect(rows).toEqual(EXPECTED);
  });

  it.each([
    {
      name: 'the window covers two days',
      window: windowForDates(DAY, '2026-06-02', 'Europe/London'),
      count: 2,
    },
    {
      name: 'the window covers a week',
      window: windowForDates(DAY, '2026-06-07', 'Europe/London'),
      count: 7,
    },
  ])(
    'fails with EXPORT_SUMMARY_WINDOW_INVALID and publishes nothing when $name',
    async ({ window, count }) => {
      // Act
      const run = exportSummary(ROWS, { window });

      // Assess
      await expect(run).rejects.toMatchObject({
        code: EXPORT_ERROR_CODES.summaryWindowInvalid,
        message: expect.stringContaining(`this window covers ${count}`),
      });
      expect(await listAll(store, '')).toEqual([]);
    },
  );

  it('fails with EXPORT_SUMMARY_WINDOW_INVALID and publishes nothing when no window is given', async () => {
    // Prepare
    const source = await parseReportResultStream(chunks(documentOf(ROWS), 53));

    // Act
    const run = exportReportResult({ source, store, reportId, encodeWorker: false });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.summaryWindowInvalid });
    expect(await listAll(store, '')).toEqual([]);
  });

  it('exports to calls when start is among the display fields', async () => {
    // Prepare
    const rows = ['{"connId":"c1","start":"2026-06-01T10:00:00","userName":"Alice","ans":1}'];

    // Act
    const summary = await exportSummary(rows, {}, { fields: ['connId', 'start', 'userName', 'ans'] });

    // Assess
    expect(summary.dataset).toBe('calls');
    const keys = (await listAll(store, '')).map((o) => o.key);
    expect(keys.every((k) => k.startsWith('calls/'))).toBe(true);
    expect(keys).toHaveLength(4);
  });

  it.each([
    {
      name: 'with as many rows',
      rows: [
        '{"userName":"Dave","userNum":"204","ans":1,"ref":0,"lost":0,"ring":1,"duration":2,"calls":1}',
        '{"userName":"Erin","userNum":"205","ans":2,"ref":0,"lost":0,"ring":3,"duration":4,"calls":2}',
        '{"userName":"Alice","userNum":"201","ans":41,"ref":2,"lost":3,"ring":123.5,"duration":4600,"calls":46}',
      ],
      options: {},
    },
    {
      name: 'with one row, forced',
      rows: ['{"userName":"Dave","userNum":"204","ans":1,"ref":0,"lost":0,"ring":1,"duration":2,"calls":1}'],
      options: { forceReplace: true },
    },
  ])('replaces the day whole when it is exported again $name', async ({ rows, options }) => {
    // Prepare
    await exportSummary(ROWS);

    // Act
    const summary = await exportSummary(rows, options, { requestId: 'req-s2' });

    // Assess
    expect(summary.held).toEqual([]);
    for (const format of ['parquet', 'csv'] as const) {
      const glob = join(root, `summaries/format=${format}/report_id=${reportId}/*/part-*`);
      const from =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)})`
          : `read_csv(${sqlString(glob)}, header = true, quote = '"', escape = '"', all_varchar = true)`;
      const got = await duckdbQuery(
        `SELECT user_num, request_id, extra::VARCHAR AS extra FROM ${from} ORDER BY user_num`,
      );
      expect(got).toEqual(
        rows
          .map((r) => JSON.parse(r) as { userNum: string; calls: number })
          .map((r) => ({ user_num: r.userNum, request_id: 'req-s2', extra: `{"calls":${r.calls}}` }))
          .sort((a, b) => a.user_num.localeCompare(b.user_num)),
      );
      const manifest = JSON.parse(
        Buffer.from(await readObject(store, `${partitionPath(format)}_manifest.json`)).toString(),
      ) as PartitionManifest;
      expect(manifest).toMatchObject({ rows: rows.length, requestId: 'req-s2', dataset: 'summaries' });
    }
  });

  it('holds the published day when it is exported again with under half its calls and no force', async () => {
    // Prepare
    await exportSummary(ROWS);
    const earlier = await snapshot(store);

    // Act
    const summary = await exportSummary(
      ['{"userName":"Dave","userNum":"204","ans":1,"ref":0,"lost":0,"ring":1,"duration":2}'],
      {},
      { requestId: 'req-s2' },
    );

    // Assess
    expect(summary.held).toEqual([
      { dt: DAY, basis: 'calls', publishedRows: 3, rows: 1, publishedCalls: 54, calls: 1 },
    ]);
    expect(await snapshot(store)).toEqual(earlier);
  });
});
