import {
  CloudFormationClient,
  DescribeStacksCommand,
  type DescribeStacksCommandOutput,
} from '@aws-sdk/client-cloudformation';
import { AwsSetupError, quietAwsSdk } from './preflight';

/**
 * The outputs of a deployed report-export stack (`--stack <name>`): what the commands that
 * manage a deployment's tenants read instead of a flag per resource. The names are the
 * stack's CfnOutputs (lib/infra/report-export-stack.ts).
 */

/** The outputs a multi-tenant stack (`tenancy: 'multi'`) has, and what each is for. */
export const TENANCY_OUTPUTS = [
  'StateMachineArn',
  'BucketName',
  'DataLakeUri',
  'GlueDatabase',
  'TenantRegistryUri',
  'TenantSecretUri',
  'TenantSecretKeyArn',
  'TenantScheduleGroup',
  'TenantSchedulerRoleArn',
  'TenantDeadLetterQueueArn',
] as const;

export type TenancyOutputs = Record<(typeof TENANCY_OUTPUTS)[number], string>;

/** What tests replace: the CloudFormation client. */
export interface StackOutputsDependencies {
  cloudFormation?: () => CloudFormationClient;
}

/** The stack's outputs by key; an AwsSetupError (exit 2) naming the stack when it is not there. */
export async function stackOutputs(
  stack: string,
  deps: StackOutputsDependencies = {},
): Promise<ReadonlyMap<string, string>> {
  quietAwsSdk();
  const client = deps.cloudFormation?.() ?? new CloudFormationClient({});
  let found: DescribeStacksCommandOutput;
  try {
    found = await client.send(new DescribeStacksCommand({ StackName: stack }));
  } catch (cause) {
    const message = (cause as Error).message ?? String(cause);
    if ((cause as { name?: string }).name === 'ValidationError') {
      throw new AwsSetupError(
        `--stack ${stack}: no such stack in this account and region (${message}); check AWS_REGION and AWS_PROFILE`,
        { cause },
      );
    }
    throw new AwsSetupError(`--stack ${stack}: cannot read its outputs (DescribeStacks: ${message})`, {
      cause,
    });
  }
  const outputs = new Map<string, string>();
  for (const o of found.Stacks?.[0]?.Outputs ?? []) {
    if (o.OutputKey !== undefined && o.OutputValue !== undefined) outputs.set(o.OutputKey, o.OutputValue);
  }
  return outputs;
}

/**
 * The outputs of a multi-tenant stack; an AwsSetupError naming the missing ones, and saying
 * that a stack without TenantRegistryUri is a single-tenant deployment.
 */
export async function tenancyOutputs(
  stack: string,
  deps: StackOutputsDependencies = {},
): Promise<TenancyOutputs> {
  const outputs = await stackOutputs(stack, deps);
  if (!outputs.has('TenantRegistryUri')) {
    throw new AwsSetupError(
      `--stack ${stack} is a single-tenant deployment (no TenantRegistryUri output): deploy it with tenancy 'multi' to manage tenants`,
    );
  }
  const missing = TENANCY_OUTPUTS.filter((k) => !outputs.has(k));
  if (missing.length > 0) {
    throw new AwsSetupError(`--stack ${stack} lacks the outputs ${missing.join(', ')}: deploy it again`);
  }
  return Object.fromEntries(TENANCY_OUTPUTS.map((k) => [k, outputs.get(k) as string])) as TenancyOutputs;
}
