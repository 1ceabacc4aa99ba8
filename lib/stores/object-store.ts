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
  /**
   * Absolute URI of the store's root, without a trailing slash (`file:///abs/dir`,
   * `s3://bucket`): an object's URI is `<rootUri>/<key>`, the key appended as it is (see
   * objectUri). Table metadata names its files by these URIs.
   */
  readonly rootUri: string;
  /** Writes an object; resolves with its size once it is durable and visible. */
  put(key: string, body: ObjectBody, options?: PutOptions): Promise<ObjectInfo>;
  /**
   * Writes an object only if no object has the key: atomic and exclusive (of writers racing
   * for one key, one creates it, whole; the others resolve undefined and change nothing).
   * The body is read into memory on some adapters: for small objects (table metadata).
   * Undefined can also mean this caller's own earlier attempt created it (S3: a request
   * the SDK retried after its reply was lost); a caller that must tell compares contents.
   */
  putIfAbsent(key: string, body: ObjectBody, options?: PutOptions): Promise<ObjectInfo | undefined>;
  /**
   * Writes an object from a local file, as put does (a local store copies it in the
   * kernel, no bytes pass through JS memory).
   */
  putFile(key: string, file: string, options?: PutOptions): Promise<ObjectInfo>;
  /**
   * Writes an object from a local file only if no object has the key, as putIfAbsent (S3:
   * `If-None-Match: *` on the PutObject or the CompleteMultipartUpload; streamed, not read
   * into memory): a table's data file, which no later write may replace.
   */
  putFileIfAbsent(key: string, file: string, options?: PutOptions): Promise<ObjectInfo | undefined>;
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

/**
 * A store whose objects are files on this machine (the local directory store) says so with
 * `machineLocal: true`. What a process that died left in it (a run's staging) can then be
 * recovered by the next run on this machine, which can tell whether that process still
 * runs (lib/export/publish/recover-staging.ts); a store shared by machines (S3) cannot.
 * A wrapper that does not repeat the flag turns the recovery off for what it wraps.
 */
export interface MachineLocalStore {
  readonly machineLocal: true;
  /**
   * Deletes what writes cut short by a dead process left under `prefix` (files the store's
   * listings never show), where the store has such leftovers.
   */
  removeUnfinishedWrites?(prefix: string): Promise<string[]>;
}

/** True for a store on this machine's disk (see MachineLocalStore). */
export function isMachineLocal(store: ObjectStore): boolean {
  return (store as Partial<MachineLocalStore>).machineLocal === true;
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

/** An object's absolute URI: `<rootUri>/<key>`. */
export function objectUri(store: ObjectStore, key: string): string {
  checkKey(key);
  return `${store.rootUri}/${key}`;
}

/**
 * The key of an object's absolute URI (the inverse of objectUri); refuses, with
 * STORE_KEY_INVALID, a URI outside the store's root.
 */
export function objectKeyOfUri(store: ObjectStore, uri: string): string {
  const root = `${store.rootUri}/`;
  if (!uri.startsWith(root)) throw invalidKey(uri, `it is not a URI under the store's root ${root}`);
  const key = uri.slice(root.length);
  checkKey(key);
  return key;
}

/** The object an absolute URI names, as UTF-8 text (small objects: table metadata); refuses a URI outside the store. */
export async function readTextAtUri(store: ObjectStore, uri: string): Promise<string> {
  return Buffer.from(await readObject(store, objectKeyOfUri(store, uri))).toString('utf8');
}

/** A body's bytes, a stream read to its end (small bodies: conditional writes). */
export async function bodyBytes(body: ObjectBody): Promise<Buffer> {
  if (typeof body === 'string' || body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Reads a whole object into memory (small objects: manifests, tests). */
export async function readObject(store: ObjectStore, key: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await store.get(key)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** An object's bytes, or undefined when there is none: one read, no HEAD first. */
export async function readObjectIfPresent(store: ObjectStore, key: string): Promise<Uint8Array | undefined> {
  try {
    return await readObject(store, key);
  } catch (error) {
    if (error instanceof ObjectStoreError && error.code === OBJECT_STORE_ERROR_CODES.notFound)
      return undefined;
    throw error;
  }
}

/** Collects a listing (tests, small prefixes). */
export async function listAll(store: ObjectStore, prefix: string): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const info of store.list(prefix)) out.push(info);
  return out;
}
