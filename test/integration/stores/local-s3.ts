import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { buildApp } from 'fauxqs';
import { createS3Client, S3Store, type S3StoreOptions } from '../../../lib/stores/aws';

/** fauxqs bound to 127.0.0.1 only (its startFauxqs binds every interface), with one bucket. */
export async function startLocalS3(bucket = 'test-bucket'): Promise<{
  endpoint: string;
  store: (options?: Partial<S3StoreOptions>) => S3Store;
  client: ReturnType<typeof createS3Client>;
  close: () => Promise<void>;
}> {
  const app = buildApp({ logger: false });
  const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = createS3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 2,
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    client,
    store: (options = {}) => new S3Store({ client, bucket, ...options }),
    close: async () => {
      client.destroy();
      await app.close();
    },
  };
}
