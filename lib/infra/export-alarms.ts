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
const FRESHNESS_METRIC = {
  namespace: 'ReportExport',
  metricName: 'NewestDayAge',
  // Powertools Metrics adds the service as its default dimension (POWERTOOLS_SERVICE_NAME).
  dimensionsMap: { service: 'report-export' },
} as const;

/** A count Finalize publishes per run (same namespace and dimension as the freshness metric). */
function runMetric(metricName: 'PartitionsHeld' | 'SummaryMismatches'): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: FRESHNESS_METRIC.namespace,
    metricName,
    dimensionsMap: FRESHNESS_METRIC.dimensionsMap,
    period: Duration.hours(1),
    statistic: cloudwatch.Stats.SUM,
  });
}

interface AlarmTopicProps {
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

interface ExportAlarmsProps {
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
 * were dead-lettered; and freshness: once an export has published, no run in the last
 * `freshnessHours` exported a day younger than that (no run at all counts). Before the
 * first export there is nothing to be stale: deploy day raises no freshness alarm.
 */
export class ExportAlarms extends Construct {
  /** The alarms that notify the topic (not the silent inputs of the composite). */
  readonly alarms: cloudwatch.AlarmBase[] = [];
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
    // Data the run kept back or published with a doubt: nothing failed, but someone must look.
    any(
      'PartitionsHeld',
      runMetric('PartitionsHeld'),
      'The shrink guard kept published days a run would have replaced with far fewer rows (a call list) or calls (a summary); the run record names each day and both counts (re-run with forceReplace to replace them).',
    );
    any(
      'SummaryMismatches',
      runMetric('SummaryMismatches'),
      "A published result's summary (the service's totals) disagreed with its rows; the run record has both.",
    );
    this.#freshness(props.freshnessHours ?? 26);
  }

  /**
   * Freshness, as a composite of two silent alarms on `NewestDayAge`, because one metric
   * alarm cannot tell "no run yet" from "runs stopped": both are missing data.
   * - `FreshnessWindow`: the minimum over the last `hours` is older than `hours`, missing
   *   data breaching: after a first export, a window without one means no run published.
   * - `FreshnessArmed`: INSUFFICIENT_DATA until the first export publishes, then OK for
   *   good (a count is never below 1 and missing data keeps the state: a latch).
   * `FreshnessStale` = ALARM(FreshnessWindow) AND OK(FreshnessArmed) notifies: not on
   * deploy day, and for as long as exports stay stale once one has published.
   */
  #freshness(hours: number): void {
    const metric = (statistic: string, period: Duration) =>
      new cloudwatch.Metric({ ...FRESHNESS_METRIC, statistic, period });
    const window = new cloudwatch.Alarm(this, 'FreshnessWindow', {
      // Minimum: the freshest run in the window counts; a backfill of old days (a large
      // age) in the same window must not raise the alarm.
      metric: metric(cloudwatch.Stats.MINIMUM, Duration.hours(hours)),
      threshold: hours * 3600,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `Input of FreshnessStale (notifies nothing itself): no export in the last ${hours} h brought the newest exported day within ${hours} h of now, or none published. Also ALARM before the first export.`,
    });
    const armed = new cloudwatch.Alarm(this, 'FreshnessArmed', {
      metric: metric(cloudwatch.Stats.SAMPLE_COUNT, Duration.hours(1)),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.IGNORE,
      alarmDescription:
        'Input of FreshnessStale (notifies nothing itself): INSUFFICIENT_DATA until an export first publishes NewestDayAge, OK from then on (missing data keeps the state).',
    });
    const stale = new cloudwatch.CompositeAlarm(this, 'FreshnessStale', {
      alarmRule: cloudwatch.AlarmRule.allOf(
        cloudwatch.AlarmRule.fromAlarm(window, cloudwatch.AlarmState.ALARM),
        cloudwatch.AlarmRule.fromAlarm(armed, cloudwatch.AlarmState.OK),
      ),
      alarmDescription: `Exports are stale: since the first export, none in the last ${hours} h brought the newest exported day within ${hours} h of now (or no run published at all).`,
    });
    stale.addAlarmAction(new actions.SnsAction(this.#topic));
    this.alarms.push(stale);
  }

  #add(alarmId: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, alarmId, props);
    alarm.addAlarmAction(new actions.SnsAction(this.#topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
