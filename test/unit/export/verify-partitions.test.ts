import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionWriter } from '../../../lib/export/partition-writer';
import { ColumnBuffer, RowMapper } from '../../../lib/export/row-mapper';
import { ZoneConverter } from '../../../lib/export/time-zone';
import { verifyPartitions } from '../../../lib/export/verify';
import { sampleRow } from '../../support/result-stream';

describe('verifyPartitions', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'verify-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function partition(rows: number) {
    const writer = new PartitionWriter('2026-03-10', {
      spillDirectory: dir,
      parquetCodec: 'SNAPPY',
      csvGzip: false,
      maxRowsPerFile: 1_000,
    });
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('UTC') });
    const buffer = new ColumnBuffer();
    for (let i = 0; i < rows; i++) mapper.append(sampleRow(), buffer);
    await writer.write(buffer);
    return writer.finish();
  }

  it('accepts a partition when the Parquet footer and the CSV agree with the rows routed', async () => {
    // Prepare
    const output = await partition(5);

    // Act
    const verify = verifyPartitions([output], 'q');

    // Assess
    await expect(verify).resolves.toBeUndefined();
    expect(output.files.map((f) => [f.format, f.rows])).toEqual([
      ['parquet', 5],
      ['csv', 5],
    ]);
  });

  it.each([
    { name: 'a Parquet footer declares other rows', tamper: 'parquet' },
    { name: 'the CSV holds other rows', tamper: 'csv' },
    { name: 'the partition count differs', tamper: 'partition' },
  ] as const)('fails with EXPORT_VERIFY_FAILED when $name', async ({ tamper }) => {
    // Prepare
    const output = await partition(5);
    if (tamper === 'partition') output.rows = 6;
    for (const f of output.files) if (f.format === tamper) f.rows = 4;

    // Act
    const verify = verifyPartitions([output], 'q');

    // Assess
    await expect(verify).rejects.toMatchObject({ code: 'EXPORT_VERIFY_FAILED', requestId: 'q' });
  });
});
