import { UsageError } from '../../../command-line';
import type { ExecutionInput } from '../../../workflow';
import { tenantRegistryFromUri } from '../../../workflow';
import type { S3ClientFactory } from '../../aws/s3-client';
import { s3ClientFactory } from '../../aws/s3-client';
import { type SfnDependencies, startExecution } from '../../aws/sfn-executions';
import { type StackOutputsDependencies, stackOutputs } from '../../aws/stack-outputs';
import type { IOStreams } from '../../shared/io-streams';
import { registeredEntry } from '../../shared/known-tenants';

/** What `start --stack` may replace besides Step Functions: CloudFormation and S3 (the registry). */
export interface StartDependencies extends SfnDependencies, StackOutputsDependencies {
  s3?: S3ClientFactory;
}

/**
 * `start --stack <name>`: the stack's state machine, and whether it serves many tenants. A
 * multi-tenant stack needs `--tenant` or `--all-tenants` (its Plan refuses an input without a
 * tenant: better said before anything starts); a single-tenant one refuses both. With
 * `--all-tenants`, the enabled tenants of its registry.
 */
export async function stackStart(
  stack: string,
  v: { tenant: string | undefined; allTenants: boolean },
  io: Pick<IOStreams, 'env'>,
  deps: StartDependencies,
): Promise<{ arn: string; tenants: string[] | undefined }> {
  const outputs = await stackOutputs(stack, deps);
  const arn = outputs.get('StateMachineArn');
  if (arn === undefined)
    throw new UsageError(`--stack ${stack} has no StateMachineArn output: is it a report-export stack?`);
  const registryUri = outputs.get('TenantRegistryUri');
  if (registryUri === undefined) {
    if (v.tenant !== undefined || v.allTenants) {
      throw new UsageError(
        `--stack ${stack} serves one tenant (no tenant registry): leave out --tenant and --all-tenants`,
      );
    }
    return { arn, tenants: undefined };
  }
  if (v.tenant !== undefined && v.allTenants)
    throw new UsageError('give --tenant <id> or --all-tenants, not both');
  if (v.tenant === undefined && !v.allTenants) {
    throw new UsageError(
      `--stack ${stack} serves many tenants: give --tenant <id> (report-export tenants list --stack ${stack}) or --all-tenants`,
    );
  }
  const registry = tenantRegistryFromUri('TenantRegistryUri', registryUri, {
    s3: deps.s3 ?? s3ClientFactory({}, io.env),
  });
  // A tenant the registry does not hold: exit 2 naming the ones it does, before anything starts.
  if (v.tenant !== undefined) {
    await registeredEntry(registry, v.tenant, `stack ${stack}`);
    return { arn, tenants: undefined };
  }
  const tenants = (await registry.list()).filter((t) => t.enabled).map((t) => t.id);
  return { arn, tenants };
}

/**
 * One execution per tenant, each input the flags' with its tenant, named `<tenant>-...`;
 * started one after another and not followed (a night of every tenant is the schedules'; this
 * is a manual re-run). A start that fails is reported and does not stop the others: exit 1.
 */
export async function startEachTenant(
  sfn: NonNullable<ReturnType<NonNullable<SfnDependencies['sfn']>>>,
  arn: string,
  starts: { tenant: string; name: string; input: ExecutionInput }[],
  json: boolean,
  io: Pick<IOStreams, 'stdout' | 'stderr'>,
): Promise<number> {
  const results: { tenant: string; executionArn: string | null; error: string | null }[] = [];
  for (const s of starts) {
    try {
      const executionArn = await startExecution(sfn, arn, s.input, s.name);
      results.push({ tenant: s.tenant, executionArn, error: null });
      if (!json) io.stdout.write(`${s.tenant}  ${executionArn}\n`);
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      results.push({ tenant: s.tenant, executionArn: null, error: message });
      io.stderr.write(`${s.tenant}: not started: ${message}\n`);
    }
  }
  if (json) io.stdout.write(`${JSON.stringify({ stateMachineArn: arn, executions: results })}\n`);
  if (starts.length === 0) io.stderr.write('no enabled tenant: nothing started\n');
  return results.some((r) => r.error !== null) ? 1 : 0;
}
