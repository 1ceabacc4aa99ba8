import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { type CliRun, runCli } from '../../support/cli-process';
import { awsJsonError, type RecordingServer, startRecordingServer } from '../shared/recording-server';

/**
 * The AWS pre-flight of `start`, `backfill`, `run --out s3://` and `login --secret-id`, run
 * as the built program with no AWS credentials (or fake ones): exit 2 saying what is
 * missing and how to fix it, before any request to the service or Step Functions, any
 * state written, any sign-in. Every AWS endpoint is a recording server on 127.0.0.1
 * (AWS_ENDPOINT_URL): nothing reaches AWS.
 */

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport';

let work: string;
/** Stands in for every AWS endpoint. */
let aws: RecordingServer;
/** Stands in for the reporting service and its authorization server. */
let service: RecordingServer;

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'aws-preflight-'));
  await writeFile(path.join(work, 'credentials'), '');
  await writeFile(path.join(work, 'config'), '');
  aws = await startRecordingServer();
  service = await startRecordingServer();
});

afterEach(async () => {
  await aws?.close();
  await service?.close();
  await rm(work, { recursive: true, force: true });
});

/** No credentials anywhere the SDK's default chain looks, no region, AWS at the recorder. */
const noAws = (): NodeJS.ProcessEnv => ({
  HOME: work,
  AWS_SHARED_CREDENTIALS_FILE: path.join(work, 'credentials'),
  AWS_CONFIG_FILE: path.join(work, 'config'),
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_ENDPOINT_URL: aws.url,
});

/** Credentials the chain resolves (from the environment), still no region. */
const fakeCredentials = (): NodeJS.ProcessEnv => ({
  ...noAws(),
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEEXAMPLE00',
  AWS_SECRET_ACCESS_KEY: 'example-secret',
});

const cli = (args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> =>
  runCli(args, { cleanEnv: true, env, timeoutMs: 30_000 });

/** What every miss says: no SDK noise, the fix, the exit status. */
function expectSetupError(r: CliRun): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('cannot use AWS');
  expect(r.stderr).not.toContain('NodeVersionSupportWarning');
  expect(r.stderr).not.toContain('Could not load credentials from any providers');
}

