import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { ConfiguredReport } from '../workflow/settings';
import { ExportWorkflow } from './export-workflow';
import { WorkflowFunction } from './workflow-function';

/** What a deployment exports; validated before synthesis (see stack-config.ts). */
export interface ReportExportConfig {
  /** The tenant's workspace id. */
  readonly workspaceId: string;
  /** Reports exported by default. */
  readonly reports: readonly ConfiguredReport[];
  /** IANA zone of the reports: days and `dt` are local to it. */
  readonly timeZone: string;
  /**
   * Earlier days every nightly run re-exports.
   * @default 2
   */
  readonly lookBackDays?: number;
  /**
   * Longest window of one job, in local days.
   * @default 7
   */
  readonly maxWindowDays?: number;
  /**
   * Jobs exported at once.
   * @default 4
   */
  readonly mapConcurrency?: number;
  /**
   * Key prefix of the data lake in the bucket.
   * @default 'lake'
   */
  readonly prefix?: string;
}

export interface ReportExportStackProps extends StackProps {
  readonly config: ReportExportConfig;
}

/** The deployable export: bucket, secret, alarm topic, the workflow's functions and state machine. */
export class ReportExportStack extends Stack {
  readonly bucket: s3.Bucket;
  readonly secret: secretsmanager.Secret;
  readonly workflow: ExportWorkflow;

  constructor(scope: Construct, id: string, props: ReportExportStackProps) {
    super(scope, id, props);
    const c = props.config;
    const prefix = c.prefix ?? 'lake';

    this.bucket = new s3.Bucket(this, 'DataLake', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: 'staging', prefix: `${prefix}/_staging/`, expiration: Duration.days(2) },
        { id: 'leases', prefix: '_leases/', expiration: Duration.days(2) },
        { id: 'multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.secret = new secretsmanager.Secret(this, 'ServiceSecret', {
      description:
        'report-export: client credentials, service URLs, refresh and cached access token (filled by report-export login)',
    });
    const topicKey = new kms.Key(this, 'AlarmTopicKey', { enableKeyRotation: true });
    const alarmTopic = new sns.Topic(this, 'AlarmTopic', { masterKey: topicKey, enforceSSL: true });

    const environment = {
      TIME_ZONE: c.timeZone,
      WORKSPACE_ID: c.workspaceId,
      REPORTS: JSON.stringify(c.reports),
      LOOKBACK_DAYS: String(c.lookBackDays ?? 2),
      MAX_WINDOW_DAYS: String(c.maxWindowDays ?? 7),
      OBJECT_STORE_URI: `s3://${this.bucket.bucketName}/${prefix}`,
      LEASE_STORE_URI: `s3://${this.bucket.bucketName}/_leases`,
      SECRET_URI: this.secret.secretArn,
    };
    const fn = (
      id: string,
      handlerModule: string,
      extra: Partial<{ memorySize: number; timeout: Duration }> = {},
    ) => new WorkflowFunction(this, id, { handlerModule, environment, ...extra }).function;
    const functions = {
      plan: fn('Plan', 'plan'),
      requestReport: fn('RequestReport', 'request-report'),
      checkStatus: fn('CheckStatus', 'check-status'),
      // Sized from the bench: ~145 MB peak at 1,000,000 rows; two cores need >= 1,769 MB.
      exportResults: new WorkflowFunction(this, 'ExportResults', {
        handlerModule: 'export-results',
        environment,
        memorySize: 1769,
        timeout: Duration.minutes(15),
        withEncodeWorker: true,
      }).function,
      finalize: fn('Finalize', 'finalize'),
    };
    for (const f of [functions.requestReport, functions.checkStatus, functions.exportResults]) {
      this.secret.grantRead(f);
      this.secret.grantWrite(f);
      this.bucket.grantReadWrite(f, '_leases/*');
    }
    this.bucket.grantReadWrite(functions.exportResults, `${prefix}/*`);
    this.bucket.grantPut(functions.finalize, `${prefix}/runs/*`);
    this.secret.grantRead(functions.plan);

    this.workflow = new ExportWorkflow(this, 'Workflow', {
      functions,
      alarmTopic,
      mapConcurrency: c.mapConcurrency ?? 4,
      logGroup: new logs.LogGroup(this, 'WorkflowLogs', { retention: logs.RetentionDays.THREE_MONTHS }),
    });
  }
}
