import { parquetMetadata } from 'hyparquet';
import type { ObjectStore } from '../../stores';
import type { NewDataFile } from './commit';

// What a committer trusts of a data file another principal wrote (a tenant's run, a commit
// request): only what the object itself says. Its size comes from a HEAD, its record count
// from its Parquet footer; a claim that differs makes the file (and what names it) invalid.

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
export async function checkDataFile(store: ObjectStore, claimed: NewDataFile): Promise<NewDataFile> {
  const info = await store.head(claimed.key);
  if (info === undefined) throw new DataFileMismatch(claimed.key, 'does not exist');
  if (info.size !== claimed.bytes) {
    throw new DataFileMismatch(claimed.key, `is ${info.size} bytes, not the ${claimed.bytes} claimed`);
  }
  const rows = await footerRows(store, claimed.key, info.size);
  if (rows !== claimed.rows) {
    throw new DataFileMismatch(
      claimed.key,
      `holds ${rows} rows by its footer, not the ${claimed.rows} claimed`,
    );
  }
  return { key: claimed.key, dt: claimed.dt, rows, bytes: info.size };
}

/** The rows a stored Parquet file's footer declares. */
export async function footerRows(store: ObjectStore, key: string, size: number): Promise<number> {
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
    const metadata = parquetMetadata(new Uint8Array(footer).buffer);
    const rows = Number(metadata.num_rows);
    if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`num_rows ${String(metadata.num_rows)}`);
    return rows;
  } catch (cause) {
    throw new DataFileMismatch(key, `has a footer that cannot be read (${(cause as Error).message})`);
  }
}

/** A store that can read a byte range (S3's ranged GET); others are streamed. */
interface RangedStore {
  getRange(key: string, start: number, end: number): Promise<Uint8Array>;
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
