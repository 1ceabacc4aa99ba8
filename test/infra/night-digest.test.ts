import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { DIGEST_MEMORY_MB, DIGEST_TIMEOUT_SECONDS } from '../../lib/infra/night-digest';
import { resolveStackConfig } from '../../lib/infra/stack-config';
import { DIGEST_FUNCTION_ID } from '../../lib/infra/state-names';
import type { IamPermission } from '../../lib/stores/aws-calls';
import { parseS3Uri } from '../../lib/stores/from-uri';
import {
  type DeclaredCall,
  type DigestEnvironment,
  digestAwsCalls,
  lambdaRuntimeCalls,
  SAMPLE,
} from '../../lib/workflow/aws-calls';
import { digestSettingsFromEnvironment } from '../../lib/workflow/digest-task';
import { BASE_CONFIG, MULTI_TENANT_CONFIG, synthStack } from './stack-synth';
import { ACCOUNT, REGION, type RolePrincipal, TemplateIam } from './template-iam';

/**
 * The night's digest as deployed: its function (bundle, environment, memory, timeout) and
 * schedule from the synthesized template, and its IAM evaluated: every call
 * lib/workflow/aws-calls.ts declares for it allowed, and what it must never do refused.
 */

type Props = Record<string, unknown>;

/** The digest's function, role, environment and schedule in a synthesized stack. */
function readDigest(tenancy: 'single' | 'multi') {
  const template = (
    tenancy === 'multi' ? synthStack({}, MULTI_TENANT_CONFIG) : synthStack()
  ).toJSON() as ConstructorParameters<typeof TemplateIam>[0];
  const iam = new TemplateIam(template);
  const [[id, fn] = []] = iam
    .ofType('AWS::Lambda::Function')
    .filter(([logicalId]) => logicalId.startsWith(DIGEST_FUNCTION_ID));
  if (id === undefined || fn === undefined) throw new Error('no digest function in the template');
  const props = fn.Properties as Props;
  const env = iam.resolve(
    (props.Environment as { Variables: never }).Variables,
  ) as unknown as DigestEnvironment & Record<string, string>;
  const functionName = `${id}-name`;
  const role = iam.role(iam.resolve(props.Role as never) as string, functionName);
  const schedules = iam.ofType('AWS::Scheduler::Schedule').map(([, s]) => s.Properties as Props);
  const fnArn = iam.arnOf(id);
  const schedule = schedules.find((s) => iam.resolve((s.Target as { Arn: never }).Arn) === fnArn);
  const topic = iam.ofType('AWS::SNS::Topic')[0]?.[1];
  const key = String(iam.resolve(topic?.Properties?.KmsMasterKeyId as never));
  const keyArn = key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`;
  const logGroup = iam.resolve((props.LoggingConfig as { LogGroup?: never } | undefined)?.LogGroup as never);
  const logGroupArn = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${String(logGroup ?? `/aws/lambda/${functionName}`)}`;
  return { iam, props, env, role, schedule, fnArn, keyArn, logGroupArn, template };
}

const permissionsOf = (calls: readonly DeclaredCall[]) =>
  calls.flatMap((c) =>
    c.permissions.map((p): [string, IamPermission] => [`${p.action} on ${p.resource} (${c.why})`, p]),
  );

