import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DescribeStateMachineCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { ConfigError } from '../../command-line';

/**
 * What a command needs of AWS, checked before it does any work: credentials the SDK's
 * default chain resolves, a region, and the resource itself through one cheap call the
 * command makes anyway (DescribeStateMachine, GetSecretValue/DescribeSecret, a one-key
 * ListObjectsV2). A miss is an {@link AwsSetupError} (exit 2) saying what is missing and
 * how to fix it, before any request to the service, any state written, any sign-in.
 */

/**
 * The SDK warns once per process, on stderr, that its releases after January 2027 need
 * Node 22; a command's output is no place for it. Set unless the user set it. The SDK
 * reads the process's own environment (as it does for credentials), so this one sets it.
 */
export function quietAwsSdk(env: NodeJS.ProcessEnv = process.env): void {
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** AWS is not usable as the command needs it (no credentials, no region, a missing resource): exit 2. */
export class AwsSetupError extends ConfigError {
  override readonly name: string = 'AwsSetupError';
}

/** The region of an ARN (its fourth field), or undefined for a name or an ARN without one. */
export function regionOfArn(arnOrName: string): string | undefined {
  if (!arnOrName.startsWith('arn:')) return undefined;
  const region = arnOrName.split(':')[3];
  return region === undefined || region === '' ? undefined : region;
}

/** The parts of an SDK client's resolved configuration the check reads. */
interface SdkConfig {
  region: () => Promise<string>;
  credentials: () => Promise<{ accessKeyId: string; $source?: Record<string, string> }>;
}

interface TargetBase {
  /** The flag or setting that names the resource, e.g. `--out`, for messages. */
  where: string;
  /**
   * A client the caller was given (a test double, an embedding's own client): its
   * credentials and region are the caller's business; only the cheap call is made.
   */
  injected?: boolean;
}

/** A resource a command is about to use. */
export type AwsTarget = TargetBase &
  (
    | { kind: 'state-machine'; arn: string; client: SFNClient }
    | {
        kind: 'secret';
        secretId: string;
        client: SecretsManagerClient;
        /** `read`: the command reads the value next (GetSecretValue); `exists`: it writes one (login). */
        use: 'read' | 'exists';
      }
    | { kind: 'bucket'; bucket: string; prefix: string; client: S3Client; endpoint?: string }
  );

interface AwsCheckOptions {
  /** Bound on resolving credentials and on each cheap call. Default 10 s. */
  timeoutMs?: number;
  /** The command's environment (`io.env`): what the messages name (AWS_PROFILE, AWS_REGION ...). */
  env: Readonly<Record<string, string | undefined>>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The fix for missing credentials, the same for every command. */
const CREDENTIALS_FIX =
  'fix: run `aws configure` (keys) or `aws sso login --profile <name>` and set AWS_PROFILE=<name>, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys)';

const GENERIC_CREDENTIALS_MESSAGE = /could not load credentials from any providers/i;

/** The service and resource of a target, as a message names them. */
function describeTarget(t: AwsTarget): string {
  switch (t.kind) {
    case 'state-machine':
      return `Step Functions state machine ${t.arn} (${t.where})`;
    case 'secret':
      return `Secrets Manager secret ${t.secretId} (${t.where})`;
    case 'bucket':
      return `S3 bucket s3://${t.bucket}${t.prefix === '' ? '' : `/${t.prefix}`} (${t.where})`;
  }
}

function regionFix(t: AwsTarget): string {
  switch (t.kind) {
    case 'state-machine':
      return 'give the state machine ARN with its region (arn:aws:states:<region>:...), or set AWS_REGION';
    case 'secret':
      return 'set AWS_REGION (e.g. AWS_REGION=eu-west-1) or region in your AWS profile, or give the secret as its full ARN (arn:aws:secretsmanager:<region>:...)';
    case 'bucket':
      return "set AWS_REGION to the bucket's region (e.g. AWS_REGION=eu-west-1) or region in your AWS profile";
  }
}

/** Resolves `provider()` or rejects after `ms` with a TimeoutError (the timer never holds the process). */
async function within<T>(ms: number, provider: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${Math.round(ms / 100) / 10} s`);
      error.name = 'TimeoutError';
      reject(error);
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([provider(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the credentials came from, in words (the SDK marks them with `$source`). */
function credentialSource(
  credentials: { $source?: Record<string, string> } | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const source = Object.keys(credentials?.$source ?? {});
  if (source.includes('CREDENTIALS_ENV_VARS')) return 'AWS_ACCESS_KEY_ID in the environment';
  const profile = env.AWS_PROFILE ?? 'default';
  if (source.some((s) => s.startsWith('CREDENTIALS_SSO'))) return `the SSO login of profile ${profile}`;
  if (source.some((s) => s.startsWith('CREDENTIALS_PROFILE'))) return `profile ${profile}`;
  if (source.includes('CREDENTIALS_IMDS')) return 'the instance metadata service';
  if (source.includes('CREDENTIALS_HTTP')) return 'the container credentials endpoint';
  return "the AWS SDK's default credential chain";
}

const REJECTED_CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'InvalidAccessKeyId',
  'InvalidToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'TokenRefreshRequired',
  'AuthFailure',
]);
const NOT_FOUND = new Set([
  'ResourceNotFoundException',
  'StateMachineDoesNotExist',
  'NoSuchBucket',
  'NotFound',
]);
const ACCESS_DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'Forbidden']);
const WRONG_REGION = new Set([
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
]);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  Region?: string;
  $response?: { headers?: Record<string, string | undefined> };
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

/** The network error code of a failure (on the error or a cause of it), if it is one. */
function networkCode(error: unknown): string | undefined {
  for (let e = error as SdkError | undefined, depth = 0; e && depth < 5; e = e.cause as SdkError, depth++) {
    if (e.code !== undefined && NETWORK.has(e.code)) return e.code;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timeout';
  }
  return undefined;
}

/** The cheap call of a target: a request the command would make anyway. */
function probe(t: AwsTarget, signal: AbortSignal): Promise<unknown> {
  switch (t.kind) {
    case 'state-machine':
      return t.client.send(new DescribeStateMachineCommand({ stateMachineArn: t.arn }), {
        abortSignal: signal,
      });
    case 'secret':
      return t.use === 'read'
        ? t.client.send(new GetSecretValueCommand({ SecretId: t.secretId }), { abortSignal: signal })
        : t.client.send(new DescribeSecretCommand({ SecretId: t.secretId }), { abortSignal: signal });
    case 'bucket':
      return t.client.send(new ListObjectsV2Command({ Bucket: t.bucket, Prefix: t.prefix, MaxKeys: 1 }), {
        abortSignal: signal,
      });
  }
}

/** What a failed cheap call says about the setup, or undefined when it says nothing the command would not meet. */
function problemOf(
  t: AwsTarget,
  error: unknown,
  context: { region: string | undefined; source: string; timeoutMs: number; env: NodeJS.ProcessEnv },
): string | undefined {
  const e = (error ?? {}) as SdkError;
  const name = e.name ?? e.code ?? 'Error';
  const what = describeTarget(t);
  const detail = e.message ? `: ${e.message}` : '';
  if (REJECTED_CREDENTIALS.has(name)) {
    return `AWS refused the credentials from ${context.source} (${name}${detail}) when checking ${what}; they are wrong or expired: renew them (\`aws sso login\`, new keys or a new session token), or ${CREDENTIALS_FIX.replace(/^fix: /, '')}`;
  }
  if (NOT_FOUND.has(name) || (t.kind === 'bucket' && e.$metadata?.httpStatusCode === 404)) {
    const inRegion = context.region === undefined ? '' : ` in region ${context.region}`;
    const fix =
      t.kind === 'bucket'
        ? `check the bucket name in ${t.where}, and AWS_REGION`
        : t.kind === 'secret'
          ? `check ${t.where} and the region (AWS_REGION or the secret's ARN); the deployment creates the secret`
          : `check ${t.where} (the deployment's output ReportExportStateMachineArn) and the account of the credentials`;
    return `${what} does not exist${inRegion} for the credentials from ${context.source} (${name}): ${fix}`;
  }
  if (WRONG_REGION.has(name) || (t.kind === 'bucket' && e.$metadata?.httpStatusCode === 301)) {
    const actual = e.$response?.headers?.['x-amz-bucket-region'] ?? e.Region;
    return `${what} is in ${actual === undefined ? 'another region' : `region ${actual}`}, not ${context.region ?? 'the configured one'}: set AWS_REGION=${actual ?? '<its region>'}`;
  }
  if (ACCESS_DENIED.has(name)) {
    // Authenticated: the credentials work. Only a secret the command reads next with this
    // very call is certain to fail; other calls may be allowed where this one is not.
    if (t.kind === 'secret' && t.use === 'read') {
      return `the credentials from ${context.source} may not read ${what} (${name}): grant secretsmanager:GetSecretValue on it (and kms:Decrypt on its key when it has its own), or use credentials that have it`;
    }
    return undefined;
  }
  const network = networkCode(error);
  if (network !== undefined) {
    const endpoint =
      (t.kind === 'bucket' ? t.endpoint : undefined) ??
      context.env.AWS_ENDPOINT_URL ??
      `the AWS endpoint of region ${context.region ?? '?'}`;
    const why = network === 'timeout' ? `no answer within ${context.timeoutMs / 1000} s` : network;
    return `cannot reach ${endpoint} to check ${what} (${why}): check the network, a proxy (HTTPS_PROXY), the region${t.kind === 'bucket' && t.endpoint !== undefined ? ' and --s3-endpoint' : ''}`;
  }
  return undefined;
}

/**
 * Checks every target (credentials and region of each client, then one cheap call each,
 * in parallel); throws one {@link AwsSetupError} listing what is missing and how to fix it.
 * `command` names what needs AWS, e.g. `start`. A failure the cheap call cannot judge
 * (throttling, a 5xx, a permission only the check's call needs) lets the command go on.
 */
export async function checkAws(
  command: string,
  targets: readonly AwsTarget[],
  options: AwsCheckOptions,
): Promise<void> {
  if (targets.length === 0) return;
  quietAwsSdk();
  const env = options.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const problems: string[] = [];
  const regions = new Map<AwsTarget, string | undefined>();
  const sources = new Map<AwsTarget, string>();
  let credentialsProblem: string | undefined;
  const needCredentials: string[] = [];
  for (const t of targets) {
    if (t.injected) {
      sources.set(t, 'the given client');
      continue;
    }
    const config = t.client.config as unknown as SdkConfig;
    try {
      regions.set(t, await within(timeoutMs, () => config.region()));
    } catch {
      regions.set(t, undefined);
      problems.push(`no AWS region for ${describeTarget(t)}: ${regionFix(t)}`);
    }
    if (credentialsProblem !== undefined) {
      // Every client here has the same default chain: one miss is every one's.
      needCredentials.push(describeTarget(t));
      continue;
    }
    try {
      sources.set(t, credentialSource(await within(timeoutMs, () => config.credentials()), env));
    } catch (error) {
      needCredentials.push(describeTarget(t));
      const e = error as SdkError;
      if (e.name === 'TimeoutError') {
        credentialsProblem = `AWS credentials did not resolve within ${timeoutMs / 1000} s (the SDK's default chain was still waiting on a provider: instance metadata, SSO, credential_process)`;
      } else {
        const profile = env.AWS_PROFILE === undefined ? '' : ` (AWS_PROFILE=${env.AWS_PROFILE})`;
        const said =
          e.message !== undefined && !GENERIC_CREDENTIALS_MESSAGE.test(e.message) ? `: ${e.message}` : '';
        credentialsProblem ??= `no AWS credentials${profile}: the AWS SDK's default chain (environment, shared config and credentials files, SSO, web identity, container and instance metadata) found none${said}`;
      }
    }
  }
  if (credentialsProblem !== undefined) {
    problems.unshift(`${credentialsProblem}; needed for ${needCredentials.join(', ')}; ${CREDENTIALS_FIX}`);
  }
  if (problems.length === 0) {
    const found = await Promise.all(
      targets.map(async (t) => {
        try {
          await probe(t, AbortSignal.timeout(timeoutMs));
          return undefined;
        } catch (error) {
          return problemOf(t, error, {
            region: regions.get(t),
            source: sources.get(t) ?? "the AWS SDK's default credential chain",
            timeoutMs,
            env,
          });
        }
      }),
    );
    problems.push(...found.filter((p): p is string => p !== undefined));
  }
  if (problems.length === 0) return;
  const list = problems.length === 1 ? ` ${problems[0]}` : `\n${problems.map((p) => `  - ${p}`).join('\n')}`;
  throw new AwsSetupError(`${command} cannot use AWS:${list}`);
}
