import { type ColumnChunk, type FileMetaData, parquetMetadata, type SchemaElement } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import type { ObjectStore } from '../../../stores';
import { PARTITION_COLUMN, TENANT_COLUMN } from '../../schema';
import { currentSchema } from '../metadata/metadata';
import type { IcebergField, IcebergPrimitive, TableMetadata } from '../metadata/types';
import type { NewDataFile } from '../snapshot/replace-partitions';

// What a committer trusts of a data file another principal wrote (a tenant's run, a commit
// request): only what the object itself says. Its size comes from a HEAD, its record count
// from its Parquet footer; a claim that differs makes the file (and what names it) invalid.
// Its rows' own `tenant` and `dt` are read from the pages (never from statistics, which a
// forged file may set at will, while readers show what the pages hold): a tenant must not
// write rows that readers attribute to another tenant or another day.

/**
 * A Parquet footer longer than this is not read (ours are a few kB per row group; the bound
 * also bounds what decoding it can allocate).
 */
export const MAX_FOOTER_BYTES = 256 * 1024;
/** A data file's name: one plain segment (no `%`, no dot segment), as a run names its files. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}\.parquet$/;

/**
 * Whether `key` is a data file directly under `dayPrefix` (`.../dt=<day>/`) by a strict
 * grammar: a reader that decodes `%2e%2e` (a URL) must not be led into another tenant's files.
 */
export function isDataFileKey(key: string, dayPrefix: string): boolean {
  return key.startsWith(dayPrefix) && FILE_NAME.test(key.slice(dayPrefix.length));
}
/**
 * A constant column's chunk (`tenant`, `dt`) longer than this is not read: ours is one
 * dictionary page of one value and one short RLE page per row group (tens of bytes).
 */
export const MAX_CONSTANT_CHUNK_BYTES = 4 * 1024;
/** A tenanted key's segments after the table's data folder: `tenant=<t>/report_id=<r>/dt=<d>/<file>`. */
const TENANTED_KEY = /\/data\/tenant=([^/]+)\/report_id=[^/]+\/dt=[^/]+\/[^/]+$/;

/** What the table expects of a data file besides its claims (the table's current schema). */
export interface DataFileExpectation {
  /** The table's current field id of each column by name (fileSchema(loaded).fieldIds). */
  fieldIds?: Readonly<Record<string, number>> | undefined;
  /**
   * The table's current columns: each column of the file must be stored as its type is
   * (a reader decodes it so) and every required one must be there, never null.
   */
  fields?: readonly IcebergField[] | undefined;
}

/** What a committer checks a file against: the loaded table's current schema. */
export function dataFileExpectation(loaded: { metadata: TableMetadata } | undefined): DataFileExpectation {
  if (loaded === undefined) return {};
  const fields = currentSchema(loaded.metadata, loaded.metadata.location).fields;
  return { fieldIds: Object.fromEntries(fields.map((f) => [f.name, f.id])), fields };
}

/** The Parquet physical type each Iceberg type is stored as (Iceberg spec, Parquet appendix). */
const PHYSICAL_TYPE_OF: Record<IcebergPrimitive, string> = {
  string: 'BYTE_ARRAY',
  int: 'INT32',
  long: 'INT64',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'INT32',
  timestamp: 'INT64',
  timestamptz: 'INT64',
};

/**
 * Each column of the file stored as the table's field of its id is typed, a required field's
 * column present and REQUIRED: a column a reader cannot decode as its type, or a required
 * one missing, would fail every reader of the table, every tenant's.
 */
function checkColumnTypes(
  key: string,
  columns: readonly SchemaElement[],
  fields: readonly IcebergField[],
): void {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const present = new Set<number>();
  for (const e of columns) {
    const field = e.field_id === undefined ? undefined : byId.get(e.field_id);
    if (field === undefined)
      throw new DataFileMismatch(key, `has column ${e.name}, which the table does not have`);
    present.add(field.id);
    if (e.type !== PHYSICAL_TYPE_OF[field.type]) {
      throw new DataFileMismatch(
        key,
        `stores column ${e.name} as ${String(e.type)}, not as the table's ${field.type} (${PHYSICAL_TYPE_OF[field.type]})`,
      );
    }
    if (field.required && e.repetition_type !== 'REQUIRED') {
      throw new DataFileMismatch(
        key,
        `has column ${e.name} ${String(e.repetition_type)}, which the table requires`,
      );
    }
  }
  const missing = fields.filter((f) => f.required && !present.has(f.id)).map((f) => f.name);
  if (missing.length > 0)
    throw new DataFileMismatch(key, `lacks the required column(s) ${missing.join(', ')}`);
}

