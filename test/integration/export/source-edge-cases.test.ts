import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES, exportReportResult } from '../../../lib/export';
import { LocalDirectoryStore, listAll } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { callsOn, resultStreamOf } from '../../support/result-stream';

const reportId = 'rep-1';

describe('exportReportResult with unusual results', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'source-edge-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('fails with EXPORT_TIME_ZONE_INVALID naming request.timeZoneId and publishes nothing when the result has no time zone', async () => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 2, 'c'), { timeZoneId: null });

    // Act
    const run = exportReportResult({ source, store, reportId });

    // Assess
    await expect(run).rejects.toMatchObject({
      name: 'ExportError',
      code: EXPORT_ERROR_CODES.timeZoneInvalid,
      message: expect.stringContaining('request.timeZoneId'),
    });
    expect(await readdir(root)).toEqual([]);
  });

  it('reads start in the timeZone option when the result has no time zone', async () => {
    // Prepare: 10:00 in New York is 14:00Z in June, whatever TZ this process has.
    const source = resultStreamOf(callsOn(['2026-06-01'], 1, 'c'), { timeZoneId: null });

    // Act
    await exportReportResult({ source, store, reportId, timeZone: 'America/New_York' });

    // Assess
    const glob = join(root, 'calls', 'format=parquet', '*', '*', '*.parquet');
    const rows = await duckdbQuery(
      `SELECT strftime(start_utc AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S') AS utc FROM read_parquet(${sqlString(glob)})`,
    );
    expect(rows).toEqual([{ utc: '2026-06-01T14:00:00' }]);
  });

  it('fails with EXPORT_TIME_ZONE_INVALID when the timeZone option disagrees with the result', async () => {
    // Prepare
    const source = resultStreamOf(callsOn(['2026-06-01'], 1, 'c'), { timeZoneId: 'Europe/London' });

    // Act
    const run = exportReportResult({ source, store, reportId, timeZone: 'Europe/Paris' });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.timeZoneInvalid });
  });

  it('logs one warning and reports the count in the summary when the client replaced invalid characters', async () => {
    // Prepare
    const warnings: { message: string; data: unknown }[] = [];
    const source = resultStreamOf(callsOn(['2026-06-01'], 2, 'c'), { replacedCharacters: 3 });

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      logger: { warn: (message, data) => warnings.push({ message, data }) },
    });

    // Assess
    expect(summary.replacedCharacters).toBe(3);
    expect(warnings).toEqual([
      { message: expect.stringContaining('U+FFFD'), data: { replacedCharacters: 3 } },
    ]);
  });

  it('reports no replaced characters and logs nothing when the result had none', async () => {
    // Prepare
    const warnings: unknown[] = [];
    const source = resultStreamOf(callsOn(['2026-06-01'], 2, 'c'));

    // Act
    const summary = await exportReportResult({
      source,
      store,
      reportId,
      logger: { warn: (message) => warnings.push(message) },
    });

    // Assess
    expect(summary.replacedCharacters).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('stages under a bounded run id and publishes when the service gives a 400-character request id', async () => {
    // Prepare
    const requestId = `r${'x'.repeat(399)}`;
    const source = resultStreamOf(callsOn(['2026-06-01'], 2, 'c'), { requestId });

    // Act
    const summary = await exportReportResult({ source, store, reportId });

    // Assess
    expect(summary.rows).toBe(2);
    expect(summary.runId.length).toBeLessThanOrEqual(128);
    expect(summary.runId).toMatch(/^rx{39}-[0-9a-f]{16}-[0-9a-f]{8}$/);
    const keys = (await listAll(store, '')).map((o) => o.key);
    expect(keys.some((k) => k.includes('_staging'))).toBe(false);
    expect(keys.filter((k) => k.endsWith('.parquet'))).toHaveLength(1);
  });

  it.each([{ runId: '../escape' }, { runId: 'a/b' }, { runId: '..' }, { runId: 'x'.repeat(129) }])(
    'fails with EXPORT_CONFIG_INVALID naming runId when it is $runId',
    async ({ runId }) => {
      // Act
      const run = exportReportResult({ source: resultStreamOf([]), store, reportId, runId });

      // Assess
      await expect(run).rejects.toMatchObject({
        code: EXPORT_ERROR_CODES.configInvalid,
        message: expect.stringContaining('runId'),
      });
    },
  );
});
