import { Duration, RemovalPolicy, TimeZone, Validations } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

interface ExportScheduleProps {
  readonly stateMachine: sfn.IStateMachine;
  /** IANA zone the cron runs in (DST handled by EventBridge Scheduler). */
  readonly timeZone: string;
  /**
   * Local hour of the nightly run.
   * @default 4
   */
  readonly hour?: number;
  /**
   * Local minute of the nightly run.
   * @default 0
   */
  readonly minute?: number;
  /**
   * Create the schedule enabled.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * Attempts to start the execution after the first fails (throttling, a deleted target).
   * @default 5
   */
  readonly retryAttempts?: number;
  /**
   * How long Scheduler keeps retrying a start before it dead-letters it.
   * @default Duration.hours(6)
   */
  readonly maxEventAge?: Duration;
}

/**
 * The encrypted dead-letter queue of the starts Scheduler gave up on (the nightly schedule's,
 * or every tenant's schedules').
 */
export function scheduleDeadLetterQueue(scope: Construct, id: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      "This queue is the schedule's dead-letter queue; its messages are read by a person after the alarm.",
  });
  return queue;
}

/**
 * The nightly run: an EventBridge Scheduler cron in the deployment's zone that starts the
 * state machine with `{"scheduledTime":"<aws.scheduler.scheduled-time>"}` (Plan exports
 * the local day before that instant, never `now()`), with a retry policy and an encrypted
 * dead-letter queue for starts that never succeeded.
 */
export class ExportSchedule extends Construct {
  readonly schedule: scheduler.Schedule;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ExportScheduleProps) {
    super(scope, id);
    this.deadLetterQueue = scheduleDeadLetterQueue(this, 'DeadLetters');
    this.schedule = new scheduler.Schedule(this, 'Nightly', {
      description: 'report-export: nightly export of the previous local day',
      schedule: scheduler.ScheduleExpression.cron({
        minute: String(props.minute ?? 0),
        hour: String(props.hour ?? 4),
        timeZone: TimeZone.of(props.timeZone),
      }),
      enabled: props.enabled ?? true,
      target: new targets.StepFunctionsStartExecution(props.stateMachine, {
        input: scheduler.ScheduleTargetInput.fromObject({
          scheduledTime: scheduler.ContextAttribute.scheduledTime,
        }),
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: props.retryAttempts ?? 5,
        maxEventAge: props.maxEventAge ?? Duration.hours(6),
      }),
    });
  }
}
