import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { FetchLike } from '../../api';
import { UsageError } from '../../command-line';
import type { LeaseStore, ObjectStore } from '../../stores';
import { leaseStoreFromUri, objectStoreFromUri } from '../../stores/aws';
import { type TenantRegistry, tenantRegistryFromUri } from '../../workflow';
import type { SecretLocation } from '../shared/config';
import type { IOStreams } from '../shared/io-streams';
import { quietAwsSdk, regionOfArn } from './preflight';
import { type S3ClientFactory, s3ClientFactory } from './s3-client';
import { secretsManagerClientFor } from './secret-access';
import { type StackOutputsDependencies, type TenancyOutputs, tenancyOutputs } from './stack-outputs';

/**
 * The deployment whose tenants a `tenants` subcommand manages: a local one (`--dir`, its
 * registry `<dir>/tenants/`, secrets `<dir>/secrets/<id>.json`, leases `<dir>/leases`, the
 * lake `--lake`), as `npm start` keeps it, or a multi-tenant stack (`--stack`, from its
 * outputs: the registry in S3, secrets `report-export/<stack>/tenants/<id>`, a schedule per
 * tenant).
 */

/** What tests (and embedding code) replace: the AWS clients and the service's fetch. */
export interface TenantsDependencies extends StackOutputsDependencies {
  scheduler?: () => SchedulerClient;
  secretsManager?: () => SecretsManagerClient;
  s3?: S3ClientFactory;
  fetch?: FetchLike;
}

interface DeploymentBase {
  registry: TenantRegistry;
  /** The lake's store and key prefix (run records, partitions). */
  lake: { store: ObjectStore; prefix: string; uri: string };
  /** The deployment's lease store: a tenant's token-refresh lease is `tenant=<t>/token-refresh` there. */
  leases: () => Promise<LeaseStore>;
  /** The tenant's secret, as `login` takes it. */
  secretOf(id: string): SecretLocation;
  /** Says where, for messages: `local deployment <dir>` or `stack <name>`. */
  describe: string;
}

export type TenantsDeployment =
  | (DeploymentBase & { kind: 'local'; workDir: string })
  | (DeploymentBase & {
      kind: 'aws';
      stack: string;
      outputs: TenancyOutputs;
      scheduler: SchedulerClient;
      secretsManager: SecretsManagerClient;
      s3: S3ClientFactory;
    });

/** The options every `tenants` subcommand takes to name its deployment. */
export interface DeploymentFlags {
  dir: string;
  lake: string;
  stack?: string | undefined;
}

/** The secret name of a tenant in a stack (the functions' TENANT_SECRET_URI, `{tenant}` filled). */
export function stackSecretName(outputs: Pick<TenancyOutputs, 'TenantSecretUri'>, id: string): string {
  return outputs.TenantSecretUri.replace(/^secretsmanager:/, '').replace('{tenant}', id);
}

/** The deployment the flags name; a stack's outputs are read (DescribeStacks) first. */
export async function openDeployment(
  v: DeploymentFlags,
  io: Pick<IOStreams, 'cwd' | 'env'>,
  deps: TenantsDependencies = {},
): Promise<TenantsDeployment> {
  if (v.stack === undefined) {
    const workDir = path.resolve(io.cwd, v.dir);
    const lakeDir = path.resolve(io.cwd, v.lake);
    const lakeUri = pathToFileURL(lakeDir).href;
    return {
      kind: 'local',
      workDir,
      describe: `local deployment ${workDir}`,
      registry: tenantRegistryFromUri('--dir', pathToFileURL(path.join(workDir, 'tenants')).href),
      lake: { ...objectStoreFromUri('--lake', lakeUri), uri: lakeUri },
      leases: async () => leaseStoreFromUri('--dir', pathToFileURL(path.join(workDir, 'leases')).href),
      secretOf: (id) => ({
        kind: 'file',
        file: path.join(workDir, 'secrets', `${id}.json`),
        where: `--dir ${v.dir}`,
      }),
    };
  }
  const outputs = await tenancyOutputs(v.stack, deps);
  const s3 = deps.s3 ?? s3ClientFactory({}, io.env);
  const adapter = { s3 };
  const bucket = /^s3:\/\/([^/]+)/.exec(outputs.DataLakeUri)?.[1];
  if (bucket === undefined)
    throw new UsageError(`--stack ${v.stack}: DataLakeUri ${outputs.DataLakeUri} is not s3://`);
  return {
    kind: 'aws',
    stack: v.stack,
    outputs,
    describe: `stack ${v.stack}`,
    registry: tenantRegistryFromUri('TenantRegistryUri', outputs.TenantRegistryUri, adapter),
    lake: { ...objectStoreFromUri('DataLakeUri', outputs.DataLakeUri, adapter), uri: outputs.DataLakeUri },
    // The functions' LEASE_STORE_URI (lib/infra: the bucket's `_leases`), so a refresh here and
    // one of a running execution take the same lease.
    leases: async () => leaseStoreFromUri('LEASE_STORE_URI', `s3://${bucket}/_leases`, adapter),
    secretOf: (id) => ({
      kind: 'secrets-manager',
      secretId: stackSecretName(outputs, id),
      where: `--stack ${v.stack}`,
    }),
    scheduler: deps.scheduler?.() ?? schedulerClientFor(outputs.StateMachineArn),
    secretsManager: deps.secretsManager?.() ?? secretsManagerClientFor(outputs.TenantSecretKeyArn),
    s3,
  };
}

/** A Scheduler client in the state machine's region. */
function schedulerClientFor(stateMachineArn: string): SchedulerClient {
  quietAwsSdk();
  const region = regionOfArn(stateMachineArn);
  return new SchedulerClient(region === undefined ? {} : { region });
}
