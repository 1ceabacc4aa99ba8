import type { ColumnChunk, CompressionCodec, FileMetaData, RowGroup, SchemaElement } from 'hyparquet';
import type { BufferedColumn, ColumnBuffer } from '../rows/column-buffer';
import { COLUMNS, type ColumnDefinition, parquetSchema, SCHEMA_VERSION } from '../schema';
import { ChunkedOutput, recycleChunks } from './chunk-pool';
import { PARQUET_PRIMITIVES, PINNED_HYPARQUET_WRITER } from './parquet-primitives';
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

const { ByteWriter, writePageHeader, writeRleBitPackedHybrid, writeMetadata, snappyCompress } =
  PARQUET_PRIMITIVES;

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

export const PARQUET_CODECS = { snappy: 'SNAPPY', zstd: 'ZSTD', uncompressed: 'UNCOMPRESSED' } as const;
export type ParquetCodec = (typeof PARQUET_CODECS)[keyof typeof PARQUET_CODECS];

export interface ParquetEncoderOptions {
  codec?: ParquetCodec;
  /** Rows per data page; pages of about 1 MiB suit every reader. Default 16,384. */
  rowsPerPage?: number;
}

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]);
const CREATED_BY = `report-export (hyparquet-writer ${PINNED_HYPARQUET_WRITER} primitives)`;

type Compressor = (input: Uint8Array) => Uint8Array;
const identity: Compressor = (b) => b;

/**
 * One page body per thread, reused for every page: a fresh, growing buffer per page was
 * most of the encoder's garbage (external memory, freed only by a full GC).
 */
const PAGE = new ByteWriter(1024 * 1024);

function pageBody(): InstanceType<typeof ByteWriter> {
  PAGE.index = 0;
  PAGE.offset = 0;
  return PAGE;
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

/** Streams one Parquet file: header, row groups, footer, as byte chunks. */
export class ParquetFileEncoder {
  readonly #codec: CompressionCodec;
  readonly #compress: Compressor;
  readonly #rowsPerPage: number;
  readonly #schema: SchemaElement[] = parquetSchema();
  readonly #rowGroups: RowGroup[] = [];
  readonly #output = new ChunkedOutput();
  #offset = 0;
  #rows = 0;

  constructor(options: ParquetEncoderOptions = {}) {
    this.#codec = options.codec ?? 'SNAPPY';
    this.#compress = compressorFor(this.#codec);
    this.#rowsPerPage = options.rowsPerPage ?? 16_384;
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
    const chunks: ColumnChunk[] = [];
    let uncompressedTotal = 0;
    for (let i = 0; i < COLUMNS.length; i++) {
      const column = COLUMNS[i] as ColumnDefinition;
      const element = this.#schema[i + 1] as SchemaElement;
      const encoded = this.#column(buffer, i, column, element, n);
      chunks.push(encoded.chunk);
      uncompressedTotal += encoded.uncompressed;
    }
    this.#rowGroups.push({
      columns: chunks,
      total_byte_size: BigInt(uncompressedTotal),
      num_rows: BigInt(n),
      file_offset: BigInt(start),
      total_compressed_size: BigInt(this.#offset - start),
    });
    this.#rows += n;
    return this.#output.take();
  }

  /** Takes back the chunks of a row group once they are written. */
  recycle(chunks: readonly Uint8Array[]): void {
    recycleChunks(chunks);
  }

  /** The footer (metadata, its length and the closing magic); call once, last. */
  footer(): Uint8Array {
    const writer = new ByteWriter();
    const metadata: FileMetaData = {
      version: 1,
      created_by: CREATED_BY,
      schema: this.#schema,
      num_rows: BigInt(this.#rows),
      row_groups: this.#rowGroups,
      key_value_metadata: [{ key: 'report_export.schema_version', value: String(SCHEMA_VERSION) }],
      metadata_length: 0,
    };
    // hyparquet-writer serialises every present member; metadata_length is not a footer field.
    delete (metadata as Partial<FileMetaData>).metadata_length;
    writeMetadata(writer, metadata);
    writer.appendUint32(0x31524150);
    const bytes = writer.getBytes().slice();
    this.#offset += bytes.length;
    return bytes;
  }

  #column(
    buffer: ColumnBuffer,
    index: number,
    column: ColumnDefinition,
    element: SchemaElement,
    n: number,
  ): { chunk: ColumnChunk; uncompressed: number } {
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
    let dictionaryPageOffset: bigint | undefined;
    if (dictionary !== undefined) {
      dictionaryPageOffset = BigInt(this.#offset);
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
    // a PLAIN string chunk whose first 2,048 values shrink by less than 15 % is written
    // uncompressed (the codec is per column chunk in Parquet, so readers handle it).
    let compress = this.#compress;
    let codec = this.#codec;
    if (dictionary === undefined && values.type === 'text' && codec !== 'UNCOMPRESSED') {
      const writer = pageBody();
      writePlainText(writer, values, 0, Math.min(n, 2_048));
      const sample = writer.getBytes();
      if (sample.length > 0 && compress(sample).length > sample.length * 0.85) {
        compress = identity;
        codec = 'UNCOMPRESSED';
      }
    }
    const dataPageOffset = BigInt(this.#offset);
    const encoding = dictionary === undefined ? 'PLAIN' : 'RLE_DICTIONARY';
    const bitWidth = dictionary === undefined ? 0 : Math.max(1, 32 - Math.clz32(dictionary.size - 1));
    let pages = 0;
    for (let a = 0; a < n; a += this.#rowsPerPage) {
      const b = Math.min(n, a + this.#rowsPerPage);
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
        writePlainNumbers(body, column, values, a, b);
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

    const encodings: ColumnChunk['meta_data'] extends infer M
      ? M extends { encodings: infer E }
        ? E
        : never
      : never = dictionary === undefined ? ['PLAIN', 'RLE'] : ['PLAIN', 'RLE', 'RLE_DICTIONARY'];
    const chunk: ColumnChunk = {
      file_offset: BigInt(chunkStart),
      meta_data: {
        type: element.type ?? 'BYTE_ARRAY',
        encodings,
        path_in_schema: [column.name],
        codec,
        num_values: BigInt(n),
        total_uncompressed_size: BigInt(uncompressed),
        total_compressed_size: BigInt(this.#offset - chunkStart),
        data_page_offset: dataPageOffset,
        ...(dictionaryPageOffset === undefined ? {} : { dictionary_page_offset: dictionaryPageOffset }),
        statistics: statistics(column, values, n, nulls),
        encoding_stats: [
          ...(dictionary === undefined
            ? []
            : [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }]),
          { page_type: 'DATA_PAGE' as const, encoding, count: pages },
        ],
      },
    };
    return { chunk, uncompressed };
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
