import type { S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { tenantAdapterOptions, tenantCredentials } from '../../../lib/stores/aws';

const ROLE = 'arn:aws:iam::123456789012:role/report-export-TenantAccess';
const HOUR_MS = 3_600_000;

/** An AssumeRole answer whose keys name the tenant its session was tagged with. */
function sessionOf(tenant: string, expiresAt: number, n = 1) {
  return {
    Credentials: {
      AccessKeyId: `AKIA-${tenant}-${n}`,
      SecretAccessKey: `secret-${tenant}`,
      SessionToken: `token-${tenant}`,
      Expiration: new Date(expiresAt),
    },
  };
}

const sts = mockClient(STSClient);
afterEach(() => {
  sts.reset();
});

describe('tenantCredentials', () => {
  it('assumes the role with the session tag tenant=<id> and a session name naming the tenant', async () => {
    // Prepare
    sts
      .on(AssumeRoleCommand)
      .callsFake((input: { Tags: { Value: string }[] }) =>
        sessionOf(input.Tags[0]?.Value ?? '', Date.now() + HOUR_MS),
      );
    const client = new STSClient({ region: 'eu-west-2' });
    // Act
    const acme = await tenantCredentials({ roleArn: ROLE, tenant: 'acme', sts: client })();
    const beta = await tenantCredentials({ roleArn: ROLE, tenant: 'beta', sts: client })();
    // Assess
    expect(acme.accessKeyId).toBe('AKIA-acme-1');
    expect(beta.accessKeyId).toBe('AKIA-beta-1');
    expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
      {
        RoleArn: ROLE,
        RoleSessionName: 'report-export-tenant-acme',
        DurationSeconds: 3600,
        Tags: [{ Key: 'tenant', Value: 'acme' }],
      },
      {
        RoleArn: ROLE,
        RoleSessionName: 'report-export-tenant-beta',
        DurationSeconds: 3600,
        Tags: [{ Key: 'tenant', Value: 'beta' }],
      },
    ]);
  });

  it('keeps a session until five minutes before it expires, then assumes the role again', async () => {
    // Prepare
    let now = 1_000_000;
    let n = 0;
    sts.on(AssumeRoleCommand).callsFake(() => sessionOf('acme', now + HOUR_MS, ++n));
    const provider = tenantCredentials({
      roleArn: ROLE,
      tenant: 'acme',
      sts: new STSClient({ region: 'eu-west-2' }),
      now: () => now,
    });
    // Act
    const first = await provider();
    now += HOUR_MS - 300_001;
    const stillFirst = await provider();
    now += 1;
    const renewed = await provider();
    // Assess
    expect([first.accessKeyId, stillFirst.accessKeyId, renewed.accessKeyId]).toEqual([
      'AKIA-acme-1',
      'AKIA-acme-1',
      'AKIA-acme-2',
    ]);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it('makes one AssumeRole for concurrent callers, and tries again after a failure', async () => {
    // Prepare
    sts
      .on(AssumeRoleCommand)
      .rejectsOnce(
        Object.assign(new Error('not authorized to perform sts:TagSession'), { name: 'AccessDenied' }),
      )
      .resolves(sessionOf('acme', Date.now() + HOUR_MS));
    const provider = tenantCredentials({
      roleArn: ROLE,
      tenant: 'acme',
      sts: new STSClient({ region: 'eu-west-2' }),
    });
    // Act
    const failures = await Promise.allSettled([provider(), provider()]);
    const after = await Promise.all([provider(), provider()]);
    // Assess: the refusal names the tenant and the permissions the call needs.
    expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect((failures[0] as PromiseRejectedResult).reason.message).toBe(
      `Could not assume ${ROLE} for tenant 'acme': not authorized to perform sts:TagSession; needs sts:AssumeRole on ${ROLE}, sts:TagSession on ${ROLE}`,
    );
    expect(after.map((c) => c.accessKeyId)).toEqual(['AKIA-acme-1', 'AKIA-acme-1']);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });
});

describe('tenantAdapterOptions', () => {
  it("gives one S3 client per tenant that signs with that tenant's session", async () => {
    // Prepare
    sts
      .on(AssumeRoleCommand)
      .callsFake((input: { Tags: { Value: string }[] }) =>
        sessionOf(input.Tags[0]?.Value ?? '', Date.now() + HOUR_MS),
      );
    const stsClient = new STSClient({ region: 'eu-west-2' });
    const acme = tenantAdapterOptions({ roleArn: ROLE, tenant: 'acme', sts: stsClient });
    const beta = tenantAdapterOptions({ roleArn: ROLE, tenant: 'beta', sts: stsClient });
    // Act
    const acmeS3 = acme.s3?.() as S3Client;
    const betaS3 = beta.s3?.() as S3Client;
    const acmeKey = await acmeS3.config.credentials();
    const betaKey = await betaS3.config.credentials();
    // Assess
    expect(acme.s3?.()).toBe(acmeS3);
    expect(acmeS3).not.toBe(betaS3);
    expect(acmeKey.accessKeyId).toBe('AKIA-acme-1');
    expect(betaKey.accessKeyId).toBe('AKIA-beta-1');
  });
});
