import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportResultStream } from '../../../lib/api';
import {
  EXPORT_ERROR_CODES,
  type ExportLogger,
  type ExportOptions,
  exportReportResult,
  type PartitionManifest,
} from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { sampleRow } from '../../support/result-stream';
import { snapshot } from './failing-store';

const reportId = 'rep-r';

/** Calls over two days whose totals are ans 1, ref 1, lost 1, ring 16.75, duration 123.25. */
const ROWS: ResultRow[] = [
  sampleRow({ connId: 'r1', start: '2026-06-01T10:00:00' }),
  sampleRow({ connId: 'r2', start: '2026-06-01T11:00:00', ans: 0, ref: 1, ring: 2.25, duration: 0 }),
  sampleRow({ connId: 'r3', start: '2026-06-02T09:00:00', ans: 0, lost: 1, ring: 10, duration: 0 }),
];
const TOTALS = { ans: 1, ref: 1, lost: 1, ring: 16.75, duration: 123.25 };

/** A result document as the service writes it: the rows, then the service's `summary`. */
function documentOf(rows: readonly ResultRow[], summary: unknown[]): Buffer {
  const head = {
    requestId: 'req-r',
    tenantId: 't',
    request: { requestId: 'req-r', reportId, timeZoneId: 'Europe/London', displayFields: [] },
    totalCount: rows.length,
  };
  return Buffer.from(
    `${JSON.stringify(head).slice(0, -1)},"data":[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n],"summary":${JSON.stringify(summary)},"status":1,"rowLimit":1000000}`,
  );
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** A logger that records its calls. */
function recordingLogger(): ExportLogger & { warnings: [string, Record<string, unknown> | undefined][] } {
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  return { warnings, warn: (message, data) => warnings.push([message, data]) };
}

describe('exportReportResult reconciling the rows with the result summary', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'recon-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function exportWith(
    rows: readonly ResultRow[],
    summary: unknown[],
    options: Partial<ExportOptions> = {},
  ) {
    const source = await parseReportResultStream(chunks(documentOf(rows, summary), 71));
    return exportReportResult({ source, store, reportId, encodeWorker: false, ...options });
  }

  async function manifestsOf(dates: readonly string[]): Promise<PartitionManifest[]> {
    const out: PartitionManifest[] = [];
    for (const format of ['parquet', 'csv'])
      for (const dt of dates) {
        const key = `calls/format=${format}/report_id=${reportId}/dt=${dt}/_manifest.json`;
        out.push(JSON.parse(Buffer.from(await readObject(store, key)).toString()) as PartitionManifest);
      }
    return out;
  }

  it.each([
    { name: 'one entry equal to the row sums', summary: [TOTALS] },
    {
      name: 'entries that add up to the row sums, numbers as text among them',
      summary: [
        { ans: 1, ref: 0, lost: '1', ring: 6.75, duration: 100 },
        { ans: 0, ref: '1', lost: 0, ring: '10', duration: 23.25 },
      ],
    },
  ])(
    'records a match in every manifest and the summary when the result summary is $name',
    async ({ summary }) => {
      // Prepare
      const logger = recordingLogger();

      // Act
      const result = await exportWith(ROWS, summary, { logger });

      // Assess
      const expected = { service: TOTALS, rows: TOTALS, matches: true, differences: [] };
      expect(result.reconciliation).toEqual(expected);
      const manifests = await manifestsOf(['2026-06-01', '2026-06-02']);
      expect(manifests.map((m) => [m.format, m.dt, m.reconciliation])).toEqual([
        ['parquet', '2026-06-01', expected],
        ['parquet', '2026-06-02', expected],
        ['csv', '2026-06-01', expected],
        ['csv', '2026-06-02', expected],
      ]);
      expect(logger.warnings).toEqual([]);
    },
  );

  it('publishes, flags the mismatch and warns when the summary is off by one answered call and the policy is the default', async () => {
    // Prepare
    const logger = recordingLogger();
    const service = { ...TOTALS, ans: 2 };

    // Act
    const result = await exportWith(ROWS, [service], { logger });

    // Assess
    const expected = { service, rows: TOTALS, matches: false, differences: ['ans'] };
    expect(result.reconciliation).toEqual(expected);
    expect(result.partitions.map((p) => [p.dt, p.rows])).toEqual([
      ['2026-06-01', 2],
      ['2026-06-02', 1],
    ]);
    const manifests = await manifestsOf(['2026-06-01', '2026-06-02']);
    for (const m of manifests) expect([m.format, m.dt, m.reconciliation]).toEqual([m.format, m.dt, expected]);
    expect(logger.warnings).toEqual([
      [expect.stringContaining('summary disagrees'), { differences: ['ans'], service, rows: TOTALS }],
    ]);
  });

  it('fails with EXPORT_SUMMARY_MISMATCH and writes nothing when the summary disagrees and the policy is fail', async () => {
    // Prepare
    const service = { ...TOTALS, ans: 2, duration: 200 };

    // Act
    const run = exportWith(ROWS, [service], { summaryMismatch: 'fail' });

    // Assess
    await expect(run).rejects.toMatchObject({
      code: EXPORT_ERROR_CODES.summaryMismatch,
      message: expect.stringContaining('on ans, duration'),
    });
    expect(await listAll(store, '')).toEqual([]);
  });

  it('keeps the published partitions byte-identical when a re-export fails on a summary mismatch', async () => {
    // Prepare
    await exportWith(ROWS, [TOTALS]);
    const earlier = await snapshot(store);
    const rows = ROWS.map((r) => ({ ...r, userName: 'Changed' }));

    // Act
    const run = exportWith(rows, [{ ...TOTALS, lost: 0 }], { summaryMismatch: 'fail' });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.summaryMismatch });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('publishes when the summary agrees and the policy is fail', async () => {
    // Act
    const result = await exportWith(ROWS, [TOTALS], { summaryMismatch: 'fail' });

    // Assess
    expect(result.reconciliation.matches).toBe(true);
    expect(result.rows).toBe(3);
  });

  it.each([
    { name: 'exactly 1.0', ring: 1, duration: 1, matches: true, differences: [] },
    { name: 'within 0.001', ring: 1.0005, duration: 0.9995, matches: true, differences: [] },
    { name: 'off by 0.01 in ring', ring: 1.01, duration: 1, matches: false, differences: ['ring'] },
    { name: 'off by 0.01 in duration', ring: 1, duration: 0.99, matches: false, differences: ['duration'] },
  ])(
    'compares ring and duration sums with float noise (0.1 added 10 times) against a summary of $name',
    async ({ ring, duration, matches, differences }) => {
      // Prepare: 0.1 added 10 times is 0.9999999999999999.
      const rows = Array.from({ length: 10 }, (_, i) =>
        sampleRow({
          connId: `f${i}`,
          start: `2026-06-01T10:00:0${i}`,
          ans: 0,
          ref: 0,
          lost: 0,
          ring: 0.1,
          duration: 0.1,
        }),
      );

      // Act
      const result = await exportWith(rows, [{ ans: 0, ref: 0, lost: 0, ring, duration }]);

      // Assess
      expect(result.reconciliation).toEqual({
        service: { ans: 0, ref: 0, lost: 0, ring, duration },
        rows: { ans: 0, ref: 0, lost: 0, ring: 1, duration: 1 },
        matches,
        differences,
      });
    },
  );

  it('records matches null and no service totals in every manifest when the summary array is empty', async () => {
    // Prepare
    const logger = recordingLogger();

    // Act
    const result = await exportWith(ROWS, [], { logger, summaryMismatch: 'fail' });

    // Assess
    const expected = { service: null, rows: TOTALS, matches: null, differences: [] };
    expect(result.reconciliation).toEqual(expected);
    const manifests = await manifestsOf(['2026-06-01', '2026-06-02']);
    for (const m of manifests) expect([m.format, m.dt, m.reconciliation]).toEqual([m.format, m.dt, expected]);
    expect(logger.warnings).toEqual([]);
  });
});
