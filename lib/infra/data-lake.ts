import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY as S3_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';

interface DataLakeProps {
  /** Key prefix of the export (parts, manifests, staging, run records). */
  readonly prefix: string;
  /**
   * Keep earlier versions of replaced objects; they expire after `noncurrentVersionDays`.
   * @default false
   */
  readonly versioning?: boolean;
  /**
   * Days a replaced (noncurrent) version is kept when versioning is on.
   * @default 30
   */
  readonly noncurrentVersionDays?: number;
  /**
   * S3 server access logs of both buckets, into a logs bucket of this construct.
   * @default true
   */
  readonly accessLogs?: boolean;
  /**
   * Days Athena query results are kept.
   * @default 30
   */
  readonly queryResultDays?: number;
}

/** Lease keys live at the bucket root, outside the export's prefix (LEASE_STORE_URI). */
export const LEASE_PREFIX = '_leases';

/** A bucket with the project's defaults: SSE-S3, no public access, TLS only, retained. */
function privateBucket(scope: Construct, id: string, props: s3.BucketProps): s3.Bucket {
  return new s3.Bucket(scope, id, {
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    removalPolicy: RemovalPolicy.RETAIN,
    ...props,
  });
}

/**
 * The data lake's storage: the export bucket, a separate bucket for Athena results (query
 * output is not data and must never land under a table's location), and optionally a
 * server access logs bucket for both.
 */
export class DataLake extends Construct {
  readonly bucket: s3.Bucket;
  readonly queryResults: s3.Bucket;
  readonly accessLogs: s3.Bucket | undefined;

  constructor(scope: Construct, id: string, props: DataLakeProps) {
    super(scope, id);
    // Grant log delivery by bucket policy rather than the legacy LogDeliveryWrite ACL, so
    // every bucket keeps ACLs disabled (the flag is read from the nearest context up the tree).
    this.node.setContext(S3_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const versioned = props.versioning ?? false;
    if (props.accessLogs ?? true) {
      // SSE-S3: the log delivery service cannot write to a KMS-encrypted target bucket.
      this.accessLogs = privateBucket(this, 'AccessLogs', {
        lifecycleRules: [{ id: 'expire-logs', expiration: Duration.days(365) }],
      });
      Validations.of(this.accessLogs).acknowledge({
        id: 'AwsSolutions-S1',
        reason: 'This is the server access logs bucket; logging it into itself would loop.',
      });
    }
    const logsTo = (logPrefix: string) =>
      this.accessLogs === undefined
        ? {}
        : {
            // Bucket is an IBucket; the cast only bridges CDK's types under exactOptionalPropertyTypes.
            serverAccessLogsBucket: this.accessLogs as s3.IBucket,
            serverAccessLogsPrefix: `${logPrefix}/`,
          };

    this.bucket = privateBucket(this, 'Bucket', {
      versioned,
      lifecycleRules: [
        // A run's staging area is removed on publish; leftovers of a killed run expire.
        { id: 'staging', prefix: `${props.prefix}/_staging/`, expiration: Duration.days(2) },
        { id: 'leases', prefix: `${LEASE_PREFIX}/`, expiration: Duration.days(2) },
        { id: 'multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        ...(versioned
          ? [
              {
                id: 'noncurrent',
                noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays ?? 30),
                expiredObjectDeleteMarker: true,
              },
            ]
          : []),
      ],
      ...logsTo('data-lake'),
    });
    this.queryResults = privateBucket(this, 'QueryResults', {
      lifecycleRules: [
        { id: 'expire-results', expiration: Duration.days(props.queryResultDays ?? 30) },
        { id: 'multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      ...logsTo('query-results'),
    });
    if (this.accessLogs === undefined) {
      for (const b of [this.bucket, this.queryResults]) {
        Validations.of(b).acknowledge({
          id: 'AwsSolutions-S1',
          reason: 'Server access logs are switched off by the deployment (reportExport.accessLogs: false).',
        });
      }
    }
  }

  /** `s3://<bucket>/<key>` of the data lake. */
  s3Uri(key: string): string {
    return `s3://${this.bucket.bucketName}/${key}`;
  }
}
