import type { ColumnChunk, CompressionCodec, FileMetaData, RowGroup, SchemaElement } from 'hyparquet';
import { SCHEMA_VERSION } from '../schema';
import { PARQUET_PRIMITIVES, PINNED_HYPARQUET_WRITER } from './parquet-primitives';

const { ByteWriter, writeMetadata } = PARQUET_PRIMITIVES;

const CREATED_BY = `report-export (hyparquet-writer ${PINNED_HYPARQUET_WRITER} primitives)`;

/** What the footer says of one column chunk, as numbers (offsets are file offsets). */
export interface ColumnChunkFacts {
  fileOffset: number;
  uncompressedSize: number;
  compressedSize: number;
  dataPageOffset: number;
  /** -1 when the chunk has no dictionary page. */
  dictionaryPageOffset: number;
  /** Whether the chunk is stored without the file's codec (see ParquetFileEncoder). */
  uncompressed: boolean;
  nulls: number;
  /** NaN when the column has no min/max statistics (strings, or every value null). */
  min: number;
  max: number;
  pages: number;
}

/** What the footer says of one row group besides its chunks. */
interface RowGroupFacts {
  rows: number;
  fileOffset: number;
  uncompressedSize: number;
  compressedSize: number;
}

const GROUP_FIELDS = 4;
const CHUNK_FIELDS = 10;

/**
 * The footer metadata of one file's row groups, kept as numbers in one growing
 * Float64Array (about 2 KB per row group) and turned into hyparquet's objects only when
 * the footer is written. Held as objects (BigInts, arrays, statistics) they cost about
 * 20 KB per row group, which over 3,000 open partitions was 60 MB of live heap.
 */
export class RowGroupLog {
  /** The file's columns, in file order. */
  readonly #columns: readonly string[];
  /** Numbers per row group. */
  readonly #stride: number;
  #values: Float64Array;
  #groups = 0;

  constructor(columns: readonly string[]) {
    this.#columns = columns;
    this.#stride = GROUP_FIELDS + CHUNK_FIELDS * columns.length;
    this.#values = new Float64Array(this.#stride);
  }

  get size(): number {
    return this.#groups;
  }

  add(group: RowGroupFacts, chunks: readonly ColumnChunkFacts[]): void {
    if ((this.#groups + 1) * this.#stride > this.#values.length) {
      const bigger = new Float64Array(this.#values.length * 2);
      bigger.set(this.#values);
      this.#values = bigger;
    }
    const v = this.#values;
    let o = this.#groups * this.#stride;
    v[o++] = group.rows;
    v[o++] = group.fileOffset;
    v[o++] = group.uncompressedSize;
    v[o++] = group.compressedSize;
    for (const c of chunks) {
      v[o++] = c.fileOffset;
      v[o++] = c.uncompressedSize;
      v[o++] = c.compressedSize;
      v[o++] = c.dataPageOffset;
      v[o++] = c.dictionaryPageOffset;
      v[o++] = c.uncompressed ? 1 : 0;
      v[o++] = c.nulls;
      v[o++] = c.min;
      v[o++] = c.max;
      v[o++] = c.pages;
    }
    this.#groups++;
  }

  /** The row groups as the footer serialises them. */
  rowGroups(schema: readonly SchemaElement[], codec: CompressionCodec): RowGroup[] {
    const out: RowGroup[] = [];
    const v = this.#values;
    for (let g = 0; g < this.#groups; g++) {
      let o = g * this.#stride;
      const rows = v[o] as number;
      const group = {
        num_rows: BigInt(rows),
        file_offset: BigInt(v[o + 1] as number),
        total_byte_size: BigInt(v[o + 2] as number),
        total_compressed_size: BigInt(v[o + 3] as number),
      };
      o += GROUP_FIELDS;
      const columns: ColumnChunk[] = [];
      for (let i = 0; i < this.#columns.length; i++, o += CHUNK_FIELDS) {
        const element = schema[i + 1] as SchemaElement;
        columns.push(
          chunkOf(this.#columns[i] as string, element, codec, rows, v.subarray(o, o + CHUNK_FIELDS)),
        );
      }
      out.push({ columns, ...group });
    }
    return out;
  }
}

function chunkOf(
  column: string,
  element: SchemaElement,
  codec: CompressionCodec,
  rows: number,
  f: Float64Array,
): ColumnChunk {
  const [fileOffset, uncompressed, compressed, dataPage, dictionaryPage, raw, nulls, min, max, pages] =
    f as unknown as number[];
  const dictionary = (dictionaryPage as number) >= 0;
  const encoding = dictionary ? 'RLE_DICTIONARY' : 'PLAIN';
  const statistics: { null_count: bigint; min_value?: number | bigint; max_value?: number | bigint } = {
    null_count: BigInt(nulls as number),
  };
  if (!Number.isNaN(min)) {
    // INT64 (timestamps, logged in epoch ms): min/max as BigInt, as the footer's writer
    // takes them, in the element's unit.
    if (element.type === 'INT64') {
      const scale = timestampScale(element);
      statistics.min_value = BigInt(min as number) * scale;
      statistics.max_value = BigInt(max as number) * scale;
    } else {
      statistics.min_value = min as number;
      statistics.max_value = max as number;
    }
  }
  return {
    file_offset: BigInt(fileOffset as number),
    meta_data: {
      type: element.type ?? 'BYTE_ARRAY',
      encodings: dictionary ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
      path_in_schema: [column],
      codec: raw === 1 ? 'UNCOMPRESSED' : codec,
      num_values: BigInt(rows),
      total_uncompressed_size: BigInt(uncompressed as number),
      total_compressed_size: BigInt(compressed as number),
      data_page_offset: BigInt(dataPage as number),
      ...(dictionary ? { dictionary_page_offset: BigInt(dictionaryPage as number) } : {}),
      statistics,
      encoding_stats: [
        ...(dictionary
          ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }]
          : []),
        { page_type: 'DATA_PAGE' as const, encoding, count: pages as number },
      ],
    },
  };
}

/** What a timestamp element's values are in epoch ms: 1000 for MICROS, else 1. */
function timestampScale(element: SchemaElement): bigint {
  return element.logical_type?.type === 'TIMESTAMP' && element.logical_type.unit === 'MICROS' ? 1000n : 1n;
}

/** The file's footer: metadata, its length and the closing magic; `keyValues` follow the schema version. */
export function footerBytes(
  schema: SchemaElement[],
  codec: CompressionCodec,
  rows: number,
  log: RowGroupLog,
  keyValues: readonly { key: string; value: string }[] = [],
): Uint8Array {
  const writer = new ByteWriter();
  const metadata: FileMetaData = {
    version: 1,
    created_by: CREATED_BY,
    schema,
    num_rows: BigInt(rows),
    row_groups: log.rowGroups(schema, codec),
    key_value_metadata: [
      { key: 'report_export.schema_version', value: String(SCHEMA_VERSION) },
      ...keyValues,
    ],
    metadata_length: 0,
  };
  // hyparquet-writer serialises every present member; metadata_length is not a footer field.
  delete (metadata as Partial<FileMetaData>).metadata_length;
  writeMetadata(writer, metadata);
  writer.appendUint32(0x31524150);
  return writer.getBytes().slice();
}
