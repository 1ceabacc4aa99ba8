import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseOrHelp, UsageError } from '../../../command-line';
import { leaseStoreFromUri, objectStoreFromUri } from '../../../stores/aws';
import { regionOfArn } from '../../aws/preflight';
import { s3ClientFactory } from '../../aws/s3-client';
import type { AwsClients } from '../../aws/secret-access';
import { openDeployment } from '../../aws/tenants-deployment';
import type { IOStreams } from '../../shared/io-streams';
import { type DoctorClients, type DoctorDependencies, doctorClients } from './aws-clients';
import { configSettingsCheck, type StackSettings, stackConfigCheck } from './config-checks';
import { lakeChecks } from './lake-checks';
import { lakeFormationCheck } from './lake-formation-check';
import { lambdaChecks } from './lambda-checks';
import {
  defaultLoginCheck,
  type LoginCheckContext,
  stackLoginCheck,
  tenantLoginChecks,
} from './login-checks';
import { registryChecks } from './registry-checks';
import {
  type Check,
  type CheckId,
  check,
  type DoctorTarget,
  doctorReport,
  Redactor,
  renderDoctorReport,
} from './report';
import { DOCTOR_COMMAND } from './spec';
import { credentialsCheck, type DeployedStack, scheduleGroupCheck, stackCheck } from './stack-checks';

/** The checks a failed prerequisite leaves unmade: each said, skipped, with why. */
function skipped(ids: readonly CheckId[], why: string): Check[] {
  return ids.map((id) => check(id, 'skip', why));
}

/** The account's checks (`--check`): Lake Formation, Lambda, the stack's schedule group. */
async function accountChecks(
  clients: DoctorClients,
  settings: StackSettings,
  stack: DeployedStack | undefined,
  signal: AbortSignal | undefined,
): Promise<Check[]> {
  const database = stack?.outputs.get('GlueDatabase') ?? settings.databaseName;
  const [lakeFormation, lambda, group] = await Promise.all([
    lakeFormationCheck(database, clients, signal),
    lambdaChecks(settings, clients, signal),
    scheduleGroupCheck(stack, clients, signal),
  ]);
  return [lakeFormation, ...lambda, group];
}

/** The local deployment `npm start` keeps (`--dir`, `--lake`): registry, logins, lake; with --check the account too. */
async function localChecks(
  v: { dir: string; lake: string; check: boolean },
  settings: StackSettings,
  config: Awaited<ReturnType<typeof configSettingsCheck>>['config'],
  io: IOStreams,
  deps: DoctorDependencies,
  ctx: LoginCheckContext,
): Promise<{ checks: Check[]; target: DoctorTarget }> {
  const d = await openDeployment({ dir: v.dir, lake: v.lake }, io, deps);
  if (d.kind !== 'local') throw new Error('a local deployment was asked for');
  const lakeDir = path.resolve(io.cwd, v.lake);
  const registryDir = path.join(d.workDir, 'tenants');
  const registry = await registryChecks(d, {
    ...objectStoreFromUri('--dir', pathToFileURL(registryDir).href),
    describe: (name) => path.join(registryDir, name),
  });
  const checks = [
    ...registry.checks,
    await defaultLoginCheck(config, io, ctx),
    ...(await tenantLoginChecks(d, registry.entries, ctx)),
    ...(await lakeChecks(lakeDir)),
  ];
  if (v.check) {
    const clients = doctorClients(undefined, deps);
    const credentials = await credentialsCheck(clients, io.signal);
    checks.push(credentials);
    checks.push(
      ...(credentials.status === 'fail'
        ? skipped(
            ['aws.lake-formation', 'aws.lambda-concurrency', 'aws.lambda-memory', 'aws.schedule-group'],
            'no usable AWS credentials (aws.credentials)',
          )
        : await accountChecks(clients, settings, undefined, io.signal)),
    );
  }
  return { checks, target: { kind: 'local', dir: d.workDir, lake: lakeDir } };
}

