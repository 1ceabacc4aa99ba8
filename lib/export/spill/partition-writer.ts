import { createHash, type Hash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CsvFileEncoder } from '../formats/csv-encoder';
import type { IcebergFileSchema } from '../formats/iceberg-file';
import { type ParquetCodec, ParquetFileEncoder } from '../formats/parquet-encoder';
import type { OutputFormat } from '../layout';
import type { ColumnBuffer } from '../rows/column-buffer';
import type { TableSchema } from '../schema';
import type { PartitionOutput, SpilledFile } from '../types';
import type { SpillBudget } from './spill-budget';

export interface PartitionWriterOptions {
  spillDirectory: string;
  parquetCodec: ParquetCodec;
  csvGzip: boolean;
  /** Rows per part file (formats rotate together, so part N holds the same rows in each). */
  maxRowsPerFile: number;
  /** Formats this writer produces. Default both. */
  formats?: readonly OutputFormat[];
  /** The dataset's columns. Default `calls` without promoted columns. */
  schema?: TableSchema;
  /** Set: the Parquet parts are data files of this Iceberg table (formats/iceberg-file.ts). */
  icebergFile?: IcebergFileSchema | undefined;
}

interface OpenFile {
  path: string;
  hash: Hash;
  bytes: number;
}

/** What a part file's encoder does: a header, row groups, a footer. */
interface FileEncoder {
  readonly rows: number;
  header(): Uint8Array;
  rowGroup(buffer: ColumnBuffer): Uint8Array[];
  footer(): Uint8Array | undefined;
  /** Takes back the chunks of a row group once they are written. */
  recycle?(chunks: readonly Uint8Array[]): void;
}

interface OpenPart {
  format: OutputFormat;
  encoder: FileEncoder;
  file: OpenFile;
}

/**
 * One partition's output: each `write` appends one Parquet row group and the matching
 * CSV records to part files on local disk. No file handle is held between writes, so
 * thousands of partitions cost no descriptors. Every append is counted in `budget`
 * (shared by the sink's writers) before it is written.
 */
export class PartitionWriter {
  readonly dt: string;
  readonly #options: PartitionWriterOptions;
  readonly #formats: readonly OutputFormat[];
  readonly #budget: SpillBudget;
  readonly #done: SpilledFile[] = [];
  #part = 0;
  #partRows = 0;
  #rows = 0;
  #open: OpenPart[] | undefined;

  constructor(dt: string, options: PartitionWriterOptions, budget: SpillBudget) {
    this.dt = dt;
    this.#options = options;
    this.#budget = budget;
    this.#formats = options.formats ?? ['parquet', 'csv'];
  }

  /**
   * Writes rows as one row group; closes the part when it reaches maxRowsPerFile. The
   * caller never passes more rows than fit in the open part (see Partitioner).
   */
  async write(buffer: ColumnBuffer): Promise<void> {
    if (buffer.rows === 0) return;
    const open = this.#open ?? (await this.#openPart());
    for (const part of open) {
      const chunks = part.encoder.rowGroup(buffer);
      await append(part.file, chunks, this.#budget);
      part.encoder.recycle?.(chunks);
    }
    this.#partRows += buffer.rows;
    this.#rows += buffer.rows;
    if (this.#partRows >= this.#options.maxRowsPerFile) await this.#closePart();
  }

  /** Closes the last part; returns every file of the partition. */
  async finish(): Promise<PartitionOutput> {
    await this.#closePart();
    return { dt: this.dt, rows: this.#rows, files: [...this.#done] };
  }

  async #openPart(): Promise<OpenPart[]> {
    const dir = path.join(this.#options.spillDirectory, this.dt);
    await fs.mkdir(dir, { recursive: true }).catch((error: unknown) => {
      throw this.#budget.refused(error, 0);
    });
    const name = String(this.#part).padStart(5, '0');
    const open: OpenPart[] = [];
    const iceberg = this.#options.icebergFile;
    for (const format of this.#formats) {
      const encoder: FileEncoder =
        format === 'parquet'
          ? new ParquetFileEncoder({
              codec: this.#options.parquetCodec,
              schema: this.#options.schema,
              iceberg: iceberg === undefined ? undefined : { file: iceberg, dt: this.dt },
            })
          : new CsvFileEncoder({ gzip: this.#options.csvGzip, schema: this.#options.schema });
      const part = { format, encoder, file: newFile(path.join(dir, `${name}.${format}`)) };
      await append(part.file, [encoder.header()], this.#budget);
      open.push(part);
    }
    this.#open = open;
    return open;
  }

  async #closePart(): Promise<void> {
    const open = this.#open;
    if (open === undefined) return;
    for (const part of open) {
      const footer = part.encoder.footer();
      if (footer !== undefined) await append(part.file, [footer], this.#budget);
      this.#done.push(done(part.format, this.#part, part.file, part.encoder.rows));
    }
    this.#open = undefined;
    this.#part++;
    this.#partRows = 0;
  }
}

function newFile(file: string): OpenFile {
  return { path: file, hash: createHash('sha256'), bytes: 0 };
}

function done(format: OutputFormat, part: number, file: OpenFile, rows: number): SpilledFile {
  return { format, part, path: file.path, rows, bytes: file.bytes, sha256: file.hash.digest('hex') };
}

/** Appends the chunks once `budget` allows their bytes; a full disk throws SpillShortageError. */
async function append(file: OpenFile, chunks: Uint8Array[], budget: SpillBudget): Promise<void> {
  if (chunks.length === 0) return;
  let bytes = 0;
  for (const c of chunks) bytes += c.length;
  budget.reserve(bytes);
  try {
    const handle = await fs.open(file.path, 'a');
    try {
      await handle.writev(chunks);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw budget.refused(error, bytes);
  }
  for (const c of chunks) file.hash.update(c);
  file.bytes += bytes;
}