/** Parquet's trailer: the footer's length (4 bytes LE) and the magic `PAR1`. */
const TRAILER = 8;

/** Why a data file is not what was claimed; `undefined` from checkDataFile: it is. */
export class DataFileMismatch extends Error {
  constructor(
    readonly key: string,
    why: string,
  ) {
    super(`the data file ${key} ${why}`);
    this.name = 'DataFileMismatch';
  }
}

/**
 * The file as the store holds it: its size by HEAD, its rows from its footer (a read of the
 * object's tail only). Throws DataFileMismatch when it is missing, its size is not the claimed
 * one, it is no Parquet file, or its footer counts other rows; a store failure passes as it is
 * (it may be transient).
 */
export async function checkDataFile(
  store: ObjectStore,
  claimed: NewDataFile,
  expected: DataFileExpectation = {},
): Promise<NewDataFile> {
  const info = await store.head(claimed.key);
  if (info === undefined) throw new DataFileMismatch(claimed.key, 'does not exist');
  if (info.size !== claimed.bytes) {
    throw new DataFileMismatch(claimed.key, `is ${info.size} bytes, not the ${claimed.bytes} claimed`);
  }
  const metadata = await footerMetadata(store, claimed.key, info.size);
  const rows = footerRowCount(claimed.key, metadata);
  if (rows !== claimed.rows) {
    throw new DataFileMismatch(
      claimed.key,
      `holds ${rows} rows by its footer, not the ${claimed.rows} claimed`,
    );
  }
  // The key's tenant: the callers accept only keys under the run's (request's) tenant's
  // folder by a strict grammar, so the segment is that tenant. A key without one is a
  // single-tenant lake's: it has no other tenant to forge.
  const tenant = TENANTED_KEY.exec(claimed.key)?.[1];
  if (expected.fields !== undefined) checkColumnTypes(claimed.key, metadata.schema.slice(1), expected.fields);
  await checkConstantColumns(store, claimed, info.size, metadata, tenant, expected.fieldIds);
  return { key: claimed.key, dt: claimed.dt, rows, bytes: info.size };
}

/** The rows a stored Parquet file's footer declares. */
export async function footerRows(store: ObjectStore, key: string, size: number): Promise<number> {
  return footerRowCount(key, await footerMetadata(store, key, size));
}

function footerRowCount(key: string, metadata: FileMetaData): number {
  const rows = Number(metadata.num_rows);
  if (!Number.isSafeInteger(rows) || rows < 0) {
    throw new DataFileMismatch(
      key,
      `has a footer that cannot be read (num_rows ${String(metadata.num_rows)})`,
    );
  }
  return rows;
}

/**
 * The file's footer, decoded from at most MAX_FOOTER_BYTES: a Thrift list in it cannot
 * claim more elements than its bytes hold (each element is at least one byte, and decoding
 * past the footer's end throws), so the cap bounds what decoding allocates.
 */
async function footerMetadata(store: ObjectStore, key: string, size: number): Promise<FileMetaData> {
  if (size < TRAILER + 4) throw new DataFileMismatch(key, `is ${size} bytes: no Parquet file`);
  const trailer = await readTail(store, key, size, TRAILER);
  if (trailer.subarray(4).toString('latin1') !== 'PAR1')
    throw new DataFileMismatch(key, 'is no Parquet file');
  const length = trailer.readUInt32LE(0);
  if (length > MAX_FOOTER_BYTES || length + TRAILER + 4 > size) {
    throw new DataFileMismatch(key, `declares a footer of ${length} bytes: not a Parquet file of ours`);
  }
  const footer = await readTail(store, key, size, length + TRAILER);
  try {
    const bytes = new Uint8Array(footer);
    return parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  } catch (cause) {
    throw new DataFileMismatch(key, `has a footer that cannot be read (${(cause as Error).message})`);
  }
}

/**
 * The file's `dt` column (and a tenanted key's `tenant` column) holds only the claimed day
 * (the key's tenant) in every row, as readers read it: a top-level required column of its
 * type (with the table's field id when given), and in every row group an uncompressed chunk
 * of one PLAIN dictionary page holding exactly that one value, then only RLE_DICTIONARY
 * data pages, so no row can hold another value. Every read is a bounded ranged read.
 */
