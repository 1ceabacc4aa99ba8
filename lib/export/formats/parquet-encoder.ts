import type { CompressionCodec, SchemaElement } from 'hyparquet';
import { type BufferedColumn, type ColumnBuffer, textStart } from '../rows/column-buffer';
import { CALLS_SCHEMA, type ColumnDefinition, type ColumnSet, parquetSchema } from '../schema';
import { ChunkedOutput, recycleChunks } from './chunk-pool';
import {
  epochDay,
  ICEBERG_SCHEMA_KEY,
  type IcebergFileSchema,
  icebergElements,
  MICROS_PER_MILLI,
} from './iceberg-file';
import type { ParquetCodec } from './parquet-codecs';
import { type ColumnChunkFacts, footerBytes, RowGroupLog } from './parquet-footer';
import { PARQUET_PRIMITIVES } from './parquet-primitives';
import {
  type ChunkDictionary,
  indexedDictionary,
  nullCount,
  numberDictionary,
  statistics,
  textDictionary,
  writePlainNumbers,
  writePlainText,
} from './parquet-values';
import { zlib } from './zstd';

const { ByteWriter, writePageHeader, writeRleBitPackedHybrid, snappyCompress } = PARQUET_PRIMITIVES;

/**
 * A Parquet file writer built for readers that are strict about the format (Athena,
 * Spark, DuckDB): DATA_PAGE (v1) pages only, RLE definition levels, PLAIN values or
 * RLE_DICTIONARY for strings that repeat, INT64 timestamps with the TIMESTAMP logical
 * type. hyparquet-writer (pinned 0.17.0) writes only v2 data pages, so its page-header,
 * RLE, snappy and footer routines are reused and the pages are laid out here.
 *
 * The file is produced in pieces (`header`, one `rowGroup` per call, `footer`) so a
 * caller can append them to a file or stream without holding the file in memory. The
 * output depends only on the rows: no clock, host or random value goes into it.
 */

export { PARQUET_CODECS, type ParquetCodec } from './parquet-codecs';

interface ParquetEncoderOptions {
  codec?: ParquetCodec;
  /** Rows per data page; pages of about 1 MiB suit every reader. Default 16,384. */
  rowsPerPage?: number;
  /** The dataset's columns. Default `calls` without promoted columns. */
  schema?: ColumnSet | undefined;
  /**
   * Set: the file is a data file of an Iceberg table, holding rows of the partition `dt`
   * (YYYY-MM-DD): field ids, timestamps in micros, `extra` a STRING, a constant `dt`
   * DATE column last and the table's schema in the footer (`iceberg-file.ts`).
   */
  iceberg?: { file: IcebergFileSchema; dt: string } | undefined;
}

const utf8 = new TextEncoder();
const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]);
/**
 * Value bytes per PLAIN text page (at least one value): a page is built whole in memory
 * and compressed whole, so large values would otherwise make pages of a whole row group.
 * The service's ids make pages of about 650 KB at 16,384 rows, below it.
 */
const PAGE_BYTES = 1024 * 1024;
/** Rows and bytes at most of the sample that decides whether a text chunk is compressed. */
const SAMPLE_ROWS = 2_048;

type Compressor = (input: Uint8Array) => Uint8Array;
const identity: Compressor = (b) => b;

/**
 * One page body per thread, reused for every page: a fresh, growing buffer per page was
 * most of the encoder's garbage (external memory, freed only by a full GC).
 */
let PAGE = new ByteWriter(PAGE_BYTES);

function pageBody(): InstanceType<typeof ByteWriter> {
  PAGE.index = 0;
  PAGE.offset = 0;
  return PAGE;
}

/**
 * A page body that grew past 16 MiB for a huge value is not kept for the rest of the
 * thread's life. Below that it is kept: values of a few MB would otherwise make it grow
 * again (1, 2, 4, 8 MiB, all garbage) for every row group.
 */
function shrinkPageBody(): void {
  if (PAGE.buffer.byteLength > 16 * PAGE_BYTES) PAGE = new ByteWriter(PAGE_BYTES);
}

/**
 * The end of a page of a PLAIN text chunk that starts at row `a` and may run to `b`: as
 * many rows as fit in `maxBytes` of values (lengths included), at least one.
 */