/** A deployed stack (`--stack`, with --check): its outputs, registry or secret, logins, and the account it is in. */
async function stackChecks(
  name: string,
  settings: StackSettings,
  io: IOStreams,
  deps: DoctorDependencies,
  ctx: LoginCheckContext,
): Promise<{ checks: Check[]; target: DoctorTarget }> {
  const target: DoctorTarget = { kind: 'stack', stack: name, tenancy: null };
  const dependent: CheckId[] = [
    'aws.stack',
    'registry.entries',
    'aws.lake-formation',
    'aws.lambda-concurrency',
    'aws.lambda-memory',
    'aws.schedule-group',
  ];
  const credentials = await credentialsCheck(doctorClients(undefined, deps), io.signal);
  if (credentials.status === 'fail')
    return {
      checks: [credentials, ...skipped(dependent, 'no usable AWS credentials (aws.credentials)')],
      target,
    };
  const found = await stackCheck(name, deps);
  if (found.stack === undefined) {
    return {
      checks: [
        credentials,
        found.check,
        ...skipped(dependent.slice(1), `no outputs of stack ${name} (aws.stack)`),
      ],
      target,
    };
  }
  const stack = found.stack;
  const clients = doctorClients(regionOfArn(stack.outputs.get('StateMachineArn') as string), deps);
  const checks = [credentials, found.check];
  if (stack.tenancy === 'multi') {
    const d = await openDeployment({ dir: '', lake: '', stack: name }, io, deps);
    if (d.kind !== 'aws') throw new Error('a stack deployment was asked for');
    const uri = d.outputs.TenantRegistryUri;
    const registry = await registryChecks(d, {
      ...objectStoreFromUri('TenantRegistryUri', uri, { s3: d.s3 }),
      describe: (entry) => `${uri.replace(/\/$/, '')}/${entry}`,
    });
    checks.push(...registry.checks, ...(await tenantLoginChecks(d, registry.entries, ctx)));
  } else {
    const bucket = stack.outputs.get('BucketName') as string;
    const s3 = deps.s3 ?? s3ClientFactory({}, io.env);
    // The functions' LEASE_STORE_URI, so this refresh and a running execution's take one lease.
    const leases = async () => leaseStoreFromUri('LEASE_STORE_URI', `s3://${bucket}/_leases`, { s3 });
    checks.push(await stackLoginCheck(stack.outputs.get('SecretArn') as string, bucket, leases, ctx));
  }
  checks.push(...(await accountChecks(clients, settings, stack, io.signal)));
  return { checks, target: { ...target, tenancy: stack.tenancy } };
}

/**
 * `report-export doctor`: every check, then one report (a list for people, or one JSON
 * object); the exit status is the worst check's (DOCTOR_EXIT_CODES). Offline unless --check.
 */
export async function doctorCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: DoctorDependencies = {},
): Promise<number> {
  const v = parseOrHelp(DOCTOR_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  if (v.stack !== undefined && !v.check) {
    throw new UsageError('--stack names a deployed stack, which only --check asks AWS about: add --check');
  }
  const redactor = new Redactor();
  redactor.add(io.env.REPORT_EXPORT_CLIENT_SECRET, io.env.AWS_SECRET_ACCESS_KEY, io.env.AWS_SESSION_TOKEN);
  const clients: AwsClients = {
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
    ...(deps.secretsManager === undefined ? {} : { secretsManager: deps.secretsManager }),
    ...(deps.s3 === undefined ? {} : { s3: deps.s3 }),
  };
  const ctx: LoginCheckContext = { refresh: v.check, clients, redactor, signal: io.signal };
  const settings = await configSettingsCheck(v, io);
  const stackConfig = await stackConfigCheck(v['cdk-json'], io.cwd);
  const rest =
    v.stack === undefined
      ? await localChecks(v, stackConfig.settings, settings.config, io, deps, ctx)
      : await stackChecks(v.stack, stackConfig.settings, io, deps, ctx);
  const report = doctorReport([settings.check, stackConfig.check, ...rest.checks], {
    mode: v.check ? 'check' : 'offline',
    target: rest.target,
    redactor,
  });
  io.stdout.write(v.json ? `${JSON.stringify(report)}\n` : renderDoctorReport(report, io));
  return report.exitCode;
}
