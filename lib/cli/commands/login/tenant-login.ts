import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { tokenRefreshLease } from '../../../workflow';
import {
  openDeployment,
  type TenantsDependencies,
  type TenantsDeployment,
} from '../../aws/tenants-deployment';
import { resolveConfig } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { registeredEntry } from '../../shared/known-tenants';
import { parseTenantsSubcommand } from '../../shared/tenant-check';
import { TENANTS_LOGIN_COMMAND } from '../../shared/tenants-spec';
import { type LoginDependencies, signInInto } from './command';

/**
 * Creates a stack tenant's secret when it has none yet, encrypted with the stack's key for
 * tenants' secrets (the TenantAccess role may decrypt only through Secrets Manager, and only
 * its own tenant's). An existing secret is left as it is: the login is stored as a new version.
 */
async function ensureStackSecret(
  d: Extract<TenantsDeployment, { kind: 'aws' }>,
  id: string,
  name: string,
): Promise<boolean> {
  try {
    await d.secretsManager.send(
      new CreateSecretCommand({
        Name: name,
        KmsKeyId: d.outputs.TenantSecretKeyArn,
        Description: `report-export: the service login of tenant ${id} (report-export tenants login)`,
        Tags: [{ Key: 'report-export:tenant', Value: id }],
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceExistsException') return false;
    throw error;
  }
}

/** `tenants login <id>`: login's browser flow into that tenant's secret. */
export async function tenantsLogin(
  argv: readonly string[],
  io: IOStreams,
  deps: LoginDependencies & TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_LOGIN_COMMAND, argv, io, 'one');
  if (parsed === undefined) return 0;
  const { v } = parsed;
  const id = parsed.id as string;
  const d = await openDeployment(v, io, deps);
  // Added first (report-export tenants add <id> ...): the unknown one is named with the others.
  const entry = await registeredEntry(d.registry, id, d.describe, null);
  // The tenant's region unless a flag or the configuration names the service.
  const region = v.region ?? (entry.region === 'local' ? undefined : entry.region);
  const config = await resolveConfig({ flags: { ...v, region }, env: io.env, cwd: io.cwd });
  const location = d.secretOf(id);
  if (location.kind === 'file') await mkdir(path.dirname(location.file), { recursive: true, mode: 0o700 });
  else if (d.kind === 'aws' && (await ensureStackSecret(d, id, location.secretId)))
    io.stderr.write(`Created the secret ${location.secretId} (key ${d.outputs.TenantSecretKeyArn})\n`);
  const aws = d.kind === 'aws' ? { secretsManager: () => d.secretsManager, s3: d.s3 } : {};
  return signInInto(
    v,
    config,
    location,
    io,
    { ...deps, ...aws },
    {
      refreshLease: { leases: await d.leases(), key: tokenRefreshLease(id) },
    },
  );
}