function textPageEnd(
  c: Extract<BufferedColumn, { type: 'text' }>,
  a: number,
  b: number,
  maxBytes: number,
): number {
  const start = textStart(c, a);
  const bytes = (e: number) => (c.ends[e - 1] as number) - start + 4 * (e - a);
  if (bytes(b) <= maxBytes) return b;
  let lo = a + 1;
  let hi = b;
  // bytes(e) grows with e: the last e in [a + 1, b] within maxBytes, else a + 1.
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (bytes(mid) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function compressorFor(codec: ParquetCodec): Compressor {
  if (codec === 'SNAPPY') return snappyCompress;
  if (codec === 'UNCOMPRESSED') return identity;
  const zstd = zlib.zstdCompress;
  if (zstd === undefined) {
    throw new Error('ZSTD needs node:zlib zstd (Node >= 22.15)');
  }
  return zstd;
}

/** The file schema of each table schema, made once: every encoder of a thread shares it (read only). */
const FILE_SCHEMAS = new WeakMap<ColumnSet, SchemaElement[]>();

function fileSchema(schema: ColumnSet): SchemaElement[] {
  let elements = FILE_SCHEMAS.get(schema);
  if (elements === undefined) {
    elements = parquetSchema(schema);
    FILE_SCHEMAS.set(schema, elements);
  }
  return elements;
}

/** Streams one Parquet file: header, row groups, footer, as byte chunks. */
export class ParquetFileEncoder {
  readonly #codec: CompressionCodec;
  readonly #compress: Compressor;
  readonly #rowsPerPage: number;
  readonly #columns: readonly ColumnDefinition[];
  readonly #schema: SchemaElement[];
  readonly #rowGroups: RowGroupLog;
  /** What a timestamp's epoch ms are multiplied by in the file: 1000 in an Iceberg file (micros). */
  readonly #timestampScale: number;
  /** An Iceberg file's `tenant` (UTF-8), written before the buffer's columns; undefined without one. */
  readonly #tenant: Uint8Array | undefined;
  /** An Iceberg file's `dt` (days since 1970-01-01), written after the buffer's columns. */
  readonly #day: number | undefined;
  readonly #keyValues: { key: string; value: string }[];
  readonly #output = new ChunkedOutput();
  #offset = 0;
  #rows = 0;

  constructor(options: ParquetEncoderOptions = {}) {
    this.#codec = options.codec ?? 'SNAPPY';
    this.#compress = compressorFor(this.#codec);
    this.#rowsPerPage = options.rowsPerPage ?? 16_384;
    const schema = options.schema ?? CALLS_SCHEMA;
    this.#columns = schema.columns;
    const names = schema.columns.map((c) => c.name);
    const iceberg = options.iceberg;
    if (iceberg === undefined) {
      this.#schema = fileSchema(schema);
      this.#timestampScale = 1;
      this.#day = undefined;
      this.#tenant = undefined;
      this.#keyValues = [];
    } else {
      this.#schema = icebergElements(schema, iceberg.file);
      names.splice(0, names.length, ...this.#schema.slice(1).map((e) => e.name));
      this.#timestampScale = MICROS_PER_MILLI;
      this.#day = epochDay(iceberg.dt);
      this.#tenant = iceberg.file.tenant === undefined ? undefined : utf8.encode(iceberg.file.tenant);
      this.#keyValues = [{ key: ICEBERG_SCHEMA_KEY, value: iceberg.file.schemaJson }];
    }
    this.#rowGroups = new RowGroupLog(names);
  }

  /** Rows written so far. */
  get rows(): number {
    return this.#rows;
  }

  /** The leading magic; call once, first. */
  header(): Uint8Array {
    this.#offset = MAGIC.length;
    return MAGIC;
  }

  /** Encodes the buffered rows as one row group. */
  rowGroup(buffer: ColumnBuffer): Uint8Array[] {
    const n = buffer.rows;
    if (n === 0) return [];
    const start = this.#offset;
    const chunks: ColumnChunkFacts[] = [];
    let uncompressedTotal = 0;
    if (this.#tenant !== undefined) {
      const chunk = this.#constant(this.#tenant, n);
      chunks.push(chunk);
      uncompressedTotal += chunk.uncompressedSize;
    }
    for (let i = 0; i < this.#columns.length; i++) {
      const chunk = this.#column(buffer, i, this.#columns[i] as ColumnDefinition, n);
      chunks.push(chunk);
      uncompressedTotal += chunk.uncompressedSize;
    }
    if (this.#day !== undefined) {
      const chunk = this.#constant(this.#day, n);
      chunks.push(chunk);
      uncompressedTotal += chunk.uncompressedSize;
    }
    shrinkPageBody();
    this.#rowGroups.add(
      {
        rows: n,
        fileOffset: start,
        uncompressedSize: uncompressedTotal,
        compressedSize: this.#offset - start,
      },
      chunks,
    );
    this.#rows += n;
    return this.#output.take();
  }

  /** Takes back the chunks of a row group once they are written. */
  recycle(chunks: readonly Uint8Array[]): void {
    recycleChunks(chunks);
  }

  /** The footer (metadata, its length and the closing magic); call once, last. */
  footer(): Uint8Array {
    const bytes = footerBytes(this.#schema, this.#codec, this.#rows, this.#rowGroups, this.#keyValues);
    this.#offset += bytes.length;
    return bytes;
  }

  /**
   * A REQUIRED chunk of n rows that all hold `value`: an INT32 (an Iceberg file's `dt`) or a
   * UTF-8 string (its `tenant`). A dictionary page of that one value and one data page of a
   * single RLE run of index 0, a few bytes whatever n, uncompressed (the codec would only
   * add to them); a string's chunk has no min/max statistics, as no string chunk has here.
   */
  #constant(value: number | Uint8Array, n: number): ColumnChunkFacts {
    const chunkStart = this.#offset;
    const dictionary = new ByteWriter(typeof value === 'number' ? 4 : 4 + value.length);
    if (typeof value === 'number') dictionary.appendInt32(value);
    else {
      dictionary.appendUint32(value.length);
      dictionary.appendBytes(value);
    }
    const data = new ByteWriter(16);
    data.appendUint8(1); // bit width of the indexes
    data.appendVarInt(n * 2); // RLE run header: count << 1
    data.appendUint8(0); // the run's value, index 0, in one byte
    let uncompressed = 0;
    const page = (header: Parameters<typeof writePageHeader>[1], body: Uint8Array) => {
      const h = new ByteWriter(64);
      writePageHeader(h, header);
      const bytes = h.getBytes();
      this.#output.append(bytes);
      this.#output.append(body);
      this.#offset += bytes.length + body.length;
      uncompressed += bytes.length + body.length;
    };
    const plain = dictionary.getBytes();
    page(
      {
        type: 'DICTIONARY_PAGE',
        uncompressed_page_size: plain.length,
        compressed_page_size: plain.length,
        dictionary_page_header: { num_values: 1, encoding: 'PLAIN' },
      },
      plain,
    );
    const dataPageOffset = this.#offset;
    const indexes = data.getBytes();
    page(
      {
        type: 'DATA_PAGE',
        uncompressed_page_size: indexes.length,
        compressed_page_size: indexes.length,
        data_page_header: {
          num_values: n,
          encoding: 'RLE_DICTIONARY',
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      },
      indexes,
    );
    return {
      fileOffset: chunkStart,
      uncompressedSize: uncompressed,
      compressedSize: this.#offset - chunkStart,
      dataPageOffset,
      dictionaryPageOffset: chunkStart,
      uncompressed: true,
      nulls: 0,
      min: typeof value === 'number' ? value : Number.NaN,
      max: typeof value === 'number' ? value : Number.NaN,
      pages: 1,
    };
  }

  #column(buffer: ColumnBuffer, index: number, column: ColumnDefinition, n: number): ColumnChunkFacts {
    const chunkStart = this.#offset;
    let uncompressed = 0;
    const emit = (b: Uint8Array) => {
      this.#output.append(b);
      this.#offset += b.length;
    };
    const values = buffer.columns[index] as BufferedColumn;
    const nulls = nullCount(values, n);
    const defs = column.nullable ? values.present.subarray(0, n) : undefined;
    const dictionary = chunkDictionary(buffer, index, column, values, n);
    let dictionaryPageOffset = -1;
    if (dictionary !== undefined) {
      dictionaryPageOffset = this.#offset;
      const plain = dictionary.plain;
      const compressed = this.#compress(plain);
      const header = new ByteWriter();
      writePageHeader(header, {
        type: 'DICTIONARY_PAGE',
        uncompressed_page_size: plain.length,
        compressed_page_size: compressed.length,
        dictionary_page_header: { num_values: dictionary.size, encoding: 'PLAIN' },
      });
      const h = header.getBytes();
      emit(h);
      emit(compressed);
      uncompressed += h.length + plain.length;
    }

    // Unique ids (connId, docId) barely compress but cost most of the compression time:
    // a PLAIN string chunk whose first 2,048 values (1 MiB at most) shrink by less than
    // 15 % is written uncompressed (the codec is per column chunk in Parquet, so readers
    // handle it).
    let compress = this.#compress;
    let skipCodec = false;
    if (dictionary === undefined && values.type === 'text' && this.#codec !== 'UNCOMPRESSED') {
      const writer = pageBody();
      const rows = Math.min(n, SAMPLE_ROWS);
      // The rows that fit in PAGE_BYTES and the one that crosses it, cut at PAGE_BYTES.
      writePlainText(writer, values, 0, Math.min(rows, textPageEnd(values, 0, rows, PAGE_BYTES) + 1));
      const sample = writer.getBytes().subarray(0, PAGE_BYTES);
      if (sample.length > 0 && compress(sample).length > sample.length * 0.85) {
        compress = identity;
        skipCodec = true;
      }
    }
    const dataPageOffset = this.#offset;
    const plainText = dictionary === undefined && values.type === 'text' ? values : undefined;
    const encoding = dictionary === undefined ? 'PLAIN' : 'RLE_DICTIONARY';
    const bitWidth = dictionary === undefined ? 0 : Math.max(1, 32 - Math.clz32(dictionary.size - 1));
    let pages = 0;
    for (let a = 0, b = 0; a < n; a = b) {
      b = Math.min(n, a + this.#rowsPerPage);
      if (plainText !== undefined) b = textPageEnd(plainText, a, b, PAGE_BYTES);
      const body = pageBody();
      if (defs !== undefined) {
        const levels = new ByteWriter();
        const length = writeRleBitPackedHybrid(levels, defs.subarray(a, b), 1);
        body.appendUint32(length);
        body.appendBytes(levels.getBytes());
      }
      if (dictionary !== undefined) {
        const indexes = new Int32Array(b - a);
        let k = 0;
        for (let r = a; r < b; r++) {
          const i = dictionary.indexes[r] as number;
          if (i >= 0) indexes[k++] = i;
        }
        body.appendUint8(bitWidth);
        writeRleBitPackedHybrid(body, indexes.subarray(0, k), bitWidth);
      } else if (values.type === 'text') {
        writePlainText(body, values, a, b);
      } else if (values.type === 'number') {
        writePlainNumbers(body, column, values, a, b, this.#timestampScale);
      } else if (nulls !== n) {
        // An indexed column without a dictionary holds only nulls (definition levels only).
        throw new Error(`Column ${column.name}: an indexed column with values has a dictionary`);
      }
      const raw = body.getBytes();
      const compressed = compress(raw); // copied into the output before the body is reused
      const header = new ByteWriter();
      writePageHeader(header, {
        type: 'DATA_PAGE',
        uncompressed_page_size: raw.length,
        compressed_page_size: compressed.length,
        data_page_header: {
          num_values: b - a,
          encoding,
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      });
      const h = header.getBytes();
      emit(h);
      emit(compressed);
      uncompressed += h.length + raw.length;
      pages++;
    }

    const range = values.type === 'number' && nulls < n ? statistics(column, values, n, nulls) : undefined;
    return {
      fileOffset: chunkStart,
      uncompressedSize: uncompressed,
      compressedSize: this.#offset - chunkStart,
      dataPageOffset,
      dictionaryPageOffset,
      uncompressed: skipCodec,
      nulls,
      min: range === undefined ? Number.NaN : Number(range.min_value),
      max: range === undefined ? Number.NaN : Number(range.max_value),
      pages,
    };
  }
}

/** The chunk's dictionary: always for indexed strings, when values repeat for the others. */
function chunkDictionary(
  buffer: ColumnBuffer,
  index: number,
  column: ColumnDefinition,
  values: BufferedColumn,
  n: number,
): ChunkDictionary | undefined {
  if (values.type === 'indexed') return indexedDictionary(buffer.dictionaries, index, values, n);
  if (values.type === 'text') return textDictionary(values, n);
  if (column.kind === 'int32' || column.kind === 'double') return numberDictionary(column, values, n);
  return undefined;
}
