import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetDatabaseCommand, GetTablesCommand, GlueClient } from '@aws-sdk/client-glue';
import {
  GetDataLakeSettingsCommand,
  LakeFormationClient,
  ListPermissionsCommand,
} from '@aws-sdk/client-lakeformation';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorDependencies } from '../../../lib/cli/commands/doctor/aws-clients';
import { doctorCommand } from '../../../lib/cli/commands/doctor/command';
import type { Check, DoctorReport } from '../../../lib/cli/commands/doctor/report';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { useTempDir } from '../../support/test-scope';
import {
  leakedSecrets,
  SECRETS,
  statuses,
  storedLogin,
  streams,
  tenantEntry,
  writeDeployment,
} from './deployment';

const REGION = 'eu-west-1';
const BUCKET = 'doctor-lake';
const SM = `arn:aws:states:${REGION}:123456789012:stateMachine:ReportExport-Export`;
const MULTI_OUTPUTS = {
  StateMachineArn: SM,
  BucketName: BUCKET,
  DataLakeUri: `s3://${BUCKET}/lake`,
  GlueDatabase: 'report_export',
  TenantRegistryUri: `s3://${BUCKET}/_tenants`,
  TenantSecretUri: 'secretsmanager:report-export/ReportExport/tenants/{tenant}',
  TenantSecretKeyArn: `arn:aws:kms:${REGION}:123456789012:key/k-1`,
  TenantScheduleGroup: 'ReportExportTenantSchedulesGroup',
  TenantSchedulerRoleArn: 'arn:aws:iam::123456789012:role/Scheduler',
  TenantDeadLetterQueueArn: `arn:aws:sqs:${REGION}:123456789012:DeadLetters`,
};
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:ReportExportSecret-a1b2c3`;
const SINGLE_OUTPUTS = {
  StateMachineArn: SM,
  BucketName: BUCKET,
  DataLakeUri: `s3://${BUCKET}/lake`,
  GlueDatabase: 'report_export',
  SecretArn: SECRET_ARN,
};

const IAM_ALL = [
  { Principal: { DataLakePrincipalIdentifier: 'IAM_ALLOWED_PRINCIPALS' }, Permissions: ['ALL' as const] },
];
const awsError = (name: string, message = name) =>
  Object.assign(new Error(message), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });

/** The token endpoint's answer to a refresh: rotated tokens. */
const rotated = () =>
  Response.json({
    access_token: SECRETS.rotatedAccessToken,
    refresh_token: SECRETS.rotatedRefreshToken,
    expires_in: 3600,
    token_type: 'Bearer',
  });