async function checkConstantColumns(
  store: ObjectStore,
  claimed: NewDataFile,
  size: number,
  metadata: FileMetaData,
  tenant: string | undefined,
  fieldIds: Readonly<Record<string, number>> | undefined,
): Promise<void> {
  const key = claimed.key;
  const columns = metadata.schema.slice(1);
  if (columns.some((e) => e.num_children !== undefined && e.num_children > 0)) {
    throw new DataFileMismatch(key, 'has nested columns: not a data file of the table');
  }
  const ids = new Set<number>();
  for (const e of columns) {
    if (fieldIds !== undefined) {
      const id = Object.hasOwn(fieldIds, e.name) ? fieldIds[e.name] : undefined;
      if (id === undefined || e.field_id !== id) {
        throw new DataFileMismatch(
          key,
          `has column ${e.name} with field id ${String(e.field_id)}, not the table's ${String(id)}`,
        );
      }
    }
    if (e.field_id !== undefined) {
      if (ids.has(e.field_id)) throw new DataFileMismatch(key, `has field id ${e.field_id} twice`);
      ids.add(e.field_id);
    }
  }
  const day = epochDay(claimed.dt);
  const dayBytes = Buffer.alloc(4);
  dayBytes.writeInt32LE(day);
  await checkConstantColumn(
    store,
    key,
    size,
    metadata,
    PARTITION_COLUMN,
    'INT32',
    dayBytes,
    claimed.dt,
    fieldIds,
  );
  if (tenant !== undefined) {
    const value = Buffer.from(tenant, 'utf8');
    const plain = Buffer.alloc(4 + value.length);
    plain.writeUInt32LE(value.length);
    value.copy(plain, 4);
    await checkConstantColumn(
      store,
      key,
      size,
      metadata,
      TENANT_COLUMN,
      'BYTE_ARRAY',
      plain,
      tenant,
      fieldIds,
    );
  }
}

async function checkConstantColumn(
  store: ObjectStore,
  key: string,
  size: number,
  metadata: FileMetaData,
  name: string,
  type: SchemaElement['type'],
  plain: Buffer,
  shown: string,
  fieldIds: Readonly<Record<string, number>> | undefined,
): Promise<void> {
  const columns = metadata.schema.slice(1);
  const named = columns.filter((e) => e.name === name);
  const element = named[0];
  if (named.length !== 1 || element === undefined) {
    throw new DataFileMismatch(key, `has ${named.length} ${name} columns, not one`);
  }
  if (element.type !== type || element.repetition_type !== 'REQUIRED') {
    throw new DataFileMismatch(
      key,
      `has a ${name} column of ${String(element.repetition_type)} ${String(element.type)}, not REQUIRED ${type}`,
    );
  }
  if (fieldIds === undefined && element.field_id === undefined) {
    throw new DataFileMismatch(key, `has a ${name} column without a field id`);
  }
  const index = columns.indexOf(element);
  for (const [g, group] of metadata.row_groups.entries()) {
    const chunk = group.columns[index];
    const refuse = (why: string) =>
      new DataFileMismatch(key, `row group ${g}: its ${name} column ${why}, so not only ${shown}`);
    await checkConstantChunk(store, key, size, chunk, name, Number(group.num_rows), plain, refuse);
  }
}

