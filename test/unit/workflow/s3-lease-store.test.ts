import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { S3LeaseStore } from '../../../lib/stores/s3-lease-store';

const precondition = () =>
  Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
    name: 'PreconditionFailed',
    $metadata: { httpStatusCode: 412 },
  });
const body = (text: string) => ({ transformToString: async () => text });

describe('S3LeaseStore', () => {
  it('creates a free lease with If-None-Match: * and releases it with If-Match of its ETag', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand).resolves({ ETag: '"e1"' });
    s3.on(DeleteObjectCommand).resolves({});
    const store = new S3LeaseStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    const lease = await store.acquire('token-refresh', { ttlMs: 1000, owner: 'me' });
    expect(lease).toBeDefined();
    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toMatchObject({
      Key: '_leases/token-refresh.lease',
      IfNoneMatch: '*',
    });
    await lease?.release();
    expect(s3.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toMatchObject({ IfMatch: '"e1"' });
  });

  it('returns undefined while another holder has an unexpired lease', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand).rejects(precondition());
    s3.on(GetObjectCommand).resolves({
      Body: body(JSON.stringify({ owner: 'other', expiresAt: 2000 })) as never,
      ETag: '"x"',
    });
    const store = new S3LeaseStore({
      client: new S3Client({ region: 'us-east-1' }),
      bucket: 'b',
      now: () => 1000,
    });
    expect(await store.acquire('k', { ttlMs: 1000, owner: 'me' })).toBeUndefined();
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
  });

  it('takes over an expired lease only with If-Match of the expired version', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand, { IfNoneMatch: '*' }).rejects(precondition());
    s3.on(PutObjectCommand, { IfMatch: '"old"' }).resolves({ ETag: '"new"' });
    s3.on(GetObjectCommand).resolves({
      Body: body(JSON.stringify({ owner: 'other', expiresAt: 500 })) as never,
      ETag: '"old"',
    });
    const store = new S3LeaseStore({
      client: new S3Client({ region: 'us-east-1' }),
      bucket: 'b',
      now: () => 1000,
    });
    expect(await store.acquire('k', { ttlMs: 1000, owner: 'me' })).toBeDefined();
  });
});
