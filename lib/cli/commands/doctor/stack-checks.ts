import { GetScheduleGroupCommand } from '@aws-sdk/client-scheduler';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { stackOutputs } from '../../aws/stack-outputs';
import {
  awsErrorName,
  awsErrorText,
  callOptions,
  type DoctorClients,
  type DoctorDependencies,
  isAccessDenied,
} from './aws-clients';
import { type Check, check } from './report';

/** The fix of credentials that do not work, as every AWS command of the CLI says it. */
const CREDENTIALS_FIX =
  'aws sso login --profile <name> and AWS_PROFILE=<name>, or aws configure, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); AWS_REGION names the region';

/** `aws.credentials`: STS GetCallerIdentity, so each other check's failure is its own, not missing credentials. */
export async function credentialsCheck(
  clients: DoctorClients,
  signal: AbortSignal | undefined,
): Promise<Check> {
  try {
    const me = await clients.sts.send(new GetCallerIdentityCommand({}), callOptions(signal));
    const region = await clients.sts.config.region().catch(() => undefined);
    return check(
      'aws.credentials',
      'ok',
      `account ${me.Account ?? '?'} as ${me.Arn ?? '?'}${region === undefined ? '' : `, region ${region}`}`,
    );
  } catch (error) {
    return check('aws.credentials', 'fail', `no usable AWS credentials or region: ${awsErrorText(error)}`, {
      fix: CREDENTIALS_FIX,
    });
  }
}

/** What the checks know of a deployed stack. */
export interface DeployedStack {
  name: string;
  outputs: ReadonlyMap<string, string>;
  tenancy: 'single' | 'multi';
}

/** `aws.stack`: the stack's outputs (DescribeStacks), which name its secret or registry, database and schedule group. */
export async function stackCheck(
  name: string,
  deps: DoctorDependencies,
): Promise<{ check: Check; stack: DeployedStack | undefined }> {
  let outputs: ReadonlyMap<string, string>;
  try {
    outputs = await stackOutputs(name, deps);
  } catch (error) {
    return {
      check: check('aws.stack', 'fail', (error as Error).message, {
        subject: name,
        fix: 'deploy it (npx cdk deploy), or name the stack and region it is deployed in (--stack, AWS_REGION)',
      }),
      stack: undefined,
    };
  }
  const tenancy = outputs.has('TenantRegistryUri') ? 'multi' : 'single';
  const needed =
    tenancy === 'multi'
      ? [
          'StateMachineArn',
          'BucketName',
          'GlueDatabase',
          'TenantRegistryUri',
          'TenantSecretUri',
          'TenantScheduleGroup',
        ]
      : ['StateMachineArn', 'BucketName', 'GlueDatabase', 'SecretArn'];
  const missing = needed.filter((k) => !outputs.has(k));
  if (missing.length > 0) {
    return {
      check: check(
        'aws.stack',
        'fail',
        `lacks the outputs ${missing.join(', ')} (deployed by an older version?)`,
        {
          subject: name,
          fix: `deploy it again from this clone: npx cdk deploy ${name}`,
        },
      ),
      stack: undefined,
    };
  }
  return {
    check: check(
      'aws.stack',
      'ok',
      `${tenancy}-tenant, database ${outputs.get('GlueDatabase')}, ${outputs.get('StateMachineArn')}`,
      {
        subject: name,
      },
    ),
    stack: { name, outputs, tenancy },
  };
}

/**
 * `aws.schedule-group`: the Scheduler group the stack's schedules live in (a multi-tenant
 * stack's TenantScheduleGroup, where `tenants add` creates each tenant's; a single-tenant
 * stack's nightly schedule is in the account's `default` group). Without it no tenant can be
 * added and no night starts.
 */
export async function scheduleGroupCheck(
  stack: DeployedStack | undefined,
  clients: DoctorClients,
  signal: AbortSignal | undefined,
): Promise<Check> {
  if (stack === undefined) {
    return check(
      'aws.schedule-group',
      'skip',
      'no --stack: the stack creates its group when it is deployed (multi-tenant), or uses default',
    );
  }
  const group = stack.tenancy === 'multi' ? (stack.outputs.get('TenantScheduleGroup') as string) : 'default';
  try {
    const found = await clients.scheduler.send(
      new GetScheduleGroupCommand({ Name: group }),
      callOptions(signal),
    );
    if (found.State !== undefined && found.State !== 'ACTIVE') {
      return check(
        'aws.schedule-group',
        'fail',
        `group ${group} is ${found.State}: no schedule can be made in it`,
        {
          subject: group,
          fix: `deploy the stack again once it is gone (npx cdk deploy ${stack.name}) to recreate it`,
        },
      );
    }
    return check('aws.schedule-group', 'ok', `group ${group} is ${found.State ?? 'there'}`, {
      subject: group,
    });
  } catch (error) {
    if (awsErrorName(error) === 'ResourceNotFoundException') {
      return check(
        'aws.schedule-group',
        'fail',
        `group ${group} of stack ${stack.name} does not exist: ${stack.tenancy === 'multi' ? 'tenants add cannot schedule a tenant, and no tenant night starts' : 'the nightly schedule cannot exist'}`,
        { subject: group, fix: `deploy the stack again (npx cdk deploy ${stack.name}) to recreate it` },
      );
    }
    return check(
      'aws.schedule-group',
      isAccessDenied(error) ? 'warn' : 'fail',
      `cannot read group ${group}: ${awsErrorText(error)}`,
      {
        subject: group,
        fix: isAccessDenied(error)
          ? 'use credentials allowed scheduler:GetScheduleGroup'
          : 'run doctor --check again',
      },
    );
  }
}
