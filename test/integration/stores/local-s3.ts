import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
  // fauxqs 1.9.2 ignores If-None-Match on PutObject, which S3 honours (a conditional write:
  // 412 when the key exists). The file catalog's commit is such a write, so concurrent commits
  // would silently overwrite each other here and not in S3: the check is added, in the same
  // tick as the write (fastify calls the route after a synchronous preHandler), so it is
  // exclusive as S3's is.
  const s3Store = await fauxqsS3Store();
  // fauxqs's own store class (typed by its package as the app's), reached by file URL.
  const app = buildApp({ logger: false, stores: { s3Store } as never });
  app.addHook('preHandler', (request: PutRequest, reply: PreconditionReply, done: () => void) => {
    const params = request.params as { bucket?: string; '*'?: string } | undefined;
    const key = params?.['*'];
    // A PutObject, or a CompleteMultipartUpload (POST ?uploadId=): S3 honours If-None-Match on both.
    const completes =
      request.method === 'POST' &&
      (request.query as { uploadId?: string } | undefined)?.uploadId !== undefined;
    if (
      (request.method === 'PUT' || completes) &&
      request.headers['if-none-match'] === '*' &&
      request.headers['x-amz-copy-source'] === undefined &&
      params?.bucket !== undefined &&
      key !== undefined &&
      key !== '' &&
      exists(s3Store, params.bucket, key)
    ) {
      reply
        .status(412)
        .header('content-type', 'application/xml')
        .send(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>',
        );
      return;
    }
    done();
  });
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

/** fauxqs's own S3 object store (its package exports only the app), so the check can read it. */
async function fauxqsS3Store(): Promise<FauxqsS3Store> {
  const main = fileURLToPath(import.meta.resolve('fauxqs'));
  const url = pathToFileURL(path.join(path.dirname(main), 's3', 's3Store.js')).href;
  const { S3Store: Store } = (await import(url)) as { S3Store: new () => FauxqsS3Store };
  return new Store();
}

interface FauxqsS3Store {
  getObject(bucket: string, key: string): unknown;
}

function exists(store: FauxqsS3Store, bucket: string, key: string): boolean {
  try {
    store.getObject(bucket, decodeURIComponent(key));
    return true;
  } catch {
    return false;
  }
}

/** The members of fastify's request and reply the precondition check uses. */
interface PutRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  params: unknown;
  query?: unknown;
}
interface PreconditionReply {
  status(code: number): PreconditionReply;
  header(name: string, value: string): PreconditionReply;
  send(body: string): unknown;
}
