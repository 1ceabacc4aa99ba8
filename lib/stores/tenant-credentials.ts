import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, type AssumeRoleCommandOutput, STSClient } from '@aws-sdk/client-sts';
import { accessDeniedHint, permissionsOf, STORE_OPERATION_CALLS } from './aws-calls';
import type { AdapterOptions } from './from-uri';
import { createGlueClient } from './glue-catalog';
import { createS3Client } from './s3-store';

/** Temporary AWS credentials, as the SDK clients take them. */
export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** What an SDK client's `credentials` option accepts: called before each request, it may cache. */
export type CredentialProvider = () => Promise<TemporaryCredentials>;

/** The session tag the tenant access role's policies read (`${aws:PrincipalTag/tenant}`). */
export const TENANT_SESSION_TAG = 'tenant';

export interface TenantCredentialsOptions {
  /** The role every tenant's session assumes (TENANT_ROLE_ARN). */
  roleArn: string;
  /** The tenant id: the session's `tenant` tag and part of its name. */
  tenant: string;
  /** STS client (one per process). Default: a client from the environment. */
  sts?: STSClient;
  /** Assume the role again this long before the session expires. Default 5 minutes. */
  renewBeforeMs?: number;
  /** Session length asked for. Default 3600 s (a role's default maximum). */
  durationSeconds?: number;
  now?: () => number;
}

/** STS client of the tenant sessions: regional endpoint, bounded retries. */
export function createStsClient(): STSClient {
  return new STSClient({ maxAttempts: 3 });
}

/** Longest an AssumeRole call may take. */
const ASSUME_ROLE_TIMEOUT_MS = 10_000;

/**
 * Credentials of one tenant's session: `sts:AssumeRole` on the tenant access role with the
 * session tag `tenant=<id>`, so every S3, Secrets Manager and Glue call made with them is
 * allowed only on that tenant's resources (the role's policies name
 * `${aws:PrincipalTag/tenant}`). The session is kept until `renewBeforeMs` before it expires
 * and shared by concurrent callers (one AssumeRole at a time); a failed call is not kept,
 * so the next request tries again. The session name names the tenant (CloudTrail shows it).
 *
 * @example
 * const s3 = createS3Client({ credentials: tenantCredentials({ roleArn, tenant: 'acme' }) });
 */
export function tenantCredentials(options: TenantCredentialsOptions): CredentialProvider {
  const now = options.now ?? Date.now;
  const renewBeforeMs = options.renewBeforeMs ?? 300_000;
  let sts = options.sts;
  let held: TemporaryCredentials | undefined;
  let pending: Promise<TemporaryCredentials> | undefined;
  const assume = async (): Promise<TemporaryCredentials> => {
    sts ??= createStsClient();
    const request = {
      RoleArn: options.roleArn,
      RoleSessionName: `report-export-tenant-${options.tenant}`,
      DurationSeconds: options.durationSeconds ?? 3600,
      Tags: [{ Key: TENANT_SESSION_TAG, Value: options.tenant }],
    };
    let c: AssumeRoleCommandOutput['Credentials'];
    try {
      const out = await sts.send(new AssumeRoleCommand(request), {
        abortSignal: AbortSignal.timeout(ASSUME_ROLE_TIMEOUT_MS),
      });
      c = out.Credentials;
    } catch (cause) {
      const needs = accessDeniedHint(
        cause,
        permissionsOf(STORE_OPERATION_CALLS.tenantSession.assume, {
          roleArn: options.roleArn,
          tenant: options.tenant,
        }),
      );
      throw new Error(
        `Could not assume ${options.roleArn} for tenant '${options.tenant}': ${(cause as Error).message}${needs}`,
        { cause },
      );
    }
    if (
      c?.AccessKeyId === undefined ||
      c.SecretAccessKey === undefined ||
      c.SessionToken === undefined ||
      c.Expiration === undefined
    ) {
      throw new Error(
        `AssumeRole of ${options.roleArn} for tenant '${options.tenant}' returned no credentials`,
      );
    }
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration,
    };
  };
  return async () => {
    if (held !== undefined && held.expiration.getTime() - renewBeforeMs > now()) return held;
    pending ??= assume().then(
      (credentials) => {
        held = credentials;
        pending = undefined;
        return credentials;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
}

/** A factory that builds its client once, on first use. */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/**
 * The adapter options of one tenant's stores: S3, Secrets Manager and Glue clients (one
 * each, built on first use) that sign with the tenant's session ({@link tenantCredentials}).
 * Pass them to objectStoreFromUri, secretStoreFromUri, leaseStoreFromUri, catalogFromUri.
 */
export function tenantAdapterOptions(options: TenantCredentialsOptions): AdapterOptions {
  const credentials = tenantCredentials(options);
  return {
    s3: once(() => createS3Client({ credentials })),
    secretsManager: once(() => new SecretsManagerClient({ credentials })),
    glue: once(() => createGlueClient({ credentials })),
  };
}
