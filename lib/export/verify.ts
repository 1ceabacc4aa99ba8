import { open } from 'node:fs/promises';
import { parquetMetadata } from 'hyparquet';
import { EXPORT_ERROR_CODES, VerificationError } from './errors';
import type { PartitionOutput } from './partition-writer';

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
 * Checks that each format holds exactly the rows routed to its partition: Parquet by
 * reading each file's footer back, CSV by the records its encoder wrote (the staged
 * object's size and sha256 then pin those bytes).
 */
export async function verifyPartitions(
  partitions: readonly PartitionOutput[],
  requestId: string,
): Promise<void> {
  for (const p of partitions) {
    for (const file of p.files) {
      if (file.format !== 'parquet') continue;
      const rows = await parquetFooterRows(file.path);
      if (rows !== file.rows) {
        throw new VerificationError(
          EXPORT_ERROR_CODES.verifyFailed,
          `Partition dt=${p.dt}: part ${file.part} declares ${rows} rows, ${file.rows} were written`,
          { requestId },
        );
      }
    }
    for (const format of ['parquet', 'csv'] as const) {
      const rows = p.files.filter((f) => f.format === format).reduce((n, f) => n + f.rows, 0);
      if (rows !== p.rows) {
        throw new VerificationError(
          EXPORT_ERROR_CODES.verifyFailed,
          `Partition dt=${p.dt}: ${format} holds ${rows} rows, ${p.rows} were routed to it`,
          { requestId },
        );
      }
    }
  }
}