function expectNoCredentialsMessage(r: CliRun): void {
  expect(r.stderr).toContain('no AWS credentials');
  expect(r.stderr).toContain('aws configure');
  expect(r.stderr).toContain('AWS_PROFILE');
  expect(r.stderr).toContain('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
}

/** A login secret file (mode 0600) for the recording service, with a valid access token. */
async function secretFileForService(): Promise<string[]> {
  const file = path.join(work, 'login.json');
  const secret = {
    service: {
      authUrl: service.url,
      baseUrl: `${service.url}/api`,
      clientId: 'app',
      clientSecret: 'secret',
      redirectUri: 'http://127.0.0.1:8000/',
      refreshToken: 'refresh',
      accessToken: 'access',
      accessTokenExpiresAt: Date.now() + 3_600_000,
    },
  };
  await writeFile(file, JSON.stringify(secret), { mode: 0o600 });
  return ['--secret-file', file, '--lease-store', pathToFileURL(path.join(work, 'leases')).href];
}

describe('start and backfill check AWS before starting anything', () => {
  it('start exits 2 naming the missing credentials and the fix, and sends nothing, when none are configured', async () => {
    // Act
    const r = await cli(['start', '--date', '2026-11-20', '--state-machine-arn', SM], noAws());

    // Assess
    expectSetupError(r);
    expectNoCredentialsMessage(r);
    expect(r.stderr).toContain(`Step Functions state machine ${SM} (--state-machine-arn)`);
    expect(aws.requests).toEqual([]);
  });

  it('backfill exits 2 before writing its state file or starting a chunk when no credentials are configured', async () => {
    // Prepare
    const stateFile = path.join(work, 'backfill.json');

    // Act
    const r = await cli(
      [
        'backfill',
        '--from',
        '2025-01-01',
        '--to',
        '2026-10-31',
        '--state-machine-arn',
        SM,
        '--state-file',
        stateFile,
      ],
      noAws(),
    );

    // Assess
    expectSetupError(r);
    expectNoCredentialsMessage(r);
    expect(r.stdout).toBe('');
    expect(aws.requests).toEqual([]);
    await expect(stat(stateFile)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    {
      name: 'UnrecognizedClientException',
      error: awsJsonError(
        400,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      ),
      message:
        'AWS refused the credentials from AWS_ACCESS_KEY_ID in the environment (UnrecognizedClientException',
    },
    {
      name: 'StateMachineDoesNotExist',
      error: awsJsonError(400, 'StateMachineDoesNotExist', `State Machine Does Not Exist: '${SM}'`),
      message: `Step Functions state machine ${SM} (--state-machine-arn) does not exist in region eu-west-1`,
    },
  ])(
    'start exits 2 without StartExecution when DescribeStateMachine answers $name',
    async ({ error, message }) => {
      // Prepare
      await aws.close();
      aws = await startRecordingServer(() => error);

      // Act
      const r = await cli(['start', '--date', '2026-11-20', '--state-machine-arn', SM], fakeCredentials());

      // Assess
      expectSetupError(r);
      expect(r.stderr).toContain(message);
      const targets = aws.requests.map((q) => q.headers['x-amz-target']);
      expect(targets.length).toBeGreaterThan(0);
      expect(new Set(targets)).toEqual(new Set(['AWSStepFunctions.DescribeStateMachine']));
    },
  );
});

describe('runs --dir s3:// checks AWS before listing', () => {
  it('exits 2 naming the missing credentials and the bucket, without the SDK warning, when none are configured', async () => {
    // Act
    const r = await cli(['runs', '--dir', 's3://my-lake/exports'], noAws());

    // Assess
    expectSetupError(r);
    expectNoCredentialsMessage(r);
    expect(r.stderr).toContain('runs cannot use AWS');
    expect(r.stderr).toContain('S3 bucket s3://my-lake/exports (--dir)');
    expect(r.stderr).not.toContain('S3 list failed');
    expect(r.stdout).toBe('');
    expect(aws.requests).toEqual([]);
  });
});

/** `run` of one day into `out`, with the login's options. */
const runToS3 = (out: string, login: string[]): string[] => [
  'run',
  '--date',
  '2026-11-20',
  '--time-zone',
  'Europe/London',
  '--out',
  out,
  ...login,
];

describe('run --out s3:// checks AWS before asking the service anything', () => {
  it('exits 2 naming the missing credentials and the bucket, and the service receives no request', async () => {
    // Prepare
    const login = await secretFileForService();

    // Act
    const r = await cli(runToS3('s3://my-lake/calls', login), noAws());

    // Assess
    expectSetupError(r);
    expectNoCredentialsMessage(r);
    expect(r.stderr).toContain('S3 bucket s3://my-lake/calls (--out)');
    expect(r.stderr).not.toContain('Reading the login');
    expect(service.requests).toEqual([]);
    expect(aws.requests).toEqual([]);
  });

  it('exits 2 asking for AWS_REGION when credentials resolve but no region is set', async () => {
    // Prepare
    const login = await secretFileForService();

    // Act
    const r = await cli(runToS3('s3://my-lake/calls', login), fakeCredentials());

    // Assess
    expectSetupError(r);
    expect(r.stderr).toContain('no AWS region for S3 bucket s3://my-lake/calls (--out)');
    expect(r.stderr).toContain('AWS_REGION');
    expect(r.stderr).not.toContain('no AWS credentials');
    expect(service.requests).toEqual([]);
    expect(aws.requests).toEqual([]);
  });
});

describe('run --out s3:// with a bucket that does not exist', () => {
  let s3: Awaited<ReturnType<typeof startLocalS3>>;

  beforeAll(async () => {
    s3 = await startLocalS3('preflight-lake');
  });

  afterAll(async () => {
    await s3?.close();
  });

  it('exits 2 naming the bucket before the service receives a request', async () => {
    // Prepare
    const login = await secretFileForService();

    // Act
    const r = await cli(runToS3('s3://no-such-lake/calls', login), {
      ...fakeCredentials(),
      AWS_REGION: 'us-east-1',
      REPORT_EXPORT_S3_ENDPOINT: s3.endpoint,
    });

    // Assess
    expectSetupError(r);
    expect(r.stderr).toContain('S3 bucket s3://no-such-lake/calls (--out) does not exist');
    expect(service.requests).toEqual([]);
  });
});

describe('login --secret-id checks AWS before the user signs in', () => {
  const loginArgs = () => [
    'login',
    '--secret-id',
    'ReportExport',
    '--base-url',
    `${service.url}/api`,
    '--auth-url',
    service.url,
    '--client-id',
    'app',
    '--redirect-uri',
    'http://127.0.0.1:0/',
    '--no-open',
    '--timeout',
    '60',
  ];

  it('exits 2 naming the missing credentials before printing the sign-in URL or listening for it', async () => {
    // Act
    const r = await cli(loginArgs(), { ...noAws(), REPORT_EXPORT_CLIENT_SECRET: 'secret' });

    // Assess
    expectSetupError(r);
    expectNoCredentialsMessage(r);
    expect(r.stderr).toContain('Secrets Manager secret ReportExport (--secret-id)');
    expect(r.stderr).not.toContain('Open this URL');
    expect(r.stderr).not.toContain('/connect/authorize');
    expect(service.requests).toEqual([]);
    expect(aws.requests).toEqual([]);
  });

  it('exits 2 asking for a region (or the secret ARN) when credentials resolve but no region is set', async () => {
    // Act
    const r = await cli(loginArgs(), { ...fakeCredentials(), REPORT_EXPORT_CLIENT_SECRET: 'secret' });

    // Assess
    expectSetupError(r);
    expect(r.stderr).toContain('no AWS region for Secrets Manager secret ReportExport (--secret-id)');
    expect(r.stderr).toContain('AWS_REGION');
    expect(r.stderr).toContain('full ARN');
    expect(r.stderr).not.toContain('Open this URL');
    expect(service.requests).toEqual([]);
    expect(aws.requests).toEqual([]);
  });

  it('exits 2 before the sign-in when the secret does not exist', async () => {
    // Prepare
    await aws.close();
    aws = await startRecordingServer(() =>
      awsJsonError(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret."),
    );

    // Act
    const r = await cli(loginArgs(), {
      ...fakeCredentials(),
      AWS_REGION: 'eu-west-1',
      REPORT_EXPORT_CLIENT_SECRET: 'secret',
    });

    // Assess
    expectSetupError(r);
    expect(r.stderr).toContain(
      'Secrets Manager secret ReportExport (--secret-id) does not exist in region eu-west-1',
    );
    expect(r.stderr).not.toContain('Open this URL');
    expect(aws.requests.map((q) => q.headers['x-amz-target'])).toContain('secretsmanager.DescribeSecret');
    expect(service.requests).toEqual([]);
  });
});

describe('workspaces, reports and directory --secret-id check AWS before reading the login', () => {
  it.each([
    { command: 'workspaces', args: ['workspaces', 'list'] },
    { command: 'reports', args: ['reports', 'list'] },
    { command: 'directory', args: ['directory', 'search', '--directory', 'dir-1', '--text', 'Ann'] },
  ])(
    '$command exits 2 naming the missing credentials and the secret, and sends nothing',
    async ({ args }) => {
      // Act
      const r = await cli(
        [...args, '--secret-id', 'ReportExport', '--base-url', `${service.url}/api`],
        noAws(),
      );

      // Assess
      expectSetupError(r);
      expectNoCredentialsMessage(r);
      expect(r.stderr).toContain('Secrets Manager secret ReportExport (--secret-id)');
      expect(service.requests).toEqual([]);
      expect(aws.requests).toEqual([]);
    },
  );
});
