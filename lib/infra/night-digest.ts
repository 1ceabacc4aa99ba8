import { Duration, TimeZone } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge, arnOf } from './nag-acknowledgements';
import { WorkflowFunction } from './workflow-function';

/** The Digest function's memory: the records of a night of 1,000 tenants are a few tens of MB. */
export const DIGEST_MEMORY_MB = 512;
/**
 * The Digest function's timeout. 1,000 nightly tenants: ~4 LISTs and ~5 GETs each, 16 tenants
 * at once, well under a minute; a tenant failing for weeks reads up to 30 nights more.
 */
export const DIGEST_TIMEOUT_SECONDS = 300;

interface NightDigestProps {
  /** The workflow's environment (its stores); the digest adds its own settings. */
  readonly environment: Record<string, string>;
  readonly bucket: s3.IBucket;
  /** The lake's prefix: the run records are under `<prefix>/runs/`. */
  readonly prefix: string;
  /** The tenant registry's prefix in the bucket (multi-tenant); undefined: single-tenant. */
  readonly registryPrefix: string | undefined;
  /** A single-tenant deployment's nightly hour (its freshness goals); undefined: multi-tenant. */
  readonly nightlyHour: number | undefined;
  readonly topic: sns.ITopic;
  /** The deployment's name, in the notice's subject. */
  readonly deploymentName: string;
  /** UTC hour of the digest. */
  readonly hourUtc: number;
  readonly enabled: boolean;
  /** Where Scheduler puts an invocation it gave up on (the stack's schedules' queue, alarmed). */
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * The night's digest (lib/workflow/digest.ts): the Digest function, which reads every
 * tenant's run records (read only: it writes nothing in the lake) and the registry, and
 * publishes one notice to the alarm topic; and its EventBridge Scheduler schedule, once a
 * day at `hourUtc`, invoking it with `{"scheduledTime": ...}` (the night ends there).
 */
export class NightDigest extends Construct {
  readonly function: lambda.IFunction;
  readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: NightDigestProps) {
    super(scope, id);
    this.function = new WorkflowFunction(this, 'Function', {
      handlerModule: 'digest',
      environment: {
        ...props.environment,
        NOTICE_TOPIC_URI: props.topic.topicArn,
        DEPLOYMENT_NAME: props.deploymentName,
        ...(props.nightlyHour === undefined ? {} : { NIGHTLY_HOUR: String(props.nightlyHour) }),
      },
      memorySize: DIGEST_MEMORY_MB,
      timeout: Duration.seconds(DIGEST_TIMEOUT_SECONDS),
    }).function;
    const records = `${props.prefix}/runs/*`;
    props.bucket.grantRead(this.function, records);
    const wildcards = [`Resource::${arnOf(props.bucket)}/${records}`];
    if (props.registryPrefix !== undefined) {
      props.bucket.grantRead(this.function, `${props.registryPrefix}/*`);
      wildcards.push(`Resource::${arnOf(props.bucket)}/${props.registryPrefix}/*`);
    }
    acknowledge(
      this.function,
      'AwsSolutions-IAM5',
      [...wildcards, 'Action::s3:GetObject*', 'Action::s3:GetBucket*', 'Action::s3:List*'],
      "Bucket.grantRead's action set, read only, on the run records (every tenant's, named by date and run id at run time) and the registry's entries; the digest writes nothing.",
    );
    // sns:Publish on the KMS-encrypted topic: grantPublish adds kms:GenerateDataKey* and kms:Decrypt.
    props.topic.grantPublish(this.function);
    acknowledge(
      this.function,
      'AwsSolutions-IAM5',
      ['Action::kms:GenerateDataKey*'],
      "Topic.grantPublish's KMS actions: SNS generates a data key for each encrypted publish; on the alarm topic's key only.",
    );
    // Its own role (not the stack's shared one for Lambda targets): it may invoke this function only.
    const role = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: "report-export: invokes the night's digest",
    });
    acknowledge(
      role,
      'AwsSolutions-IAM5',
      [`Resource::${arnOf(this.function)}:*`],
      "LambdaInvoke grants the function and its versions/aliases (<arn>:*); the schedule invokes only the digest's function.",
    );
    this.schedule = new scheduler.Schedule(this, 'Nightly', {
      description: "report-export: the night's digest of failed, held, stale and recovered tenants",
      schedule: scheduler.ScheduleExpression.cron({
        minute: '0',
        hour: String(props.hourUtc),
        timeZone: TimeZone.ETC_UTC,
      }),
      enabled: props.enabled,
      target: new targets.LambdaInvoke(this.function, {
        role,
        input: scheduler.ScheduleTargetInput.fromObject({
          scheduledTime: scheduler.ContextAttribute.scheduledTime,
        }),
        deadLetterQueue: props.deadLetterQueue,
        retryAttempts: 3,
        // A digest later than this is not the morning's: the next one names the same tenants.
        maxEventAge: Duration.hours(2),
      }),
    });
  }
}
