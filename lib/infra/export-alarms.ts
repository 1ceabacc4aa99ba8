import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/** The metric Finalize publishes (lib/workflow/finalize.ts) through Powertools Metrics. */
export const FRESHNESS_METRIC = {
  namespace: 'ReportExport',
  metricName: 'NewestDayAge',
  // Powertools Metrics adds the service as its default dimension (POWERTOOLS_SERVICE_NAME).
  dimensionsMap: { service: 'report-export' },
} as const;

export interface AlarmTopicProps {
  /**
   * Address subscribed to the topic.
   * @default no subscription
   */
  readonly email?: string;
}

/** The encrypted SNS topic the workflow's failure notices and every alarm go to. */
export class AlarmTopic extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      enableKeyRotation: true,
      description: 'report-export: alarm topic encryption',
    });
    // CloudWatch publishes alarm actions as itself: without the key, encrypted publishes fail.
    this.key.grant(
      new iam.ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*',
    );
    this.topic = new sns.Topic(this, 'Topic', { masterKey: this.key, enforceSSL: true });
    if (props.email !== undefined)
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
  }
}

export interface ExportAlarmsProps {
  readonly topic: sns.ITopic;
  readonly stateMachine: sfn.StateMachine;
  /** The schedule's dead-letter queue, when there is a schedule. */
  readonly deadLetterQueue?: sqs.IQueue;
  /**
   * Hours after which the newest exported day counts as stale; also the window the
   * alarm looks back over, so one nightly run keeps it quiet until the next is due.
   * @default 26
   */
  readonly freshnessHours?: number;
}

/**
 * Alarms to the topic: executions failed, timed out or throttled; schedule starts that
 * were dead-lettered; and freshness: no run in the last `freshnessHours` exported a day
 * younger than that, with missing data (no run at all) counted as breaching.
 */
export class ExportAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly #topic: sns.ITopic;

  constructor(scope: Construct, id: string, props: ExportAlarmsProps) {
    super(scope, id);
    this.#topic = props.topic;
    const sm = props.stateMachine;
    const any = (alarmId: string, metric: cloudwatch.IMetric, description: string) =>
      this.#add(alarmId, {
        metric,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
    const fiveMinutes = { period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM };
    any(
      'ExecutionsFailed',
      sm.metricFailed(fiveMinutes),
      'An export execution failed (see the run record and the topic).',
    );
    any('ExecutionsTimedOut', sm.metricTimedOut(fiveMinutes), 'An export execution hit its 12 h timeout.');
    any('ExecutionsThrottled', sm.metricThrottled(fiveMinutes), 'Step Functions throttled the export.');
    if (props.deadLetterQueue !== undefined) {
      any(
        'ScheduleDeadLetters',
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        'The nightly schedule could not start the export; the start is in the dead-letter queue.',
      );
    }
    const hours = props.freshnessHours ?? 26;
    this.#add('Freshness', {
      // Minimum: the freshest run in the window counts; a backfill of old days (a large
      // age) in the same window must not raise the alarm.
      metric: new cloudwatch.Metric({
        ...FRESHNESS_METRIC,
        statistic: cloudwatch.Stats.MINIMUM,
        period: Duration.hours(hours),
      }),
      threshold: hours * 3600,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `No export in the last ${hours} h brought the newest exported day within ${hours} h of now (or no export ran).`,
    });
  }

  #add(alarmId: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, alarmId, props);
    alarm.addAlarmAction(new actions.SnsAction(this.#topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
