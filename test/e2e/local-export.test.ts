import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalExportResult, runLocalExport } from '../../lib/cli/local-export';
import { duckdbQuery, sqlString } from '../support/duckdb';

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** Every exported value except the lineage request id, which a new report run changes by design. */
async function exportedValues(lake: string): Promise<string> {
  const glob = path.join(lake, 'calls', 'format=parquet', '*', '*', '*.parquet');
  const rows = await duckdbQuery(
    `SELECT * EXCLUDE (request_id) FROM read_parquet(${sqlString(glob)}, hive_partitioning=true) ORDER BY report_id, connId`,
  );
  return JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

describe('runLocalExport', () => {
  let work: string;
  let first: LocalExportResult;
  /** Ctrl+C is caught only while a run lasts. */
  const sigintListeners = process.listenerCount('SIGINT');

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'local-export-'));
    first = await runLocalExport({
      outDir: path.join(work, 'lake'),
      secretsFile: path.join(work, 'secrets.json'),
      from: '2026-03-27',
      to: '2026-03-30',
      rowsPerDay: 120,
    });
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('exports every report of the workspace into one partition per local date when run end to end', async () => {
    // Assess
    expect(first.exports.length).toBeGreaterThan(0);
    for (const summary of first.exports) {
      expect(summary.partitions.map((p) => p.dt)).toEqual([
        '2026-03-27',
        '2026-03-28',
        '2026-03-29',
        '2026-03-30',
      ]);
    }
    expect(first.window).toEqual({ from: '2026-03-27T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' });
  });

  it('writes Parquet and CSV that DuckDB reads back with the exported row counts per report and date', async () => {
    // Prepare
    const lake = path.join(work, 'lake', 'calls');
    const expected = first.exports
      // A day without calls is published empty (no data file), so no reader counts it.
      .flatMap((e) => e.partitions.filter((p) => p.rows > 0).map((p) => `${e.reportId}|${p.dt}|${p.rows}`))
      .sort();

    // Act
    const counts = async (format: 'parquet' | 'csv') => {
      const glob = path.join(lake, `format=${format}`, '*', '*', `*.${format}`);
      const reader =
        format === 'parquet'
          ? `read_parquet(${sqlString(glob)}, hive_partitioning=true)`
          : `read_csv(${sqlString(glob)}, hive_partitioning=true, header=true)`;
      const rows = await duckdbQuery(
        `SELECT report_id, strftime(dt, '%Y-%m-%d') AS dt, count(*)::INTEGER AS n FROM ${reader} GROUP BY ALL`,
      );
      return rows.map((r) => `${r.report_id}|${r.dt}|${r.n}`).sort();
    };

    // Assess
    expect(await counts('parquet')).toEqual(expected);
    expect(await counts('csv')).toEqual(expected);
  });

  it('keeps the refresh token in a secret file readable by its owner only', async () => {
    // Act
    const { mode } = await import('node:fs/promises').then((fs) => fs.stat(path.join(work, 'secrets.json')));
    const secret = JSON.parse(await readFile(path.join(work, 'secrets.json'), 'utf8')) as {
      service: { refreshToken?: string };
    };

    // Assess
    expect(mode & 0o777).toBe(0o600);
    expect(secret.service.refreshToken).toEqual(expect.any(String));
  });

  it('replaces the same partitions with the same rows and leaves no extra objects when the window is exported again', async () => {
    // Prepare
    const lake = path.join(work, 'lake');
    const filesBefore = await listFiles(lake);
    const valuesBefore = await exportedValues(lake);

    // Act
    await runLocalExport({
      outDir: lake,
      secretsFile: path.join(work, 'secrets.json'),
      from: '2026-03-27',
      to: '2026-03-30',
      rowsPerDay: 120,
    });

    // Assess
    expect(await listFiles(lake)).toEqual(filesBefore);
    expect(await exportedValues(lake)).toEqual(valuesBefore);
    expect(valuesBefore.length).toBeGreaterThan(1000);
  });

  it('rejects with the abort reason and writes no data when its signal is already aborted', async () => {
    // Prepare
    const lake = path.join(work, 'aborted-lake');
    const reason = new Error('stop');

    // Act
    const run = runLocalExport({
      outDir: lake,
      secretsFile: path.join(work, 'aborted-secrets.json'),
      from: '2026-03-27',
      to: '2026-03-27',
      rowsPerDay: 10,
      signal: AbortSignal.abort(reason),
    });

    // Assess
    await expect(run).rejects.toThrow();
    const written = await listFiles(lake).catch(() => []);
    expect(written).toEqual([]);
    expect(process.listenerCount('SIGINT')).toBe(sigintListeners);
  });
});
