import { Duration, RemovalPolicy, TimeZone, Validations } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type IntradaySchedule, intradayCron } from '../workflow';

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
  /** Intraday refreshes of today so far: a second schedule. @default none */
  readonly intraday?: IntradaySchedule | undefined;
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
  /** The intraday refreshes' schedule, when the deployment has them. */
  readonly intraday: scheduler.Schedule | undefined;
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
    this.intraday =
      props.intraday === undefined
        ? undefined
        : this.#intraday(props.stateMachine, props.timeZone, props.intraday, props.enabled ?? true);
  }

  /**
   * The refreshes: `{"intraday": true, "scheduledTime"}` every interval in its hours (as a
   * multi-tenant stack's `<id>.intraday` schedules, lib/cli's tenants commands); a start older
   * than its interval is not retried (the next refresh replaces it).
   */
  #intraday(
    stateMachine: sfn.IStateMachine,
    timeZone: string,
    intraday: IntradaySchedule,
    enabled: boolean,
  ): scheduler.Schedule {
    const every = intraday.everyMinutes;
    return new scheduler.Schedule(this, 'Intraday', {
      description: `report-export: intraday refresh of today so far, every ${every} minutes`,
      schedule: scheduler.ScheduleExpression.expression(intradayCron(intraday), TimeZone.of(timeZone)),
      enabled,
      target: new targets.StepFunctionsStartExecution(stateMachine, {
        input: scheduler.ScheduleTargetInput.fromObject({
          intraday: true,
          scheduledTime: scheduler.ContextAttribute.scheduledTime,
        }),
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: 2,
        maxEventAge: Duration.seconds(Math.max(60, every * 60)),
      }),
    });
  }
}
