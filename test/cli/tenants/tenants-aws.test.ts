import { Readable } from 'node:stream';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetTableCommand, GlueClient } from '@aws-sdk/client-glue';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DescribeStateMachineCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TenantsDependencies } from '../../../lib/cli/aws/tenants-deployment';
import { tenantsLogin } from '../../../lib/cli/commands/login/tenant-login';
import { sfnStartCommand } from '../../../lib/cli/commands/start/command';
import { tenantsAdd, tenantsList, tenantsSet } from '../../../lib/cli/commands/tenants/edit';
import { tenantsRemove } from '../../../lib/cli/commands/tenants/remove';
import { tenantsStatus } from '../../../lib/cli/commands/tenants/status';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { readObject } from '../../../lib/stores';
import { intradayMinute } from '../../../lib/workflow';
import { startLocalS3 } from '../../integration/stores/local-s3';

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport';
const OUTPUTS = {
  StateMachineArn: SM,
  BucketName: 'tenants-lake',
  DataLakeUri: 's3://tenants-lake/exports',
  GlueDatabase: 'report_export',
  TenantRegistryUri: 's3://tenants-lake/_tenants',
  TenantSecretUri: 'secretsmanager:report-export/ReportExport/tenants/{tenant}',
  TenantSecretKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/k-1',
  TenantScheduleGroup: 'ReportExportTenants',
  TenantSchedulerRoleArn: 'arn:aws:iam::123456789012:role/Scheduler',
  TenantDeadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:DeadLetters',
};

const ADD = [
  'acme',
  '--name',
  'Acme',
  '--region',
  'uk',
  '--time-zone',
  'Australia/Sydney',
  '--workspace',
  'ws-1',
];
const ADD_REST = ['--reports', 'r-1', '--hour', '3', '--look-back', '0', '--stack', 'ReportExport'];

function streams(env: IOStreams['env'] = {}): { io: IOStreams; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: {
      stdin: Readable.from([]),
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
      env,
      cwd: '/nonexistent',
    },
    out: () => out,
    err: () => err,
  };
}

