import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  accessDeniedHint,
  type IamPermission,
  isAccessDenied,
  permissionsOf,
  type S3ObjectTarget,
  STORE_OPERATION_CALLS,
} from './aws-calls';
import {
  bodyBytes,
  checkKey,
  OBJECT_STORE_ERROR_CODES,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type PutOptions,
} from './object-store';

export interface S3StoreOptions {
  client: S3Client;
  bucket: string;
  /** Multipart part size in bytes (>= 5 MiB). Default 8 MiB. */
  partSize?: number;
  /** Parts uploaded at once; memory is about partSize * (queueSize + 1). Default 2. */
  queueSize?: number;
  /** Per-operation timeout in ms, applied through an AbortSignal. Default 5 minutes. */
  timeoutMs?: number;
  /**
   * A missing key reads as absent when S3 answers 403 AccessDenied to GET or HEAD. S3 answers
   * a missing key 404 only to a caller that may list the bucket, and 403 to one that may not:
   * a tenant's session lists only its own prefixes (s3:prefix conditions), so a day it never
   * published answers 403. Set only for such a session, whose reads of its own keys the IAM
   * simulation proves allowed (test/infra/iam-tenants.test.ts): there a 403 means absent.
   * Default false (a 403 is a refusal, named with the permissions the call needs).
   */
  missingKeysDenied?: boolean;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
/** The AWS calls of each operation (aws-calls.ts), named in AccessDenied messages. */
const CALLS = STORE_OPERATION_CALLS.s3Store;
const DELETE_BATCH = 1_000;

/** An S3 client with bounded retries; pass `endpoint` and `forcePathStyle` for a local S3. */
export function createS3Client(config: S3ClientConfig = {}): S3Client {
  return new S3Client({ maxAttempts: 5, retryMode: 'adaptive', ...config });
}

/**
 * ObjectStore on an S3 bucket. Streams are uploaded with multipart (bounded part buffers);
 * copies are server-side CopyObject (single request, atomic, objects up to 5 GB: parts are
 * bounded far below that); deletes are batched DeleteObjects. Retries are the SDK's
 * (`maxAttempts` on the client).
 */
export class S3Store implements ObjectStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #partSize: number;
  readonly #queueSize: number;
  readonly #timeoutMs: number;
  readonly #missingKeysDenied: boolean;
  /** `s3://<bucket>`. */
  readonly rootUri: string;

  constructor(options: S3StoreOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.rootUri = `s3://${options.bucket}`;
    this.#partSize = Math.max(MIN_PART_SIZE, options.partSize ?? 8 * 1024 * 1024);
    this.#queueSize = Math.max(1, options.queueSize ?? 2);
    this.#timeoutMs = options.timeoutMs ?? 300_000;
    this.#missingKeysDenied = options.missingKeysDenied ?? false;
  }

