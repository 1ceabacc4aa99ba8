import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { OBJECT_STORE_ERROR_CODES, readObjectIfPresent } from '../../../lib/stores';
import { objectStoreFromUri, S3Store } from '../../../lib/stores/aws';

/**
 * S3 answers a missing key 404 only to a caller that may list the bucket; a tenant's
 * session lists only its own prefixes and gets 403 (AccessDenied) for a day it never
 * published. Such a session's store reads that 403 as absent; every other store keeps it
 * a refusal.
 */
const denied = () =>
  Object.assign(new Error('Access Denied'), {
    name: 'AccessDenied',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
  });

describe('S3Store with missingKeysDenied', () => {
  const s3 = mockClient(S3Client);
  afterEach(() => {
    s3.reset();
  });
  const client = () => new S3Client({ region: 'eu-west-2' });

  it('reads a 403 as absent in a session that may not list the bucket', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(denied());
    s3.on(HeadObjectCommand).rejects(denied());
    const store = new S3Store({ client: client(), bucket: 'lake', missingKeysDenied: true });

    // Act
    const read = await readObjectIfPresent(
      store,
      'calls/format=csv/tenant=a/report_id=r/dt=2026-11-25/_manifest.json',
    );
    const head = await store.head('calls/format=csv/tenant=a/report_id=r/dt=2026-11-25/_manifest.json');

    // Assess
    expect(read).toBeUndefined();
    expect(head).toBeUndefined();
  });

  it('keeps a 403 a refusal naming the permission in any other store', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(denied());
    s3.on(HeadObjectCommand).rejects(denied());
    const store = objectStoreFromUri('OBJECT_STORE_URI', 's3://lake/p', { s3: client }).store;

    // Act
    const read = readObjectIfPresent(store, 'p/runs/x.json');
    const head = store.head('p/runs/x.json');

    // Assess
    await expect(read).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed });
    await expect(head).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed });
  });

  it('keeps a GET answered 403 for another reason (a bad signature) a failure in that session', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(
      Object.assign(new Error('SignatureDoesNotMatch'), {
        name: 'SignatureDoesNotMatch',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
      }),
    );
    const store = new S3Store({ client: client(), bucket: 'lake', missingKeysDenied: true });

    // Act
    const read = readObjectIfPresent(store, 'calls/format=csv/tenant=a/x');

    // Assess
    await expect(read).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed });
  });

  it('is what a tenant adapter option asks of objectStoreFromUri', async () => {
    // Prepare
    s3.on(HeadObjectCommand).rejects(denied());
    const store = objectStoreFromUri('OBJECT_STORE_URI', 's3://lake/p', {
      s3: client,
      missingKeysDenied: true,
    }).store;

    // Act
    const head = await store.head('p/x');

    // Assess
    expect(head).toBeUndefined();
  });
});
