import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../stores/aws';
import type { ResolvedConfig } from '../shared/config';
import { type AwsTarget, quietAwsSdk } from './preflight';

export type S3ClientFactory = () => S3Client;

/**
 * The S3 client of `--out s3://...` and S3 leases: the AWS SDK's defaults (region and
 * credentials from the environment), or an S3-compatible endpoint (`--s3-endpoint`,
 * REPORT_EXPORT_S3_ENDPOINT) with path-style addressing, which local S3s need. One client
 * per process.
 */
export function s3ClientFactory(
  config: ResolvedConfig,
  env: Readonly<Record<string, string | undefined>>,
): S3ClientFactory {
  let client: S3Client | undefined;
  const endpoint = config.s3Endpoint?.value;
  return () => {
    quietAwsSdk();
    client ??= createS3Client(
      endpoint === undefined ? {} : { endpoint, forcePathStyle: true, region: env.AWS_REGION ?? 'us-east-1' },
    );
    return client;
  };
}

/**
 * The pre-flight targets of the s3:// locations among `uris` (others are skipped), one per
 * bucket and prefix: a one-key listing there shows credentials, region and bucket work.
 */
export function bucketTargets(
  uris: readonly { uri: string; where: string }[],
  s3: S3ClientFactory,
  options: { injected: boolean; endpoint?: string },
): AwsTarget[] {
  const targets: AwsTarget[] = [];
  const seen = new Set<string>();
  for (const { uri, where } of uris) {
    const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
    if (match === null) continue;
    const [, bucket = '', prefix = ''] = match;
    if (seen.has(`${bucket}/${prefix}`)) continue;
    seen.add(`${bucket}/${prefix}`);
    targets.push({
      kind: 'bucket',
      bucket,
      prefix,
      client: s3(),
      where,
      injected: options.injected,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    });
  }
  return targets;
}