describe('report-export tenants --stack (a multi-tenant stack; AWS mocked, the lake on a local S3)', () => {
  const cfn = mockClient(CloudFormationClient);
  const scheduler = mockClient(SchedulerClient);
  const sm = mockClient(SecretsManagerClient);
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let deps: TenantsDependencies;

  beforeAll(async () => {
    s3 = await startLocalS3('tenants-lake');
    deps = {
      cloudFormation: () => new CloudFormationClient({ region: 'eu-west-1' }),
      scheduler: () => new SchedulerClient({ region: 'eu-west-1' }),
      secretsManager: () => new SecretsManagerClient({ region: 'eu-west-1' }),
      s3: () => s3.client,
    };
  });

  afterAll(async () => {
    await s3.close();
  });

  beforeEach(() => {
    cfn.reset();
    scheduler.reset();
    sm.reset();
    cfn.on(DescribeStacksCommand, { StackName: 'ReportExport' }).resolves({
      Stacks: [
        {
          StackName: 'ReportExport',
          CreationTime: new Date(0),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: Object.entries(OUTPUTS).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    });
  });

  it('leaves no entry when the schedule cannot be created', async () => {
    // Prepare
    scheduler
      .on(UpdateScheduleCommand)
      .rejects(Object.assign(new Error('no schedule'), { name: 'ResourceNotFoundException' }));
    scheduler
      .on(CreateScheduleCommand)
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));

    // Act
    const failure = tenantsAdd([...ADD, ...ADD_REST], streams().io, deps);

    // Assess
    await expect(failure).rejects.toThrow('not authorized');
    expect(await s3.store().head('_tenants/acme.json')).toBeUndefined();
  });

  it("adds the entry to the stack's registry and creates its schedule in the tenant's zone at its hour", async () => {
    // Prepare
    scheduler
      .on(UpdateScheduleCommand)
      .rejects(Object.assign(new Error('no schedule'), { name: 'ResourceNotFoundException' }));
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    const { io, out } = streams();

    // Act
    const code = await tenantsAdd([...ADD, ...ADD_REST, '--disabled'], io, deps);

    // Assess
    expect(code).toBe(0);
    expect(out()).toContain('created schedule ReportExportTenants/acme (DISABLED, 03:00 Australia/Sydney)');
    const [create] = scheduler.commandCalls(CreateScheduleCommand);
    expect(create?.args[0].input).toEqual({
      Name: 'acme',
      GroupName: 'ReportExportTenants',
      Description: 'report-export: nightly export of tenant acme (Acme)',
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'Australia/Sydney',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 30 },
      State: 'DISABLED',
      Target: {
        Arn: SM,
        RoleArn: OUTPUTS.TenantSchedulerRoleArn,
        Input: '{"tenant":"acme","scheduledTime":"<aws.scheduler.scheduled-time>"}',
        DeadLetterConfig: { Arn: OUTPUTS.TenantDeadLetterQueueArn },
        RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 21600 },
      },
    });
    const stored = JSON.parse(new TextDecoder().decode(await readObject(s3.store(), '_tenants/acme.json')));
    expect(stored).toMatchObject({ id: 'acme', timeZone: 'Australia/Sydney', hour: 3, enabled: false });
  });

  it('changes the entry and replaces the schedule with its new hour and state', async () => {
    // Prepare
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    const { io } = streams();

    // Act
    const code = await tenantsSet(['acme', '--hour', '5', '--enabled', '--stack', 'ReportExport'], io, deps);

    // Assess
    expect(code).toBe(0);
    const [update] = scheduler.commandCalls(UpdateScheduleCommand);
    expect(update?.args[0].input).toMatchObject({
      Name: 'acme',
      ScheduleExpression: 'cron(0 5 * * ? *)',
      ScheduleExpressionTimezone: 'Australia/Sydney',
      State: 'ENABLED',
    });
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    const list = streams();
    await tenantsList(['--stack', 'ReportExport', '--json'], list.io, deps);
    expect(JSON.parse(list.out())).toMatchObject([{ id: 'acme', hour: 5, enabled: true }]);
  });

  it('creates a second schedule for intraday refreshes in its hours, and deletes it when they are turned off', async () => {
    // Prepare
    scheduler
      .on(UpdateScheduleCommand, { Name: 'acme' })
      .resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    scheduler
      .on(UpdateScheduleCommand, { Name: 'acme.intraday' })
      .rejects(Object.assign(new Error('no schedule'), { name: 'ResourceNotFoundException' }));
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/y' });
    scheduler.on(DeleteScheduleCommand).resolves({});
    const { io, out } = streams();

    // Act
    const on = await tenantsSet(
      ['acme', '--intraday', '15', '--intraday-hours', '8-20', '--stack', 'ReportExport'],
      io,
      deps,
    );

    // Assess: every 15 minutes from 08:00 to 20:00 in its zone, at its own minute of each
    // quarter (acme's: 10, a hash of its id), the refresh's input.
    expect(on).toBe(0);
    expect(out()).toContain('created schedule ReportExportTenants/acme.intraday (every 15 min, 08:00-20:00)');
    const [create] = scheduler.commandCalls(CreateScheduleCommand);
    expect(create?.args[0].input).toMatchObject({
      Name: 'acme.intraday',
      GroupName: 'ReportExportTenants',
      ScheduleExpression: 'cron(10/15 8-19 * * ? *)',
      ScheduleExpressionTimezone: 'Australia/Sydney',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 3 },
      Target: {
        Arn: SM,
        Input: '{"tenant":"acme","intraday":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 900 },
      },
    });
    const stored = JSON.parse(new TextDecoder().decode(await readObject(s3.store(), '_tenants/acme.json')));
    expect(stored.intraday).toEqual({ everyMinutes: 15, fromHour: 8, toHour: 20 });
    expect(scheduler.commandCalls(DeleteScheduleCommand)).toHaveLength(0);

    // Act: hourly, then off.
    await tenantsSet(['acme', '--intraday', '120', '--stack', 'ReportExport'], streams().io, deps);
    const off = await tenantsSet(
      ['acme', '--intraday', 'off', '--stack', 'ReportExport'],
      streams().io,
      deps,
    );

    // Assess: the hours kept when only the interval changes; off deletes the schedule.
    expect(off).toBe(0);
    expect(scheduler.commandCalls(CreateScheduleCommand)[1]?.args[0].input.ScheduleExpression).toBe(
      'cron(55 8,10,12,14,16,18 * * ? *)',
    );
    expect(scheduler.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input)).toEqual([
      { Name: 'acme.intraday', GroupName: 'ReportExportTenants' },
    ]);
    const after = JSON.parse(new TextDecoder().decode(await readObject(s3.store(), '_tenants/acme.json')));
    expect(after.intraday).toBeUndefined();
  });

  it('spreads tenants on one interval over all of it, each at a minute below the interval', () => {
    // Act
    const minutes = Array.from({ length: 1000 }, (_, i) => intradayMinute(`tenant-${i}`, 15));

    // Assess: every minute of the quarter taken, none by more than twice its share.
    const counts = Array.from({ length: 15 }, (_, m) => minutes.filter((x) => x === m).length);
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan((2 * 1000) / 15);
    expect(intradayMinute('acme', 120)).toBeLessThan(60);
    expect(intradayMinute('acme', 15)).toBe(intradayMinute('acme', 15));
  });

  it.each([
    [['--intraday', '25'], /intraday.everyMinutes must be one of 15, 20, 30/],
    [['--intraday', '15', '--intraday-hours', '20-8'], /toHour must be after fromHour/],
    [['--intraday-hours', 'morning'], /--intraday-hours must be <from>-<to>/],
    [['--warn-after', '90'], /need both --warn-after and --error-after/],
    [['--warn-after', '90', '--error-after', '30'], /errorAfterMinutes must be at least warnAfterMinutes/],
  ])('refuses intraday and freshness flags %j, naming what is wrong', async (flags, message) => {
    await expect(
      tenantsSet(['acme', ...flags, '--stack', 'ReportExport'], streams().io, deps),
    ).rejects.toThrow(message);
  });

  it('shows the schedule and a missing login in the status', async () => {
    // Prepare: no secret yet (tenants login never ran), as Secrets Manager answers it
    scheduler
      .on(GetScheduleCommand, { Name: 'acme', GroupName: 'ReportExportTenants' })
      .resolves({ State: 'ENABLED' });
    sm.on(GetSecretValueCommand).rejects(
      Object.assign(new Error('not found'), {
        name: 'ResourceNotFoundException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const { io, out } = streams();

    // Act
    const code = await tenantsStatus(['--stack', 'ReportExport', '--json'], io, deps);

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(out())).toMatchObject([
      { tenant: 'acme', schedule: 'ENABLED', login: 'none', lastRun: null },
    ]);
  });

  it('says a login it could not read is unreadable, not missing', async () => {
    // Prepare: the secret exists but this caller may not read it
    scheduler.on(GetScheduleCommand).resolves({ State: 'ENABLED' });
    sm.on(GetSecretValueCommand).rejects(
      Object.assign(new Error('denied'), {
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const { io, out } = streams();

    // Act
    const code = await tenantsStatus(['--stack', 'ReportExport', '--json'], io, deps);

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(out())).toMatchObject([{ tenant: 'acme', login: 'unreadable: AccessDeniedException' }]);
  });

  it('says how to repair a schedule out of step with the entry', async () => {
    // Prepare: the entry is enabled, its schedule disabled (changed by hand in the console).
    scheduler.on(GetScheduleCommand).resolves({ State: 'DISABLED' });
    const { io, out } = streams();

    // Act
    const code = await tenantsStatus(['acme', '--stack', 'ReportExport'], io, deps);

    // Assess
    expect(code).toBe(0);
    expect(out()).toContain(
      'acme  schedule DISABLED, entry enabled: report-export tenants set acme --enabled --stack ReportExport puts it in step',
    );
  });

  it('starts one execution per enabled tenant with start --all-tenants, and asks for a tenant without it', async () => {
    // Prepare
    const sfn = mockClient(SFNClient);
    sfn.on(DescribeStateMachineCommand).resolves({});
    sfn.on(StartExecutionCommand).callsFake((i: { name: string }) => ({
      executionArn: `arn:aws:states:eu-west-1:123456789012:execution:ReportExport:${i.name}`,
      startDate: new Date(0),
    }));
    const start = { ...deps, sfn: () => new SFNClient({ region: 'eu-west-1' }) };
    const { io, out } = streams();

    // Act
    const code = await sfnStartCommand(
      ['--date', '2026-11-20', '--all-tenants', '--stack', 'ReportExport', '--json'],
      io,
      start,
    );
    const without = sfnStartCommand(['--date', '2026-11-20', '--stack', 'ReportExport'], streams().io, start);
    const unknown = sfnStartCommand(
      ['--date', '2026-11-20', '--stack', 'ReportExport', '--tenant', 'acne'],
      streams().io,
      start,
    );

    // Assess
    expect(code).toBe(0);
    const calls = sfn.commandCalls(StartExecutionCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ stateMachineArn: SM, input: '{"date":"2026-11-20","tenant":"acme"}' });
    expect(calls[0]?.name).toMatch(/^acme-/);
    expect(JSON.parse(out()).executions).toEqual([
      { tenant: 'acme', executionArn: expect.stringContaining(':acme-'), error: null },
    ]);
    await expect(without).rejects.toThrow(/--stack ReportExport serves many tenants: give --tenant <id>/);
    await expect(unknown).rejects.toThrow(
      "--tenant 'acne' is not a tenant of the stack ReportExport (its tenants: acme",
    );
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
    sfn.restore();
  });

  it("creates the tenant's secret with the stack's key and stores the sign-in in it", async () => {
    // Prepare
    sm.on(CreateSecretCommand).resolves({ Name: 'report-export/ReportExport/tenants/acme' });
    sm.on(DescribeSecretCommand).resolves({ Name: 'report-export/ReportExport/tenants/acme' });
    sm.on(PutSecretValueCommand).resolves({});
    const { io, err } = streams({ REPORT_EXPORT_CLIENT_SECRET: 'client-secret' });
    const landed: Promise<Response>[] = [];
    const login = {
      onAuthorizationUrl: (url: string) => {
        const state = new URL(url).searchParams.get('state') ?? '';
        const origin = /waiting on (http:\/\/127\.0\.0\.1:\d+)/.exec(err())?.[1];
        landed.push(fetch(`${origin}/?code=c-1&state=${state}`));
      },
      fetch: async () =>
        Response.json({ access_token: 'at', refresh_token: 'rt', expires_in: 3600, token_type: 'Bearer' }),
    };

    // Act
    const code = await tenantsLogin(
      ['acme', '--client-id', 'app', '--redirect-uri', 'http://127.0.0.1:0/', '--stack', 'ReportExport'],
      io,
      { ...deps, ...login },
    );

    // Assess
    expect(code, err()).toBe(0);
    expect((await landed[0])?.status).toBe(200);
    expect(sm.commandCalls(CreateSecretCommand)[0]?.args[0].input).toMatchObject({
      Name: 'report-export/ReportExport/tenants/acme',
      KmsKeyId: OUTPUTS.TenantSecretKeyArn,
    });
    const put = sm.commandCalls(PutSecretValueCommand)[0]?.args[0].input;
    expect(put?.SecretId).toBe('report-export/ReportExport/tenants/acme');
    expect(JSON.parse(put?.SecretString ?? '{}')).toMatchObject({ refreshToken: 'rt', clientId: 'app' });
  });

  it('removes its schedule, schedules its secret for deletion with a recovery window, and removes its entry', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).resolves({});
    sm.on(DeleteSecretCommand).resolves({});
    const { io, out } = streams();

    // Act
    const code = await tenantsRemove(['acme', '--stack', 'ReportExport'], io, deps);

    // Assess
    expect(code).toBe(0);
    // Both its schedules: the night's and its refreshes' (whichever it has).
    expect(scheduler.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input)).toEqual([
      { Name: 'acme.intraday', GroupName: 'ReportExportTenants' },
      { Name: 'acme', GroupName: 'ReportExportTenants' },
    ]);
    expect(sm.commandCalls(DeleteSecretCommand)[0]?.args[0].input).toEqual({
      SecretId: 'report-export/ReportExport/tenants/acme',
      RecoveryWindowInDays: 30,
    });
    expect(out()).toContain('data kept in s3://tenants-lake/exports (tenant=acme/)');
    expect(await s3.store().head('_tenants/acme.json')).toBeUndefined();
  });

  it("deletes its data with --delete-data --yes: its CSV and its leases in the bucket's _leases, not the tables' data files earlier snapshots list", async () => {
    // Prepare: the lake has no tables yet in Glue; acme's and bruin's objects.
    const glue = mockClient(GlueClient);
    glue
      .on(GetTableCommand)
      .rejects(Object.assign(new Error('no table'), { name: 'EntityNotFoundException' }));
    scheduler.on(DeleteScheduleCommand).resolves({});
    sm.on(DeleteSecretCommand).resolves({});
    const store = s3.store();
    const keys = {
      csv: 'exports/calls/format=csv/tenant=acme/report_id=r-1/dt=2026-11-20/part-00000.csv',
      tableFile: 'exports/tables/calls/data/tenant=acme/report_id=r-1/dt=2026-11-20/run-1-00000.parquet',
      lease: '_leases/tenant=acme/publish/r-1/2026-11-20.lease',
      otherLease: '_leases/tenant=bruin/publish/r-1/2026-11-20.lease',
      otherCsv: 'exports/calls/format=csv/tenant=bruin/report_id=r-1/dt=2026-11-20/part-00000.csv',
    };
    for (const key of Object.values(keys)) await store.put(key, 'x');
    const { io, out } = streams();

    try {
      // Act
      const code = await tenantsRemove(
        ['acme', '--stack', 'ReportExport', '--delete-data', '--yes'],
        io,
        deps,
      );

      // Assess
      expect(code).toBe(0);
      expect(out()).toContain('data deleted: 2 objects, 0 table commits');
      expect(out()).toContain('its 1 table data files stay while earlier snapshots list them');
      expect(await store.head(keys.csv)).toBeUndefined();
      expect(await store.head(keys.lease)).toBeUndefined();
      expect(await store.head(keys.tableFile)).toBeDefined();
      expect(await store.head(keys.otherLease)).toBeDefined();
      expect(await store.head(keys.otherCsv)).toBeDefined();
    } finally {
      glue.restore();
    }
  });

  it('says the tenant is not there when removed again (its secret already scheduled for deletion)', async () => {
    // Prepare
    scheduler
      .on(DeleteScheduleCommand)
      .rejects(Object.assign(new Error('gone'), { name: 'ResourceNotFoundException' }));
    sm.on(DeleteSecretCommand).rejects(
      Object.assign(
        new Error('You tried to perform the operation on a secret that is currently scheduled for deletion.'),
        {
          name: 'InvalidRequestException',
        },
      ),
    );

    // Act
    const again = tenantsRemove(['acme', '--stack', 'ReportExport'], streams().io, deps);

    // Assess
    await expect(again).rejects.toThrow("no tenant 'acme' in the stack ReportExport");
  });

  it('refuses a single-tenant stack, naming it', async () => {
    // Prepare
    cfn.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'Single',
          CreationTime: new Date(0),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [{ OutputKey: 'StateMachineArn', OutputValue: SM }],
        },
      ],
    });

    // Act
    const failure = tenantsList(['--stack', 'Single'], streams().io, deps);

    // Assess
    await expect(failure).rejects.toThrow(/--stack Single is a single-tenant deployment/);
  });
});
