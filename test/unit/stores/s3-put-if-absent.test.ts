import { Readable } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { OBJECT_STORE_ERROR_CODES } from '../../../lib/stores';
import { S3Store } from '../../../lib/stores/aws';

/**
 * S3Store.putIfAbsent's request and answers, with a client mock: fauxqs 1.9.2 (the local
 * S3 of the integration tests) ignores If-None-Match on PutObject and overwrites.
 */
const refusal = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $fault: 'client', $metadata: { httpStatusCode: status } });

describe('S3Store.putIfAbsent', () => {
  const s3 = mockClient(S3Client);
  afterEach(() => {
    s3.reset();
  });
  const store = () => new S3Store({ client: new S3Client({ region: 'eu-west-2' }), bucket: 'lake-bucket' });

  it('sends one PutObject with If-None-Match: * and the whole body when the key is free', async () => {
    // Prepare
    s3.on(PutObjectCommand).resolves({ ETag: '"e1"' });

    // Act
    const created = await store().putIfAbsent('t/metadata/v2.metadata.json', Readable.from(['{"a":', '1}']), {
      contentType: 'application/json',
    });

    // Assess
    expect(created).toEqual({ key: 't/metadata/v2.metadata.json', size: 7 });
    const calls = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      Bucket: 'lake-bucket',
      Key: 't/metadata/v2.metadata.json',
      IfNoneMatch: '*',
      ContentType: 'application/json',
    });
    expect(Buffer.from(calls[0]?.Body as Uint8Array).toString()).toBe('{"a":1}');
  });

  it.each([
    { name: 'PreconditionFailed', status: 412 },
    { name: 'ConditionalRequestConflict', status: 409 },
  ])('resolves undefined when S3 answers $status $name', async ({ name, status }) => {
    // Prepare
    s3.on(PutObjectCommand).rejects(refusal(name, status));

    // Act
    const created = await store().putIfAbsent('t/v2', '{}');

    // Assess
    expect(created).toBeUndefined();
  });

  it('rejects with STORE_FAILED naming the key when S3 fails otherwise', async () => {
    // Prepare
    s3.on(PutObjectCommand).rejects(
      Object.assign(new Error('boom'), { name: 'InternalError', $fault: 'server' }),
    );

    // Act
    const created = store().putIfAbsent('t/v2', '{}');

    // Assess
    await expect(created).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed, key: 't/v2' });
  });
});
