import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveStackConfig } from '../../lib/infra/stack-config';
import {
  BASE_CONFIG,
  functionConstructId,
  MULTI_TENANT_CONFIG,
  synthStack,
  WORKFLOW_FUNCTION_IDS,
} from './stack-synth';

let template: Template;

beforeAll(() => {
  template = synthStack({ alarmEmail: 'ops@example.com' });
}, 60_000);

type Resource = { Properties: Record<string, unknown> };
const resources = (t: Template, type: string) => Object.values(t.findResources(type)) as Resource[];

/** The bucket whose lifecycle has the export's staging rule. */
function dataLakeBucket(t: Template): Resource {
  const bucket = resources(t, 'AWS::S3::Bucket').find((b) =>
    JSON.stringify(b.Properties.LifecycleConfiguration ?? {}).includes('lake/_staging/'),
  );
  if (bucket === undefined) throw new Error('no data lake bucket in the template');
  return bucket;
}

describe('ReportExportStack resources', () => {
  it.each([
    ['AWS::S3::Bucket', 3],
    ['AWS::SecretsManager::Secret', 1],
    ['AWS::SNS::Topic', 1],
    ['AWS::SNS::Subscription', 1],
    ['AWS::KMS::Key', 1],
    ['AWS::SQS::Queue', 1],
    // The nightly run's and the night digest's.
    ['AWS::Scheduler::Schedule', 2],
    ['AWS::StepFunctions::StateMachine', 1],
    ['AWS::Glue::Database', 1],
    // The run records table; calls, summaries, contacts and contact_phones are created once,
    // not kept by CloudFormation.
    ['AWS::Glue::Table', 1],
    ['Custom::CreateOnlyIcebergTable', 4],
    // Compaction, snapshot retention and orphan-file deletion on each of the four.
    ['AWS::Glue::TableOptimizer', 12],
    ['AWS::Athena::WorkGroup', 1],
    // The saved query that creates the calls_with_contacts view.
    ['AWS::Athena::NamedQuery', 1],
    // Four alarms to the topic, and the two silent inputs of the freshness composite.
    ['AWS::CloudWatch::Alarm', 8],
    ['AWS::CloudWatch::CompositeAlarm', 1],
  ])('has %s x%i', (type, count) => {
    template.resourceCountIs(type, count);
  });

  it('encrypts, blocks public access and owns objects in every bucket', () => {
    for (const b of resources(template, 'AWS::S3::Bucket')) {
      expect(b.Properties).toMatchObject({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      expect(b.Properties).not.toHaveProperty('AccessControl');
    }
  });

  it('denies non-TLS requests in every bucket policy', () => {
    const policies = resources(template, 'AWS::S3::BucketPolicy');
    expect(policies).toHaveLength(3);
    for (const p of policies) {
      expect(JSON.stringify(p.Properties)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it.each([
    ['staging', 'lake/_staging/', { ExpirationInDays: 2 }],
    ['leases', '_leases/', { ExpirationInDays: 2 }],
    ['multipart', undefined, { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
  ])('expires %s in the data lake bucket', (id, prefix, rule) => {
    const rules = (dataLakeBucket(template).Properties.LifecycleConfiguration as { Rules: unknown[] }).Rules;
    expect(rules).toContainEqual({
      Id: id,
      Status: 'Enabled',
      ...(prefix ? { Prefix: prefix } : {}),
      ...rule,
    });
  });

  it('logs the data lake and the query results to the access logs bucket', () => {
    const logged = resources(template, 'AWS::S3::Bucket').filter((b) => b.Properties.LoggingConfiguration);
    expect(
      logged
        .map((b) => (b.Properties.LoggingConfiguration as { LogFilePrefix: string }).LogFilePrefix)
        .sort(),
    ).toEqual(['data-lake/', 'query-results/']);
  });

  it('creates the secret without a value', () => {
    const [secret] = resources(template, 'AWS::SecretsManager::Secret');
    expect(secret?.Properties).not.toHaveProperty('SecretString');
  });

  it('schedules the nightly run in the configured zone with the scheduled time, retries and a DLQ', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 4 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/London',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { Ref: Match.stringLikeRegexp('StateMachine') },
        Input: '{"scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 21_600 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'Arn'] } },
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    expect(JSON.stringify(resources(template, 'AWS::SQS::QueuePolicy'))).toContain(
      '"aws:SecureTransport":"false"',
    );
  });

  it('adds the intraday refreshes as a second schedule, and tells Plan their interval, when configured', () => {
    // Act
    const t = synthStack({ intraday: { everyMinutes: 15, fromHour: 8, toHour: 20 } });

    // Assess: every 15 minutes from 08:00 up to 20:00 in the zone, the refresh's input, no
    // retry of a start older than its interval; the nightly schedule as before.
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0/15 8-19 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/London',
      State: 'ENABLED',
      Target: {
        Arn: { Ref: Match.stringLikeRegexp('StateMachine') },
        Input: '{"intraday":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 900 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'Arn'] } },
      },
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(0 4 * * ? *)' });
    const plans = resources(t, 'AWS::Lambda::Function').filter(
      (f) =>
        (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables
          ?.INTRADAY_EVERY_MINUTES !== undefined,
    );
    expect(plans.length).toBeGreaterThan(0);
    for (const f of plans)
      expect(
        (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.INTRADAY_EVERY_MINUTES,
      ).toBe('15');
    // Without it: no refresh schedule, no interval.
    expect(JSON.stringify(resources(template, 'AWS::Scheduler::Schedule'))).not.toContain('intraday');
    expect(JSON.stringify(resources(template, 'AWS::Lambda::Function'))).not.toContain(
      'INTRADAY_EVERY_MINUTES',
    );
  });

  it('refuses intraday refreshes in cdk.json of a multi-tenant stack, and an interval that does not divide a day', () => {
    expect(() => resolveStackConfig({ ...MULTI_TENANT_CONFIG, intraday: { everyMinutes: 15 } })).toThrow(
      /intraday.*is set per tenant in a multi-tenant deployment/,
    );
    expect(() => resolveStackConfig({ ...BASE_CONFIG, intraday: { everyMinutes: 25 } })).toThrow(
      /intraday.everyMinutes.*must be one of 15, 20, 30/,
    );
  });

  it('enforces the Athena result location, SSE and the scan limit', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        ResultConfiguration: {
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
          OutputLocation: {
            'Fn::Join': ['', ['s3://', { Ref: Match.stringLikeRegexp('QueryResults') }, '/athena/']],
          },
        },
      },
    });
  });

  it('encrypts the alarm topic with a rotated key CloudWatch may use, and subscribes the e-mail', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  const ALARMS: [string, Record<string, unknown>][] = [
    ['ExecutionsFailed', { Namespace: 'AWS/States', Threshold: 1, TreatMissingData: 'notBreaching' }],
    ['ExecutionsTimedOut', { Namespace: 'AWS/States', Threshold: 1, TreatMissingData: 'notBreaching' }],
    ['ExecutionThrottled', { Namespace: 'AWS/States', Threshold: 1, TreatMissingData: 'notBreaching' }],
    ['PartitionsHeld', { Namespace: 'ReportExport', Threshold: 1, TreatMissingData: 'notBreaching' }],
    ['SummaryMismatches', { Namespace: 'ReportExport', Threshold: 1, TreatMissingData: 'notBreaching' }],
    [
      'ApproximateNumberOfMessagesVisible',
      { Namespace: 'AWS/SQS', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' },
    ],
  ];
  it.each(ALARMS)('alarms on %s to the topic', (metricName, props) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: metricName,
      AlarmActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
      ...props,
    });
  });
});

describe('ReportExportStack configuration', () => {
  it.each([
    [{ versioning: true }, 'VersioningConfiguration', { Status: 'Enabled' }],
    [{ schedule: { enabled: false, hour: 2, minute: 30 } }, 'State', 'DISABLED'],
  ])(
    'applies %j',
    (config, property, value) => {
      const t = synthStack(config);
      if (property === 'State') {
        t.hasResourceProperties('AWS::Scheduler::Schedule', {
          State: value,
          ScheduleExpression: 'cron(30 2 * * ? *)',
        });
      } else {
        expect(dataLakeBucket(t).Properties[property]).toEqual(value);
        const rules = (dataLakeBucket(t).Properties.LifecycleConfiguration as { Rules: unknown[] }).Rules;
        expect(rules).toContainEqual(
          expect.objectContaining({ Id: 'noncurrent', NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
        );
      }
    },
    60_000,
  );

  it('has no logs bucket and no logging when access logs are off', () => {
    const t = synthStack({ accessLogs: false });
    t.resourceCountIs('AWS::S3::Bucket', 2);
    for (const b of resources(t, 'AWS::S3::Bucket'))
      expect(b.Properties).not.toHaveProperty('LoggingConfiguration');
  }, 60_000);

  it('sets the freshness window, the scan limit and no subscription when configured so', () => {
    const t = synthStack({ freshnessHours: 30, athenaBytesScannedCutoff: 50_000_000 });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'NewestDayAge',
      Period: 30 * 3600,
      Threshold: 30 * 3600,
    });
    t.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({ BytesScannedCutoffPerQuery: 50_000_000 }),
    });
    t.resourceCountIs('AWS::SNS::Subscription', 0);
  }, 60_000);

  it('passes every setting to every function under the names the handlers read', () => {
    const t = synthStack({
      lookBackDays: 3,
      maxWindowDays: 5,
      minSplitMinutes: 30,
      poll: { initialSeconds: 10, maxSeconds: 120, maxPollsPerJob: 50 },
      maxRequestsPerJob: 8,
      csvGzip: true,
      parquetCodec: 'ZSTD',
      prefix: 'data/lake',
    });
    // The workflow's functions (the table creator has no environment), SyncDirectories too, and
    // the night's digest (it reads the lake and the single tenant's settings as they do).
    const functions = Object.entries(t.findResources('AWS::Lambda::Function'))
      .filter(([, f]) => (f as Resource).Properties.Environment)
      .map(([id, f]) => [functionConstructId(id), f as Resource] as const);
    expect(functions.map(([id]) => id).sort()).toEqual([...WORKFLOW_FUNCTION_IDS, 'NightDigest'].sort());
    for (const [, f] of functions) {
      const env = (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env).toMatchObject({
        TIME_ZONE: 'Europe/London',
        WORKSPACE_ID: 'ws',
        REPORTS: JSON.stringify(BASE_CONFIG.reports),
        LOOKBACK_DAYS: '3',
        MAX_WINDOW_DAYS: '5',
        MIN_SPLIT_MINUTES: '30',
        POLL_INITIAL_SECONDS: '10',
        POLL_MAX_SECONDS: '120',
        MAX_POLLS_PER_JOB: '50',
        MAX_REQUESTS_PER_JOB: '8',
        CSV_GZIP: 'true',
        PARQUET_CODEC: 'ZSTD',
        OBJECT_STORE_URI: {
          'Fn::Join': ['', ['s3://', { Ref: expect.stringMatching(/^DataLakeBucket/) }, '/data/lake']],
        },
        LEASE_STORE_URI: {
          'Fn::Join': ['', ['s3://', { Ref: expect.stringMatching(/^DataLakeBucket/) }, '/_leases']],
        },
        SECRET_URI: { Ref: expect.stringMatching(/^ServiceCredentialsSecret/) },
      });
    }
  }, 60_000);
});