describe('report-export doctor --check (AWS mocked; a stack bucket with registry and leases on a local S3)', () => {
  const root = useTempDir('doctor-aws-');
  const cfn = mockClient(CloudFormationClient);
  const sts = mockClient(STSClient);
  const lf = mockClient(LakeFormationClient);
  const glue = mockClient(GlueClient);
  const lambda = mockClient(LambdaClient);
  const scheduler = mockClient(SchedulerClient);
  const sm = mockClient(SecretsManagerClient);
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let deps: DoctorDependencies;
  let refreshes: Request[];
  let answer: () => Response;
  /** The secret as Secrets Manager holds it now (a refresh writes the rotated one). */
  let stored: string;
  let n = 0;

  beforeAll(async () => {
    s3 = await startLocalS3(BUCKET);
    await s3.store().put('_tenants/acme.json', JSON.stringify(tenantEntry('acme')));
    deps = {
      cloudFormation: () => new CloudFormationClient({ region: REGION }),
      sts: () => new STSClient({ region: REGION }),
      lakeFormation: () => new LakeFormationClient({ region: REGION }),
      glue: () => new GlueClient({ region: REGION }),
      lambda: () => new LambdaClient({ region: REGION }),
      scheduler: () => new SchedulerClient({ region: REGION }),
      secretsManager: () => new SecretsManagerClient({ region: REGION }),
      s3: () => s3.client,
      fetch: async (input, init) => {
        refreshes.push(new Request(input, init));
        return answer();
      },
    };
  });

  afterAll(async () => {
    for (const m of [cfn, sts, lf, glue, lambda, scheduler, sm]) m.restore();
    await s3.close();
  });

  /** Every AWS answer of a healthy account and stack. */
  beforeEach(() => {
    for (const m of [cfn, sts, lf, glue, lambda, scheduler, sm]) m.reset();
    refreshes = [];
    answer = rotated;
    stored = JSON.stringify(storedLogin());
    stack(MULTI_OUTPUTS);
    sts
      .on(GetCallerIdentityCommand)
      .resolves({ Account: '123456789012', Arn: 'arn:aws:iam::123456789012:user/ops' });
    lf.on(GetDataLakeSettingsCommand).resolves({
      DataLakeSettings: { CreateDatabaseDefaultPermissions: IAM_ALL, CreateTableDefaultPermissions: IAM_ALL },
    });
    lf.on(ListPermissionsCommand).resolves({ PrincipalResourcePermissions: IAM_ALL });
    glue
      .on(GetDatabaseCommand)
      .resolves({ Database: { Name: 'report_export', CreateTableDefaultPermissions: IAM_ALL } });
    glue.on(GetTablesCommand).resolves({ TableList: [{ Name: 'calls' }, { Name: 'summaries' }] });
    lambda.on(GetAccountSettingsCommand).resolves({
      AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 },
    });
    scheduler
      .on(GetScheduleGroupCommand)
      .resolves({ Name: MULTI_OUTPUTS.TenantScheduleGroup, State: 'ACTIVE' });
    sm.on(GetSecretValueCommand).callsFake(() => ({ SecretString: stored }));
    sm.on(PutSecretValueCommand).callsFake((input: { SecretString: string }) => {
      stored = input.SecretString;
      return {};
    });
  });

  function stack(outputs: Record<string, string>): void {
    cfn.on(DescribeStacksCommand, { StackName: 'ReportExport' }).resolves({
      Stacks: [
        {
          StackName: 'ReportExport',
          CreationTime: new Date(0),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    });
  }

  /** doctor on its own working directory (no cdk.json unless `cdk`), its report parsed. */
  async function doctor(argv: string[], cdk?: Record<string, unknown>) {
    const cwd = path.join(root(), `w-${++n}`);
    await mkdir(cwd);
    if (cdk !== undefined) await writeDeployment(cwd, { cdk });
    const { io, out, err } = streams(cwd, { REPORT_EXPORT_CLIENT_SECRET: SECRETS.envClientSecret });
    const code = await doctorCommand(['--check', '--json', ...argv], io, deps);
    const text = out() + err();
    return { code, report: JSON.parse(out()) as DoctorReport, text };
  }

  const checkOf = (report: DoctorReport, id: string): Check | undefined =>
    report.checks.find((c) => c.id === id);

  it('is healthy (exit 0): credentials, stack, registry, a login that refreshes, IAM access control, quotas, the group', async () => {
    // Act
    const { code, report, text } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code, text).toBe(0);
    expect(report).toMatchObject({
      status: 'ok',
      exitCode: 0,
      mode: 'check',
      target: { kind: 'stack', stack: 'ReportExport', tenancy: 'multi' },
    });
    expect(statuses(report)).toEqual([
      'config.settings: ok',
      'config.stack: skip',
      'aws.credentials: ok',
      'aws.stack ReportExport: ok',
      'registry.entries: ok',
      'login.tenant acme: ok',
      'aws.lake-formation report_export: ok',
      'aws.lambda-concurrency: ok',
      'aws.lambda-memory: ok',
      'aws.schedule-group ReportExportTenantSchedulesGroup: ok',
    ]);
    // The refresh happened once, and its rotated refresh token is what the secret holds now.
    expect(refreshes).toHaveLength(1);
    expect(JSON.parse(stored)).toMatchObject({ refreshToken: SECRETS.rotatedRefreshToken });
    expect(sm.commandCalls(PutSecretValueCommand)[0]?.args[0].input.SecretId).toBe(
      'report-export/ReportExport/tenants/acme',
    );
    // The database and each of its tables asked for IAMAllowedPrincipals' grants.
    expect(lf.commandCalls(ListPermissionsCommand).map((c) => c.args[0].input)).toEqual([
      {
        Principal: { DataLakePrincipalIdentifier: 'IAM_ALLOWED_PRINCIPALS' },
        Resource: { Database: { Name: 'report_export' } },
      },
      {
        Principal: { DataLakePrincipalIdentifier: 'IAM_ALLOWED_PRINCIPALS' },
        Resource: { Table: { DatabaseName: 'report_export', Name: 'calls' } },
      },
      {
        Principal: { DataLakePrincipalIdentifier: 'IAM_ALLOWED_PRINCIPALS' },
        Resource: { Table: { DatabaseName: 'report_export', Name: 'summaries' } },
      },
    ]);
    expect(scheduler.commandCalls(GetScheduleGroupCommand)[0]?.args[0].input).toEqual({
      Name: MULTI_OUTPUTS.TenantScheduleGroup,
    });
    expect(leakedSecrets(text)).toEqual([]);
  });

  it.each([
    [
      'the database',
      () => lf.on(ListPermissionsCommand, { Resource: { Database: { Name: 'report_export' } } }).resolves({}),
      /^database report_export is governed by Lake Formation/,
      /grant-permissions .*'\{"Database":\{"Name":"report_export"\}\}'/,
    ],
    [
      'a table',
      () =>
        lf
          .on(ListPermissionsCommand, {
            Resource: { Table: { DatabaseName: 'report_export', Name: 'summaries' } },
          })
          .resolves({ PrincipalResourcePermissions: [] }),
      /^tables summaries of report_export are governed by Lake Formation/,
      /"Table":\{"DatabaseName":"report_export","Name":"summaries"\}/,
    ],
    [
      "the database's default for new tables",
      () =>
        glue
          .on(GetDatabaseCommand)
          .resolves({ Database: { Name: 'report_export', CreateTableDefaultPermissions: [] } }),
      /^tables created in report_export from now on would be governed by Lake Formation/,
      /CreateTableDefaultPermissions/,
    ],
    [
      "the account's defaults, before the database exists",
      () => {
        glue.on(GetDatabaseCommand).rejects(awsError('EntityNotFoundException'));
        lf.on(GetDataLakeSettingsCommand).resolves({
          DataLakeSettings: { CreateDatabaseDefaultPermissions: [], CreateTableDefaultPermissions: IAM_ALL },
        });
      },
      /^new databases of this account use Lake Formation permissions/,
      /Use only IAM access control for new databases/,
    ],
  ])('fails (exit 1) where Lake Formation governs %s', async (_what, arrange, message, fix) => {
    // Prepare
    arrange();

    // Act
    const { code, report } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code).toBe(1);
    expect(report.counts.fail).toBe(1);
    const c = checkOf(report, 'aws.lake-formation');
    expect(c).toMatchObject({
      status: 'fail',
      subject: 'report_export',
      message: expect.stringMatching(message),
    });
    expect(c?.fix).toMatch(fix);
  });

  it('warns (exit 3) where the caller may not read the Lake Formation grants: it cannot judge', async () => {
    // Prepare
    lf.on(ListPermissionsCommand).rejects(awsError('AccessDeniedException', 'not a data lake administrator'));

    // Act
    const { code, report } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code).toBe(3);
    expect(checkOf(report, 'aws.lake-formation')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('AccessDeniedException: not a data lake administrator'),
      fix: expect.stringContaining('data lake administrator'),
    });
  });

  it.each([
    // [account, unreserved, status, exit code]: one execution runs mapConcurrency 4 + 1 = 5 functions
    [10, 10, 'warn', 3, /^10 unreserved of 10 concurrent executions, below Lambda's default 1000/],
    [1000, 8, 'warn', 3, /^8 unreserved of 1000 .* or 2 executions at once \(10\)/],
    [5, 4, 'fail', 1, /^4 unreserved of 5 .*: every execution would be throttled/],
    [1000, 1000, 'ok', 0, /^1000 unreserved of 1000/],
  ])(
    'judges %i concurrent executions (%i unreserved) %s, exit %i',
    async (account, unreserved, status, exitCode, message) => {
      // Prepare
      lambda.on(GetAccountSettingsCommand).resolves({
        AccountLimit: { ConcurrentExecutions: account, UnreservedConcurrentExecutions: unreserved },
      });

      // Act
      const { code, report } = await doctor(['--stack', 'ReportExport']);

      // Assess
      expect(code).toBe(exitCode);
      const c = checkOf(report, 'aws.lambda-concurrency');
      expect(c).toMatchObject({ status, message: expect.stringMatching(message) });
      if (status !== 'ok') expect(c?.fix).toContain('--quota-code L-B99A9384');
    },
  );

  it("warns that ExportResults' memory from cdk.json is past what a new account's quotas allow", async () => {
    // Prepare: a new account's concurrency, and 4,096 MB for ExportResults.
    lambda.on(GetAccountSettingsCommand).resolves({
      AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 },
    });

    // Act
    const { report } = await doctor(['--stack', 'ReportExport'], {
      tenancy: 'multi',
      dataStartDate: '2026-01-01',
      exportMemoryMb: 4096,
    });

    // Assess
    expect(checkOf(report, 'aws.lambda-memory')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(
        /^ExportResults needs 4096 MB \(exportMemoryMb from .*cdk\.json \(reportExport\)\); .*3008 MB/,
      ),
      fix: expect.stringContaining('exportMemoryMb to 3008 or less'),
    });
  });

  it("fails (exit 1) when the stack's schedule group is missing", async () => {
    // Prepare
    scheduler
      .on(GetScheduleGroupCommand)
      .rejects(awsError('ResourceNotFoundException', 'Schedule group not found'));

    // Act
    const { code, report } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code).toBe(1);
    expect(checkOf(report, 'aws.schedule-group')).toMatchObject({
      status: 'fail',
      subject: MULTI_OUTPUTS.TenantScheduleGroup,
      message: expect.stringContaining('does not exist: tenants add cannot schedule a tenant'),
      fix: 'deploy the stack again (npx cdk deploy ReportExport) to recreate it',
    });
  });

  it('fails (exit 1) a login whose refresh the service rejects, and redacts the secrets its answer echoes', async () => {
    // Prepare: a token endpoint that refuses the grant and repeats what it was sent.
    answer = () =>
      Response.json(
        {
          error: 'invalid_grant',
          error_description: `refresh token ${SECRETS.refreshToken} of client secret ${SECRETS.clientSecret} is revoked`,
        },
        { status: 400 },
      );

    // Act
    const { code, report, text } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code).toBe(1);
    expect(refreshes).toHaveLength(1);
    const c = checkOf(report, 'login.tenant');
    expect(c).toMatchObject({
      status: 'fail',
      subject: 'acme',
      fix: 'report-export tenants login acme --client-id <id> --stack ReportExport',
    });
    // The service's words are there (so the redaction had something to do), its secrets are not.
    expect(c?.message).toContain('refresh token [redacted] of client secret [redacted] is revoked');
    expect(leakedSecrets(text)).toEqual([]);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it("checks a single-tenant stack's one secret under the deployment's lease, and the default schedule group", async () => {
    // Prepare: the stack not yet having made its database (the account's defaults decide).
    stack(SINGLE_OUTPUTS);
    glue.on(GetDatabaseCommand).rejects(awsError('EntityNotFoundException'));

    // Act
    const { code, report, text } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code, text).toBe(0);
    expect(report.target).toEqual({ kind: 'stack', stack: 'ReportExport', tenancy: 'single' });
    expect(statuses(report)).toEqual([
      'config.settings: ok',
      'config.stack: skip',
      'aws.credentials: ok',
      'aws.stack ReportExport: ok',
      'login.stack: ok',
      'aws.lake-formation report_export: ok',
      'aws.lambda-concurrency: ok',
      'aws.lambda-memory: ok',
      'aws.schedule-group default: ok',
    ]);
    expect(sm.commandCalls(PutSecretValueCommand)[0]?.args[0].input.SecretId).toBe(SECRET_ARN);
    expect(checkOf(report, 'aws.lake-formation')).toMatchObject({
      message: expect.stringContaining('not created yet'),
    });
    expect(leakedSecrets(text)).toEqual([]);
  });

  it('skips every AWS check but names the credentials when there are none, and asks nothing more of AWS', async () => {
    // Prepare
    sts.on(GetCallerIdentityCommand).rejects(
      Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      }),
    );

    // Act
    const { code, report } = await doctor(['--stack', 'ReportExport']);

    // Assess
    expect(code).toBe(1);
    expect(checkOf(report, 'aws.credentials')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('CredentialsProviderError'),
      fix: expect.stringContaining('aws sso login'),
    });
    expect(report.checks.filter((c) => c.status === 'skip').map((c) => c.id)).toEqual([
      'config.stack',
      'aws.stack',
      'registry.entries',
      'aws.lake-formation',
      'aws.lambda-concurrency',
      'aws.lambda-memory',
      'aws.schedule-group',
    ]);
    expect([cfn, lf, glue, lambda, scheduler, sm].map((m) => m.calls().length)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("checks the account for the local deployment too, and refreshes its tenants' logins (no stack: no group)", async () => {
    // Prepare: a local deployment whose one tenant's login the service refuses.
    const cwd = path.join(root(), 'local');
    await mkdir(cwd);
    await writeDeployment(cwd, { tenants: [{ id: 'acme' }] });
    answer = () => Response.json({ error: 'invalid_grant' }, { status: 400 });
    const { io, out } = streams(cwd);

    // Act
    const code = await doctorCommand(['--check', '--json'], io, deps);

    // Assess
    expect(code).toBe(1);
    const report = JSON.parse(out());
    expect(statuses(report)).toEqual([
      'config.settings: ok',
      'config.stack: skip',
      'registry.entries: ok',
      'login.default: skip',
      'login.tenant acme: fail',
      'lake.tables: skip',
      'aws.credentials: ok',
      'aws.lake-formation report_export: ok',
      'aws.lambda-concurrency: ok',
      'aws.lambda-memory: ok',
      'aws.schedule-group: skip',
    ]);
    expect(refreshes).toHaveLength(1);
    expect(cfn.calls()).toHaveLength(0);
  });
});