async function checkConstantChunk(
  store: ObjectStore,
  key: string,
  size: number,
  chunk: ColumnChunk | undefined,
  name: string,
  rows: number,
  plain: Buffer,
  refuse: (why: string) => DataFileMismatch,
): Promise<void> {
  const meta = chunk?.meta_data;
  if (chunk === undefined || meta === undefined || chunk.file_path !== undefined) {
    throw refuse('has no chunk in the file');
  }
  if (meta.path_in_schema.length !== 1 || meta.path_in_schema[0] !== name) {
    throw refuse(`chunk is of ${meta.path_in_schema.join('.')}`);
  }
  if (meta.codec !== 'UNCOMPRESSED') throw refuse(`chunk is ${meta.codec}, not UNCOMPRESSED`);
  if (meta.dictionary_page_offset === undefined) throw refuse('has no dictionary page');
  const start = Number(meta.dictionary_page_offset);
  const length = Number(meta.total_compressed_size);
  if (Number(meta.data_page_offset) < start) throw refuse('has a data page before its dictionary');
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 4 || length <= 0) {
    throw refuse('has no readable extent');
  }
  if (length > MAX_CONSTANT_CHUNK_BYTES) {
    throw refuse(`is ${length} bytes, more than the ${MAX_CONSTANT_CHUNK_BYTES} a constant column takes`);
  }
  if (start + length > size - TRAILER) throw refuse('ends past the data');
  const bytes = await readRange(store, key, size, start, start + length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = { view, offset: 0 };
  let values = 0;
  let first = true;
  while (reader.offset < bytes.length) {
    let header: ReturnType<typeof parquetHeader>;
    try {
      header = parquetHeader(reader);
    } catch {
      throw refuse('has a page header that cannot be read');
    }
    const bodyLength = header.compressed_page_size;
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || reader.offset + bodyLength > bytes.length) {
      throw refuse('has a page past its chunk');
    }
    if (first) {
      first = false;
      const dictionary = header.dictionary_page_header;
      if (header.type !== 'DICTIONARY_PAGE' || dictionary === undefined)
        throw refuse('does not start with a dictionary');
      const body = bytes.subarray(reader.offset, reader.offset + bodyLength);
      if (dictionary.num_values !== 1 || dictionary.encoding !== 'PLAIN' || !body.equals(plain)) {
        throw refuse(`has a dictionary of ${dictionary.num_values} values that is not that value`);
      }
    } else if (header.type === 'DATA_PAGE' && header.data_page_header !== undefined) {
      if (header.data_page_header.encoding !== 'RLE_DICTIONARY') {
        throw refuse(`has a ${header.data_page_header.encoding} data page`);
      }
      values += header.data_page_header.num_values;
    } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2 !== undefined) {
      if (header.data_page_header_v2.encoding !== 'RLE_DICTIONARY') {
        throw refuse(`has a ${header.data_page_header_v2.encoding} data page`);
      }
      values += header.data_page_header_v2.num_values;
    } else {
      throw refuse(`has a ${header.type} page where only data pages may follow`);
    }
    reader.offset += bodyLength;
  }
  if (first) throw refuse('has no pages');
  if (values !== rows) throw refuse(`has data pages of ${values} values for ${rows} rows`);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day (the DATE value a file's `dt` holds). */
function epochDay(dt: string): number {
  return Date.UTC(Number(dt.slice(0, 4)), Number(dt.slice(5, 7)) - 1, Number(dt.slice(8, 10))) / 86_400_000;
}

/** A store that can read a byte range (S3's ranged GET); others are streamed. */
interface RangedStore {
  getRange(key: string, start: number, end: number): Promise<Uint8Array>;
}

/** Bytes `start` to `end` of an object of `size` bytes: ranged where the store can, else streamed. */
async function readRange(
  store: ObjectStore,
  key: string,
  size: number,
  start: number,
  end: number,
): Promise<Buffer> {
  const ranged = (store as Partial<RangedStore>).getRange;
  if (typeof ranged === 'function') {
    const bytes = Buffer.from(await ranged.call(store, key, start, end));
    if (bytes.length !== end - start) throw new DataFileMismatch(key, 'changed while read');
    return bytes;
  }
  const out = Buffer.alloc(end - start);
  let at = 0;
  for await (const chunk of await store.get(key)) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const from = Math.max(start - at, 0);
    const to = Math.min(end - at, bytes.length);
    if (to > from) bytes.copy(out, at + from - start, from, to);
    at += bytes.length;
  }
  if (at !== size) throw new DataFileMismatch(key, `changed while read (${at} bytes, not ${size})`);
  return out;
}

/**
 * The last `n` bytes of an object of `size` bytes. A store with `getRange` reads only them;
 * any other is streamed keeping only the last `n` bytes in memory (bounded, whatever the
 * object's size).
 */
async function readTail(store: ObjectStore, key: string, size: number, n: number): Promise<Buffer> {
  const ranged = (store as Partial<RangedStore>).getRange;
  if (typeof ranged === 'function') {
    const bytes = Buffer.from(await ranged.call(store, key, size - n, size));
    if (bytes.length !== n)
      throw new DataFileMismatch(key, `changed while read (${bytes.length} of ${n} tail bytes)`);
    return bytes;
  }
  const tail = Buffer.alloc(n);
  let filled = 0;
  let total = 0;
  for await (const chunk of await store.get(key)) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    total += bytes.length;
    if (bytes.length >= n) {
      bytes.copy(tail, 0, bytes.length - n);
      filled = n;
    } else {
      const keep = Math.min(filled, n - bytes.length);
      tail.copy(tail, 0, filled - keep, filled);
      bytes.copy(tail, keep);
      filled = keep + bytes.length;
    }
  }
  if (total !== size) throw new DataFileMismatch(key, `changed while read (${total} bytes, not ${size})`);
  return filled === n ? tail : tail.subarray(0, filled);
}

/**
 * An object's bytes, read only up to `max`: undefined when it holds more (a HEAD checked the
 * size first, but the object may have been replaced since). Bounds the memory whatever it is.
 */
export async function readBounded(store: ObjectStore, key: string, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of await store.get(key)) {
    total += chunk.byteLength;
    if (total > max) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
