import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DescribeStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AwsSetupError, type AwsTarget, checkAws, regionOfArn } from '../../../../lib/cli/aws/preflight';

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport';

/** An SDK error as the clients throw it. */
function sdkError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name} happened`), { name, ...extra });
}

describe('checkAws (the cheap call of each target)', () => {
  const sfn = mockClient(SFNClient);
  const sm = mockClient(SecretsManagerClient);
  const s3 = mockClient(S3Client);
  const machine = (): AwsTarget => ({
    kind: 'state-machine',
    arn: SM,
    client: new SFNClient({ region: 'eu-west-1' }),
    where: '--state-machine-arn',
    injected: true,
  });
  const secret = (use: 'read' | 'exists'): AwsTarget => ({
    kind: 'secret',
    secretId: 'ReportExport',
    client: new SecretsManagerClient({ region: 'eu-west-1' }),
    use,
    where: '--secret-id',
    injected: true,
  });
  const bucket = (): AwsTarget => ({
    kind: 'bucket',
    bucket: 'my-lake',
    prefix: 'calls',
    client: new S3Client({ region: 'eu-west-1' }),
    where: '--out',
    injected: true,
  });

  beforeEach(() => {
    sfn.reset();
    sm.reset();
    s3.reset();
  });
  afterEach(() => {
    sfn.reset();
    sm.reset();
    s3.reset();
  });

  it('passes when every cheap call answers', async () => {
    // Prepare
    sfn.on(DescribeStateMachineCommand).resolves({});
    sm.on(GetSecretValueCommand).resolves({});
    s3.on(ListObjectsV2Command).resolves({});

    // Act
    await checkAws('run', [machine(), secret('read'), bucket()], { env: {} });

    // Assess
    expect(sfn.commandCalls(DescribeStateMachineCommand)[0]?.args[0].input).toEqual({ stateMachineArn: SM });
    expect(s3.commandCalls(ListObjectsV2Command)[0]?.args[0].input).toEqual({
      Bucket: 'my-lake',
      Prefix: 'calls',
      MaxKeys: 1,
    });
  });

  it.each([
    { what: 'DescribeStateMachine', target: machine, mock: () => sfn.on(DescribeStateMachineCommand) },
    {
      what: 'DescribeSecret (login)',
      target: () => secret('exists'),
      mock: () => sm.on(DescribeSecretCommand),
    },
    { what: 'a listing of the bucket', target: bucket, mock: () => s3.on(ListObjectsV2Command) },
  ])(
    'lets the command go on when $what is denied (the credentials work; the command may hold other permissions)',
    async ({ target, mock }) => {
      // Prepare
      mock().rejects(sdkError('AccessDeniedException'));

      // Act + Assess
      await expect(checkAws('start', [target()], { env: {} })).resolves.toBeUndefined();
    },
  );

  it('lets the command go on when the check is throttled (a transient answer is the command’s to retry)', async () => {
    // Prepare
    sfn.on(DescribeStateMachineCommand).rejects(sdkError('ThrottlingException'));

    // Act + Assess
    await expect(checkAws('start', [machine()], { env: {} })).resolves.toBeUndefined();
  });

  it('exits 2 naming the permission when the secret the command reads next may not be read', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).rejects(sdkError('AccessDeniedException'));

    // Act
    const checked = checkAws('run', [secret('read')], { env: {} });

    // Assess
    await expect(checked).rejects.toBeInstanceOf(AwsSetupError);
    await expect(checked).rejects.toThrow(
      /may not read Secrets Manager secret ReportExport \(--secret-id\).*secretsmanager:GetSecretValue/,
    );
    await expect(checked).rejects.toMatchObject({ exitCode: 2 });
  });

  it('exits 2 naming the bucket when it does not exist', async () => {
    // Prepare
    s3.on(ListObjectsV2Command).rejects(sdkError('NoSuchBucket'));

    // Act + Assess
    await expect(checkAws('run', [bucket()], { env: {} })).rejects.toThrow(
      /S3 bucket s3:\/\/my-lake\/calls \(--out\) does not exist.*check the bucket name in --out/,
    );
  });

  it("exits 2 naming the bucket's region when the bucket is in another one", async () => {
    // Prepare
    s3.on(ListObjectsV2Command).rejects(
      sdkError('PermanentRedirect', { $response: { headers: { 'x-amz-bucket-region': 'eu-west-2' } } }),
    );

    // Act + Assess
    await expect(checkAws('run', [bucket()], { env: {} })).rejects.toThrow(
      /is in region eu-west-2.*set AWS_REGION=eu-west-2/,
    );
  });

  it.each([
    { name: 'TimeoutError', extra: {}, why: 'no answer within 10 s' },
    { name: 'Error', extra: { code: 'ECONNREFUSED' }, why: 'ECONNREFUSED' },
  ])(
    'exits 2 saying the endpoint cannot be reached when the call fails with $name $extra',
    async ({ name, extra, why }) => {
      // Prepare: what the SDK throws when its abort signal times out, or the network refuses.
      sfn.on(DescribeStateMachineCommand).rejects(sdkError(name, extra));

      // Act + Assess
      await expect(checkAws('start', [machine()], { env: {} })).rejects.toThrow(
        `cannot reach the AWS endpoint of region ? to check Step Functions state machine ${SM} (--state-machine-arn) (${why})`,
      );
    },
  );

  it('lists every problem in one message when several targets fail', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).rejects(sdkError('ResourceNotFoundException'));
    s3.on(ListObjectsV2Command).rejects(sdkError('NoSuchBucket'));

    // Act + Assess
    await expect(checkAws('run', [secret('read'), bucket()], { env: {} })).rejects.toThrow(
      /run cannot use AWS:\n {2}- Secrets Manager secret ReportExport .* does not exist.*\n {2}- S3 bucket s3:\/\/my-lake\/calls .* does not exist/,
    );
  });
});

describe('regionOfArn', () => {
  it.each([
    [SM, 'eu-west-1'],
    ['arn:aws:secretsmanager:us-east-2:123456789012:secret:ReportExport-AbCdEf', 'us-east-2'],
    ['ReportExport', undefined],
    ['arn:aws:states::123456789012:stateMachine:X', undefined],
  ])('reads the region of %s as %s', (arn, region) => {
    expect(regionOfArn(arn)).toBe(region);
  });
});
