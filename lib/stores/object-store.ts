import type { Readable } from 'node:stream';

/** Body of a put: bytes, or a stream of bytes read once. */
export type ObjectBody = Uint8Array | string | Readable | AsyncIterable<Uint8Array>;

export interface PutOptions {
  contentType?: string;
}

/** An object as listed or headed. */
export interface ObjectInfo {
  key: string;
  size: number;
}

/**
 * Storage port of the export: a flat key space with `/` as the conventional separator.
 * Keys are UTF-8, non-empty, no leading `/`, no empty, `.` or `..` segments.
 *
 * Guarantees every adapter gives: `put` and `copy` replace the target atomically (a
 * reader sees the old object or the new one, never a part); `list` yields keys in
 * ascending UTF-8 order; deleting a missing key is not an error.
 */
export interface ObjectStore {
  /** Writes an object; resolves with its size once it is durable and visible. */
  put(key: string, body: ObjectBody, options?: PutOptions): Promise<ObjectInfo>;
  /**
   * Writes an object from a local file, as put does (a local store copies it in the
   * kernel, no bytes pass through JS memory).
   */
  putFile(key: string, file: string, options?: PutOptions): Promise<ObjectInfo>;
  /** Reads an object as a stream; rejects with code STORE_NOT_FOUND when missing. */
  get(key: string): Promise<AsyncIterable<Uint8Array>>;
  /** Size of an object, or undefined when missing. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Every object whose key starts with `prefix` (a string prefix, not a folder). */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /** Deletes objects; missing ones are ignored. */
  deleteMany(keys: readonly string[]): Promise<void>;
  /** Copies an object inside the store (server-side where the backend can). */
  copy(fromKey: string, toKey: string): Promise<void>;
}

/** Stable codes of object store failures; callers match on these, never on messages. */
export const OBJECT_STORE_ERROR_CODES = {
  notFound: 'STORE_NOT_FOUND',
  invalidKey: 'STORE_KEY_INVALID',
  failed: 'STORE_FAILED',
} as const;
export type ObjectStoreErrorCode = (typeof OBJECT_STORE_ERROR_CODES)[keyof typeof OBJECT_STORE_ERROR_CODES];

/** Base error of the object stores. */
export class ObjectStoreError extends Error {
  readonly code: ObjectStoreErrorCode;
  readonly key: string | undefined;

  constructor(code: ObjectStoreErrorCode, message: string, options?: { key?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ObjectStoreError';
    this.code = code;
    this.key = options?.key;
  }
}

/** Rejects keys that could escape a directory or that S3 would treat differently. */
export function checkKey(key: string): void {
  const bad =
    key === '' ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.includes('\0') ||
    key.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw invalidKey(key, 'it is empty, absolute, or has an empty, `.`, `..`, `\\` or NUL segment');
}

/** The error every adapter throws for a key it cannot represent; names the key and why. */
export function invalidKey(key: string, reason: string): ObjectStoreError {
  return new ObjectStoreError(
    OBJECT_STORE_ERROR_CODES.invalidKey,
    `Invalid object key ${JSON.stringify(key)}: ${reason}`,
    { key },
  );
}

/** Reads a whole object into memory (small objects: manifests, tests). */
export async function readObject(store: ObjectStore, key: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await store.get(key)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Collects a listing (tests, small prefixes). */
export async function listAll(store: ObjectStore, prefix: string): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const info of store.list(prefix)) out.push(info);
  return out;
}
