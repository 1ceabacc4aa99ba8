import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { accessDeniedHint, permissionsOf, STORE_OPERATION_CALLS } from './aws-calls';
import {
  checkLeaseKey,
  LEASE_STORE_ERROR_CODES,
  type Lease,
  type LeaseStore,
  LeaseStoreError,
  parseLeaseRecord,
} from './lease-store';
import { isConditionFailure } from './s3-store';

interface S3LeaseStoreOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix of the lease objects, without trailing slash. Default `_leases`. */
  prefix?: string;
  now?: () => number;
  /** A missing lease object answers 403 to these credentials (see S3StoreOptions.missingKeysDenied). */
  missingKeysDenied?: boolean;
}

/** Key prefix of the lease objects when the lease store's URI names none. */
export const DEFAULT_LEASE_PREFIX = '_leases';

/** The S3 key of a lease's object: `<prefix>/<lease key>.lease`. */
export function leaseObjectKey(prefix: string, key: string): string {
  return `${prefix}/${key}.lease`;
}

/** The AWS calls of each operation (aws-calls.ts), named in AccessDenied messages. */
const CALLS = STORE_OPERATION_CALLS.s3LeaseStore;

/**
 * Leases as S3 objects, taken with S3 conditional writes: `If-None-Match: *` creates a
 * free lease (412 when it exists), `If-Match: <ETag>` takes over an expired one (412 when
 * someone else did first) and releases only our own version.
 */
export class S3LeaseStore implements LeaseStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #missingKeysDenied: boolean;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(options: S3LeaseStoreOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#missingKeysDenied = options.missingKeysDenied ?? false;
    this.#prefix = options.prefix ?? DEFAULT_LEASE_PREFIX;
    this.#now = options.now ?? Date.now;
  }

  async acquire(key: string, options: { ttlMs: number; owner: string }): Promise<Lease | undefined> {
    checkLeaseKey(key);
    const objectKey = leaseObjectKey(this.#prefix, key);
    const body = () => JSON.stringify({ owner: options.owner, expiresAt: this.#now() + options.ttlMs });
    try {
      const created = await this.#put(objectKey, body(), { IfNoneMatch: '*' });
      if (created !== undefined) return this.#lease(key, objectKey, options.owner, created);
      const held = await this.#get(objectKey);
      if (held === undefined) return undefined; // released meanwhile: the caller retries
      const record = parseLeaseRecord(held.text);
      // Our own create whose reply was lost and retried by the SDK (412 on the retry).
      if (record.owner === options.owner) return this.#lease(key, objectKey, options.owner, held.etag);
      if (record.expiresAt > this.#now()) return undefined;
      const taken = await this.#put(objectKey, body(), { IfMatch: held.etag });
      return taken === undefined ? undefined : this.#lease(key, objectKey, options.owner, taken);
    } catch (cause) {
      const needs = permissionsOf(CALLS.acquire, { bucket: this.#bucket, key: objectKey });
      throw new LeaseStoreError(
        LEASE_STORE_ERROR_CODES.failed,
        `Could not take lease ${key}${accessDeniedHint(cause, needs)}`,
        { key, cause },
      );
    }
  }

  /** Resolves the new ETag, or undefined when the condition failed. */
  async #put(
    objectKey: string,
    body: string,
    condition: { IfNoneMatch: string } | { IfMatch: string },
  ): Promise<string | undefined> {
    try {
      const out = await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          Body: body,
          ContentType: 'application/json',
          ...condition,
        }),
      );
      return out.ETag ?? '';
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async #get(objectKey: string): Promise<{ text: string; etag: string } | undefined> {
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: objectKey }));
      return { text: (await out.Body?.transformToString()) ?? '', etag: out.ETag ?? '' };
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey') return undefined;
      // A lease released between the refused create and this read, in a session that may not list it.
      if (this.#missingKeysDenied && (e.name === 'AccessDenied' || e.$metadata?.httpStatusCode === 403))
        return undefined;
      throw error;
    }
  }

  #lease(key: string, objectKey: string, owner: string, etag: string): Lease {
    let released = false;
    return {
      key,
      owner,
      release: async () => {
        if (released) return;
        released = true;
        try {
          // Deletes only the version we wrote: a lease taken over after expiry stays.
          await this.#client.send(
            new DeleteObjectCommand({ Bucket: this.#bucket, Key: objectKey, IfMatch: etag }),
          );
        } catch (error) {
          if (isConditionFailure(error) || (error as { name?: string }).name === 'NoSuchKey') return;
          const needs = permissionsOf(CALLS.release, { bucket: this.#bucket, key: objectKey });
          throw new LeaseStoreError(
            LEASE_STORE_ERROR_CODES.failed,
            `Could not release lease ${key}${accessDeniedHint(error, needs)}`,
            { key, cause: error },
          );
        }
      },
    };
  }
}