for (const tenancy of ['single', 'multi'] as const) {
  describe(`the night digest (tenancy ${tenancy})`, () => {
    // Prepare (at collection: the cases come from the template)
    const d = readDigest(tenancy);
    const lake = parseS3Uri('OBJECT_STORE_URI', d.env.OBJECT_STORE_URI);
    const object = (key: string) => `arn:aws:s3:::${lake.bucket}/${key}`;
    const declared = permissionsOf([
      ...digestAwsCalls(d.env, d.keyArn),
      ...lambdaRuntimeCalls(d.logGroupArn),
    ]);

    it('runs the digest handler with its memory, timeout and settings', () => {
      // Assess
      expect(d.props).toMatchObject({
        Handler: 'index.handler',
        Runtime: 'nodejs22.x',
        MemorySize: DIGEST_MEMORY_MB,
        Timeout: DIGEST_TIMEOUT_SECONDS,
      });
      expect(d.env.NOTICE_TOPIC_URI).toMatch(/^arn:aws:sns:/);
      const settings = digestSettingsFromEnvironment(d.env);
      expect(settings.deployment).toBe('ReportExport');
      expect(settings.nightlyHour).toBe(4);
      expect('TENANT_REGISTRY_URI' in d.env).toBe(tenancy === 'multi');
    });

    it('is scheduled once a day at 09:00 UTC with the scheduled time as its input', () => {
      // Assess
      expect(d.schedule).toMatchObject({
        ScheduleExpression: 'cron(0 9 * * ? *)',
        ScheduleExpressionTimezone: 'Etc/UTC',
        State: 'ENABLED',
      });
      const target = d.schedule?.Target as { Input: string; RetryPolicy: Props; DeadLetterConfig: Props };
      expect(JSON.parse(target.Input)).toEqual({ scheduledTime: '<aws.scheduler.scheduled-time>' });
      expect(target.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 7200 });
      expect(target.DeadLetterConfig).toBeDefined();
    });

    it('lets its schedule invoke the digest function and nothing else', async () => {
      // Prepare
      if (d.schedule === undefined) throw new Error('no digest schedule');
      const target = d.schedule.Target as { RoleArn: never };
      const role = d.iam.role(d.iam.resolve(target.RoleArn) as string, 'scheduler');

      // Act
      const own = await d.iam.evaluate(role, { action: 'lambda:InvokeFunction', resource: d.fnArn });
      const other = await d.iam.evaluate(role, {
        action: 'lambda:InvokeFunction',
        resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:another`,
      });

      // Assess
      expect(own).toBe('Allowed');
      expect(other).toBe('ImplicitlyDenied');
    });

    it.each(declared)('allows %s', async (_, permission) => {
      // Act
      const result = await d.iam.evaluate(d.role, permission);

      // Assess
      expect(result).toBe('Allowed');
    });

    const record = object(`${lake.prefix}/runs/tenant=acme/dt=${SAMPLE.dt}/${SAMPLE.runId}.json`);
    const denied: [string, IamPermission, EvaluationResult][] = [
      ['writing a run record', { action: 's3:PutObject', resource: record }, 'ImplicitlyDenied'],
      ['deleting a run record', { action: 's3:DeleteObject', resource: record }, 'ImplicitlyDenied'],
      [
        'reading a data file',
        { action: 's3:GetObject', resource: object(`${lake.prefix}/tables/calls/data/x.parquet`) },
        'ImplicitlyDenied',
      ],
      [
        'reading a CSV part',
        { action: 's3:GetObject', resource: object(`${lake.prefix}/calls/format=csv/x/part-00000.csv`) },
        'ImplicitlyDenied',
      ],
      [
        'writing a registry entry',
        { action: 's3:PutObject', resource: object('_tenants/acme.json') },
        'ImplicitlyDenied',
      ],
      [
        'reading a secret',
        {
          action: 'secretsmanager:GetSecretValue',
          resource: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:report-export-acme-AbCdEf`,
        },
        'ImplicitlyDenied',
      ],
      [
        'publishing to another topic',
        { action: 'sns:Publish', resource: `arn:aws:sns:${REGION}:${ACCOUNT}:another-topic` },
        'ImplicitlyDenied',
      ],
      [
        'starting an execution',
        {
          action: 'states:StartExecution',
          resource: `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:ReportExport-Export`,
        },
        'ImplicitlyDenied',
      ],
      [
        'reading a run record without TLS',
        { action: 's3:GetObject', resource: record, context: { 'aws:SecureTransport': 'false' } },
        'ExplicitlyDenied',
      ],
    ];
    // Multi-tenant: the role a tenant's run acts in, which the digest never takes.
    const [[tenantAccess] = []] = d.iam
      .ofType('AWS::IAM::Role')
      .filter(([logicalId]) => logicalId.startsWith('TenantAccessRole'));
    if (tenantAccess !== undefined) {
      denied.push([
        "taking a tenant's session",
        { action: 'sts:AssumeRole', resource: d.iam.arnOf(tenantAccess) },
        'ImplicitlyDenied',
      ]);
    }
    it('refuses the sessions of tenants when there are tenants', () => {
      // Assess: the case above is there exactly in a multi-tenant stack
      expect(denied.some(([why]) => why === "taking a tenant's session")).toBe(tenancy === 'multi');
    });
    it.each(denied)('refuses %s', async (_, permission, expected) => {
      // Act
      const result = await d.iam.evaluate(d.role as RolePrincipal, permission);

      // Assess
      expect(result).toBe(expected);
    });
  });
}

describe('the night digest configuration', () => {
  it('takes its UTC hour and pauses from digest in the configuration', () => {
    // Act
    const t = synthStack({ digest: { hourUtc: 6, enabled: false } });

    // Assess
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 6 * * ? *)',
      ScheduleExpressionTimezone: 'Etc/UTC',
      State: 'DISABLED',
    });
  });

  it.each([[{ hourUtc: 24 }], [{ hourUtc: 9.5 }], [{ hour: 9 }]])(
    'refuses digest %j, naming it',
    (digest) => {
      // Act
      const resolve = () => resolveStackConfig({ ...BASE_CONFIG, digest: digest as never });

      // Assess
      expect(resolve).toThrow(/digest/);
    },
  );
});
