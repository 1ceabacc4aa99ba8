import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { OBJECT_STORE_ERROR_CODES, SECRET_STORE_ERROR_CODES } from '../../../lib/stores';
import { S3Store, SecretsManagerStore } from '../../../lib/stores/aws';
import { accessDeniedHint, isAccessDenied } from '../../../lib/stores/aws-calls';
import { LEASE_STORE_ERROR_CODES } from '../../../lib/stores/lease-store';
import { S3LeaseStore } from '../../../lib/stores/s3-lease-store';

const denied = (name = 'AccessDenied') =>
  Object.assign(new Error('User is not authorized'), { name, $metadata: { httpStatusCode: 403 } });

const SECRET = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:service-AbCdEf';

describe('AWS adapters when AWS refuses a call', () => {
  const s3 = mockClient(S3Client);
  const sm = mockClient(SecretsManagerClient);
  afterEach(() => {
    s3.reset();
    sm.reset();
  });
  const store = () => new S3Store({ client: new S3Client({ region: 'eu-west-2' }), bucket: 'lake-bucket' });

  it.each([
    {
      operation: 'put',
      refuse: () => s3.on(PutObjectCommand).rejects(denied()),
      act: () => store().put('lake/runs/r.json', '{}'),
      needs: 's3:PutObject on arn:aws:s3:::lake-bucket/lake/runs/r.json',
    },
    {
      operation: 'putIfAbsent',
      refuse: () => s3.on(PutObjectCommand).rejects(denied()),
      act: () => store().putIfAbsent('lake/tables/calls/metadata/v2.metadata.json', '{}'),
      needs: 's3:PutObject on arn:aws:s3:::lake-bucket/lake/tables/calls/metadata/v2.metadata.json',
    },
    {
      operation: 'put of a stream',
      refuse: () => s3.on(PutObjectCommand).rejects(denied()),
      act: () => store().put('lake/p.parquet', Readable.from([Buffer.from('x')])),
      needs:
        's3:PutObject on arn:aws:s3:::lake-bucket/lake/p.parquet, s3:AbortMultipartUpload on arn:aws:s3:::lake-bucket/lake/p.parquet',
    },
    {
      operation: 'get',
      refuse: () => s3.on(GetObjectCommand).rejects(denied()),
      act: () => store().get('lake/m.json'),
      needs:
        's3:GetObject on arn:aws:s3:::lake-bucket/lake/m.json, s3:ListBucket on arn:aws:s3:::lake-bucket',
    },
    {
      operation: 'head (a bare 403)',
      refuse: () => s3.on(HeadObjectCommand).rejects(denied('Forbidden')),
      act: () => store().head('lake/m.json'),
      needs:
        's3:GetObject on arn:aws:s3:::lake-bucket/lake/m.json, s3:ListBucket on arn:aws:s3:::lake-bucket',
    },
    {
      operation: 'list',
      refuse: () => s3.on(ListObjectsV2Command).rejects(denied()),
      act: async () => {
        for await (const _ of store().list('lake/calls/')) break;
      },
      needs: 's3:ListBucket on arn:aws:s3:::lake-bucket',
    },
    {
      operation: 'deleteMany',
      refuse: () => s3.on(DeleteObjectsCommand).rejects(denied()),
      act: () => store().deleteMany(['lake/a.parquet']),
      needs: 's3:DeleteObject on arn:aws:s3:::lake-bucket/lake/a.parquet',
    },
    {
      operation: 'copy',
      refuse: () => s3.on(CopyObjectCommand).rejects(denied()),
      act: () => store().copy('lake/_staging/a', 'lake/a'),
      needs:
        's3:GetObject on arn:aws:s3:::lake-bucket/lake/_staging/a, s3:PutObject on arn:aws:s3:::lake-bucket/lake/a',
    },
  ])('names the permissions S3Store $operation needs', async ({ refuse, act, needs }) => {
    // Prepare
    refuse();

    // Act
    const error: unknown = await act().then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed });
    expect((error as Error).message).toContain(`; needs ${needs}`);
  });

  it('names the permissions of a lease when S3 refuses to take it', async () => {
    // Prepare
    s3.on(PutObjectCommand).rejects(denied());
    const leases = new S3LeaseStore({ client: new S3Client({ region: 'eu-west-2' }), bucket: 'lake-bucket' });

    // Act
    const taken = leases.acquire('token-refresh', { ttlMs: 1000, owner: 'me' });

    // Assess
    await expect(taken).rejects.toMatchObject({ code: LEASE_STORE_ERROR_CODES.failed });
    await expect(taken).rejects.toThrow(
      'needs s3:PutObject on arn:aws:s3:::lake-bucket/_leases/token-refresh.lease, s3:GetObject on arn:aws:s3:::lake-bucket/_leases/token-refresh.lease, s3:ListBucket on arn:aws:s3:::lake-bucket',
    );
  });

  it.each([
    {
      operation: 'get',
      refuse: () => sm.on(GetSecretValueCommand).rejects(denied('AccessDeniedException')),
      act: (s: SecretsManagerStore) => s.get(SECRET),
      needs: `secretsmanager:GetSecretValue on ${SECRET}`,
    },
    {
      operation: 'put',
      refuse: () => sm.on(PutSecretValueCommand).rejects(denied('AccessDeniedException')),
      act: (s: SecretsManagerStore) => s.put(SECRET, { refreshToken: 'secret-value' }),
      needs: `secretsmanager:PutSecretValue on ${SECRET}`,
    },
  ])('names the permission SecretsManagerStore $operation needs', async ({ refuse, act, needs }) => {
    // Prepare
    refuse();
    const secrets = new SecretsManagerStore({ client: new SecretsManagerClient({ region: 'eu-west-2' }) });

    // Act
    const error: unknown = await act(secrets).then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toMatchObject({ code: SECRET_STORE_ERROR_CODES.failed });
    expect((error as Error).message).toContain(`(AccessDeniedException); needs ${needs}`);
    expect((error as Error).message).not.toContain('secret-value');
  });

  it.each([
    {
      name: 'a throttle',
      error: Object.assign(new Error('slow down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
    },
    {
      name: 'a missing key',
      error: Object.assign(new Error('missing'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } }),
    },
  ])('adds nothing to the message when the failure is $name', ({ error }) => {
    // Act
    const hint = accessDeniedHint(error, [{ action: 's3:GetObject', resource: 'arn:aws:s3:::b/k' }]);

    // Assess
    expect(isAccessDenied(error)).toBe(false);
    expect(hint).toBe('');
  });
});
