import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../stores/s3-store';
import type { ResolvedConfig } from './config';

export type S3ClientFactory = () => S3Client;

/**
 * The S3 client of `--out s3://...` and S3 leases: the AWS SDK's defaults (region and
 * credentials from the environment), or an S3-compatible endpoint (`--s3-endpoint`,
 * REPORT_EXPORT_S3_ENDPOINT) with path-style addressing, which local S3s need. One client
 * per process.
 */
export function s3ClientFactory(config: ResolvedConfig): S3ClientFactory {
  let client: S3Client | undefined;
  const endpoint = config.s3Endpoint?.value;
  return () => {
    client ??= createS3Client(
      endpoint === undefined
        ? {}
        : { endpoint, forcePathStyle: true, region: process.env.AWS_REGION ?? 'us-east-1' },
    );
    return client;
  };
}
