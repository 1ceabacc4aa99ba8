import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportConfigError } from '../../../lib/export/errors';
import type { IcebergFileSchema } from '../../../lib/export/formats/iceberg-file';
import { readPartitions } from '../../../lib/export/read-partitions';
import { resolveExportOptions } from '../../../lib/export/resolve-export-options';
import { CALLS_SCHEMA } from '../../../lib/export/schema';
import { LocalDirectoryStore } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { resultStreamOf, sampleRow } from '../../support/result-stream';

const FIELD_IDS = Object.fromEntries(
  [...CALLS_SCHEMA.columns.map((c) => c.name), 'dt'].map((n, i) => [n, i + 1]),
);

describe('readPartitions with icebergFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'read-partitions-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function run(name: string, icebergFile: IcebergFileSchema) {
    const rows = ['2026-03-10T09:00:00.5', '2026-03-11T09:00:00'].map((start, i) =>
      sampleRow({ connId: `c${i}`, start }),
    );
    const resolved = resolveExportOptions({
      source: resultStreamOf(rows),
      store: new LocalDirectoryStore(join(dir, name, 'lake')),
      reportId: 'r',
      encodeWorker: false,
    });
    // What the export sets once it has loaded the table.
    return { ...resolved, icebergFile };
  }

  it('writes the Parquet part files as Iceberg data files of their day', async () => {
    // Act
    const read = await readPartitions(run('ok', { fieldIds: FIELD_IDS, schemaJson: '{}' }), dir);

    // Assess
    const files = read.partitions.map((p) => p.files.find((f) => f.format === 'parquet')?.path as string);
    const rows = await duckdbQuery(
      `SELECT epoch_us(start) AS us, dt::VARCHAR AS day FROM read_parquet([${files.map(sqlString).join(', ')}]) ORDER BY day`,
    );
    expect(rows).toEqual([
      { us: BigInt(Date.UTC(2026, 2, 10, 9, 0, 0, 500)) * 1000n, day: '2026-03-10' },
      { us: BigInt(Date.UTC(2026, 2, 11, 9)) * 1000n, day: '2026-03-11' },
    ]);
  });

  it('refuses a table schema without a column field id before a part file is written', async () => {
    // Prepare
    const { start_utc: _, ...fieldIds } = FIELD_IDS;
    const spillRoot = await mkdtemp(join(dir, 'spill-'));

    // Act
    const read = readPartitions(run('missing', { fieldIds, schemaJson: '{}' }), spillRoot);

    // Assess
    await expect(read).rejects.toThrow(ExportConfigError);
    await expect(read).rejects.toThrow(/start_utc/);
    expect(await readdir(spillRoot)).toEqual([]);
  });
});
