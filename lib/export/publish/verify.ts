import { open } from 'node:fs/promises';
import { parquetMetadata } from 'hyparquet';
import { forEachLimited } from '../concurrency';
import { EXPORT_ERROR_CODES, VerificationError } from '../errors';
import { csvHeaderLine } from '../formats/csv-encoder';
import type { TableSchema } from '../schema';
import type { PartitionOutput, SpilledFile } from '../types';
import { scanCsvFile } from './csv-scan';

/** Rows a Parquet file's footer declares, read back from the file itself. */
async function parquetFooterRows(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(Math.min(size, 8));
    await handle.read(tail, 0, tail.length, size - tail.length);
    const metadataLength = tail.readUInt32LE(0);
    const footer = Buffer.alloc(Math.min(size, metadataLength + 8));
    await handle.read(footer, 0, footer.length, size - footer.length);
    const metadata = parquetMetadata(
      footer.buffer.slice(footer.byteOffset, footer.byteOffset + footer.length),
    );
    return Number(metadata.num_rows);
  } finally {
    await handle.close();
  }
}

/**
 * Rows a part file holds, read back from the file on disk (the bytes that are staged):
 * Parquet from its footer, CSV by counting its records with a quote-aware scan, after
 * checking the header, the last record's end and the sha256 the manifest will carry.
 * Neither count comes from the encoder that wrote the file.
 */
async function rowsInFile(
  file: SpilledFile,
  options: { csvGzip: boolean; schema: TableSchema | undefined },
  fail: (reason: string) => never,
): Promise<number> {
  if (file.format === 'parquet') return parquetFooterRows(file.path);
  const scan = await scanCsvFile(file.path, csvHeaderLine(options.schema), options.csvGzip);
  if (!scan.headerMatches) fail('does not start with the header');
  if (!scan.complete) fail('does not end with a complete record');
  if (scan.sha256 !== file.sha256) fail('has other bytes than were written');
  return scan.records;
}

/**
 * Checks that each format holds exactly the rows routed to its partition, counting the
 * rows of every part file independently of its encoder (see rowsInFile).
 */
export async function verifyPartitions(
  partitions: readonly PartitionOutput[],
  requestId: string,
  options: { csvGzip?: boolean; concurrency?: number; schema?: TableSchema } = {},
): Promise<void> {
  const error = (message: string) =>
    new VerificationError(EXPORT_ERROR_CODES.verifyFailed, message, { requestId });
  const files = partitions.flatMap((p) => p.files.map((file) => ({ dt: p.dt, file })));
  await forEachLimited(files, options.concurrency ?? 4, async ({ dt, file }) => {
    const where = `Partition dt=${dt}: ${file.format} part ${file.part}`;
    const rows = await rowsInFile(
      file,
      { csvGzip: options.csvGzip ?? false, schema: options.schema },
      (reason) => {
        throw error(`${where} ${reason}`);
      },
    );
    if (rows !== file.rows) throw error(`${where} holds ${rows} rows, ${file.rows} were written`);
  });
  for (const p of partitions) {
    for (const format of ['parquet', 'csv'] as const) {
      const rows = p.files.filter((f) => f.format === format).reduce((n, f) => n + f.rows, 0);
      if (rows !== p.rows) {
        throw error(`Partition dt=${p.dt}: ${format} holds ${rows} rows, ${p.rows} were routed to it`);
      }
    }
  }
}