  async put(key: string, body: ObjectBody, options: PutOptions = {}): Promise<ObjectInfo> {
    checkKey(key);
    const contentType = options.contentType === undefined ? {} : { ContentType: options.contentType };
    try {
      if (typeof body === 'string' || body instanceof Uint8Array) {
        const bytes = Buffer.from(body);
        await this.#client.send(
          new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: bytes, ...contentType }),
          { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
        );
        return { key, size: bytes.length };
      }
      return { key, size: await this.#upload(key, body, contentType) };
    } catch (cause) {
      const calls = typeof body === 'string' || body instanceof Uint8Array ? CALLS.put : CALLS.putStream;
      throw wrap(cause, 'put', key, permissionsOf(calls, this.#object(key)));
    }
  }

  /**
   * One PutObject with `If-None-Match: *`: S3 creates the object only if the key has none
   * (412 PreconditionFailed when it has; 409 ConditionalRequestConflict when a concurrent
   * write to the key won the race), atomic like every PutObject. The body is read into
   * memory (one request, no multipart).
   */
  async putIfAbsent(
    key: string,
    body: ObjectBody,
    options: PutOptions = {},
  ): Promise<ObjectInfo | undefined> {
    checkKey(key);
    const contentType = options.contentType === undefined ? {} : { ContentType: options.contentType };
    try {
      const bytes = await bodyBytes(body);
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Body: bytes,
          IfNoneMatch: '*',
          ...contentType,
        }),
        { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
      );
      return { key, size: bytes.length };
    } catch (cause) {
      if (isConditionFailure(cause)) return undefined;
      throw wrap(cause, 'putIfAbsent', key, permissionsOf(CALLS.putIfAbsent, this.#object(key)));
    }
  }

  /**
   * Upload (one PutObject, or multipart when bigger than a part; the parts aborted on a
   * failure) of a stream; resolves with the bytes sent. `IfNoneMatch` goes on the PutObject
   * or on the CompleteMultipartUpload (the request that creates the object).
   */
  async #upload(
    key: string,
    body: Readable | AsyncIterable<Uint8Array>,
    extra: { ContentType?: string; IfNoneMatch?: string },
  ): Promise<number> {
    let size = 0;
    const counted = Readable.from(
      countBytes(body, (n) => {
        size += n;
      }),
    );
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: counted, ...extra },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      leavePartsOnError: false,
    });
    const timer = setTimeout(() => void upload.abort(), this.#timeoutMs);
    try {
      await upload.done();
    } finally {
      clearTimeout(timer);
    }
    return size;
  }

  /** The target of an object call, for the permissions of aws-calls.ts. */
  #object(key: string): S3ObjectTarget {
    return { bucket: this.#bucket, key };
  }

  async get(key: string): Promise<AsyncIterable<Uint8Array>> {
    checkKey(key);
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      if (out.Body === undefined) throw new Error('no body');
      return out.Body as AsyncIterable<Uint8Array>;
    } catch (cause) {
      // A GET's 403 has a body: only AccessDenied means "may not know" (not a bad signature or clock).
      if (this.#missingKeysDenied && (cause as { name?: string } | null)?.name === 'AccessDenied') {
        throw new ObjectStoreError(
          OBJECT_STORE_ERROR_CODES.notFound,
          `S3 get: no object ${key} (403 to a session that may not list it)`,
          { key, cause },
        );
      }
      throw wrap(cause, 'get', key, permissionsOf(CALLS.get, this.#object(key)));
    }
  }

  /** Bytes `start` to `end` (exclusive) of an object, one ranged GET: a committer reads a Parquet footer so. */
  async getRange(key: string, start: number, end: number): Promise<Uint8Array> {
    checkKey(key);
    if (end <= start) return new Uint8Array(0);
    try {
      const out = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: `bytes=${start}-${end - 1}` }),
      );
      if (out.Body === undefined) throw new Error('no body');
      const chunks: Uint8Array[] = [];
      for await (const chunk of out.Body as AsyncIterable<Uint8Array>) chunks.push(chunk);
      return Buffer.concat(chunks);
    } catch (cause) {
      throw wrap(cause, 'get', key, permissionsOf(CALLS.get, this.#object(key)));
    }
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    checkKey(key);
    try {
      const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(this.#timeoutMs),
      });
      return { key, size: out.ContentLength ?? 0 };
    } catch (cause) {
      if (isNotFound(cause) || (this.#missingKeysDenied && isAccessDenied(cause))) return undefined;
      throw wrap(cause, 'head', key, permissionsOf(CALLS.head, this.#object(key)));
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    let token: string | undefined;
    // Bounded: every page advances the continuation token; S3 ends the listing.
    do {
      let out: ListObjectsV2CommandOutput;
      try {
        out = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: prefix,
            ...(token === undefined ? {} : { ContinuationToken: token }),
          }),
          { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
        );
      } catch (cause) {
        throw wrap(cause, 'list', prefix, permissionsOf(CALLS.list, { bucket: this.#bucket, prefix }));
      }
      for (const item of out.Contents ?? []) {
        if (item.Key !== undefined) yield { key: item.Key, size: item.Size ?? 0 };
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    for (const key of keys) checkKey(key);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      try {
        const out = await this.#client.send(
          new DeleteObjectsCommand({
            Bucket: this.#bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
        );
        const failed = out.Errors?.[0];
        if (failed !== undefined)
          throw new Error(`DeleteObjects: ${failed.Code ?? 'error'} on ${failed.Key ?? '?'}`);
      } catch (cause) {
        const first = batch[0] ?? '';
        throw wrap(cause, 'delete', first, permissionsOf(CALLS.deleteMany, this.#object(first)));
      }
    }
  }

  /** Streams the file up (multipart when bigger than a part). */
  async putFile(key: string, file: string, options: PutOptions = {}): Promise<ObjectInfo> {
    checkKey(key); // before the file is opened
    return this.put(key, createReadStream(file), options);
  }

  /**
   * Streams the file up create-only: `If-None-Match: *` on the PutObject, or on the
   * CompleteMultipartUpload of a multipart upload (S3 then refuses to complete over an
   * existing object, and the parts are aborted). Undefined when the key has an object.
   */
  async putFileIfAbsent(
    key: string,
    file: string,
    options: PutOptions = {},
  ): Promise<ObjectInfo | undefined> {
    checkKey(key); // before the file is opened
    const contentType = options.contentType === undefined ? {} : { ContentType: options.contentType };
    try {
      const size = await this.#upload(key, createReadStream(file), { ...contentType, IfNoneMatch: '*' });
      return { key, size };
    } catch (cause) {
      if (isConditionFailure(cause)) return undefined;
      throw wrap(cause, 'putFileIfAbsent', key, permissionsOf(CALLS.putFileIfAbsent, this.#object(key)));
    }
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    checkKey(fromKey);
    checkKey(toKey);
    try {
      await this.#client.send(
        new CopyObjectCommand({
          Bucket: this.#bucket,
          Key: toKey,
          CopySource: `${this.#bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`,
        }),
        { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
      );
    } catch (cause) {
      throw wrap(cause, 'copy', fromKey, permissionsOf(CALLS.copy, { bucket: this.#bucket, fromKey, toKey }));
    }
  }
}

async function* countBytes(
  body: Readable | AsyncIterable<Uint8Array>,
  onBytes: (n: number) => void,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    onBytes(bytes.length);
    yield bytes;
  }
}

/** S3's answer to a conditional write whose condition failed: 412, or 409 for a lost race. */
export function isConditionFailure(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return (
    e?.name === 'PreconditionFailed' ||
    e?.name === 'ConditionalRequestConflict' ||
    e?.$metadata?.httpStatusCode === 412 ||
    e?.$metadata?.httpStatusCode === 409
  );
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** The store's error for a failed call; when AWS refused it, the message names the permissions needed. */
function wrap(
  cause: unknown,
  operation: string,
  key: string,
  needs: readonly IamPermission[],
): ObjectStoreError {
  if (cause instanceof ObjectStoreError) return cause;
  const code = isNotFound(cause) ? OBJECT_STORE_ERROR_CODES.notFound : OBJECT_STORE_ERROR_CODES.failed;
  // The SDK's message can carry request details but never credentials; keep only its name.
  const name = (cause as { name?: string } | null)?.name ?? 'Error';
  return new ObjectStoreError(
    code,
    `S3 ${operation} failed for ${key} (${name})${accessDeniedHint(cause, needs)}`,
    { key, cause },
  );
}
