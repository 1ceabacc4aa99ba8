import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../../lib/calendar';
import { verifyPartitions } from '../../../../lib/export/publish/verify';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { PartitionWriter } from '../../../../lib/export/spill/partition-writer';
import { SpillBudget } from '../../../../lib/export/spill/spill-budget';
import { sampleRow } from '../../../support/result-stream';

describe('verifyPartitions', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'verify-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  let runs = 0;
  async function partition(rows: number, csvGzip = false) {
    const writer = new PartitionWriter(
      '2026-03-10',
      {
        spillDirectory: join(dir, String(runs++)),
        parquetCodec: 'SNAPPY',
        csvGzip,
        maxRowsPerFile: 1_000,
      },
      new SpillBudget(),
    );
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('UTC') });
    const buffer = mapper.newBuffer();
    // Quoted fields with CRLF, LF and doubled quotes must not count as records.
    for (let i = 0; i < rows; i++)
      mapper.append(sampleRow({ userName: `Smith, "J"\r\n${i}`, hgName: i % 2 ? 'a\nb' : '"' }), buffer);
    await writer.write(buffer);
    return writer.finish();
  }

  function csvFile(output: Awaited<ReturnType<typeof partition>>) {
    return output.files.find((f) => f.format === 'csv') as (typeof output.files)[number];
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

  it.each([false, true])(
    'accepts quoted line breaks and quotes when the CSV is read back (gzip %s)',
    async (csvGzip) => {
      // Prepare
      const output = await partition(7, csvGzip);

      // Act
      const verify = verifyPartitions([output], 'q', { csvGzip });

      // Assess
      await expect(verify).resolves.toBeUndefined();
    },
  );

  it.each([
    { name: 'a record was added', edit: (t: string) => `${t}${t.slice(t.indexOf('\r\n') + 2)}` },
    { name: 'the last record was cut', edit: (t: string) => t.slice(0, t.length - 40) },
    { name: 'a record was dropped', edit: (t: string) => t.slice(0, t.lastIndexOf('"Smith') - 1) },
    { name: 'the header differs', edit: (t: string) => t.replace('conn_id', 'connid') },
  ])(
    'fails with EXPORT_VERIFY_FAILED when the CSV file on disk is changed so that $name',
    async ({ edit }) => {
      // Prepare: the encoder's count stays; its hash follows the bytes, so only the read-back count can tell.
      for (const csvGzip of [false, true]) {
        const output = await partition(7, csvGzip);
        const file = csvFile(output);
        const bytes = await readFile(file.path);
        const text = (csvGzip ? gunzipSync(bytes) : bytes).toString('utf8');
        const edited = Buffer.from(edit(text), 'utf8');
        const stored = csvGzip ? gzipSync(edited) : edited;
        await writeFile(file.path, stored);
        file.sha256 = createHash('sha256').update(stored).digest('hex');

        // Act
        const verify = verifyPartitions([output], 'q', { csvGzip });

        // Assess
        await expect(verify).rejects.toMatchObject({ code: 'EXPORT_VERIFY_FAILED' });
      }
    },
  );

  it('fails with EXPORT_VERIFY_FAILED when the CSV bytes differ from the hash the manifest will carry', async () => {
    // Prepare: same record count, other bytes.
    const output = await partition(3);
    const file = csvFile(output).path;
    const text = (await readFile(file)).toString('utf8');
    await writeFile(file, text.replace(/Smith/g, 'Smyth'));

    // Act
    const verify = verifyPartitions([output], 'q');

    // Assess
    await expect(verify).rejects.toMatchObject({ code: 'EXPORT_VERIFY_FAILED' });
  });
});
