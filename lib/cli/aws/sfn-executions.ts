import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { ConfigError } from '../../command-line';
import type { ExecutionInput, FinalizeOutput } from '../../workflow';
import type { ResolvedConfig } from '../shared/config';
import { type RunOutcome, runOutcome } from '../shared/run-outcome';
import { type AwsTarget, quietAwsSdk, regionOfArn } from './preflight';
import { type FollowedExecution, followExecution } from './sfn-follow';

/**
 * The deployed state machine, as `start` and `backfill` both use it: which one (the
 * configured ARN), a client in its region, starting an execution, and following it through
 * the executions it continues in.
 */

/** What tests replace: the Step Functions client and the pause between polls. */
export interface SfnDependencies {
  sfn?: () => SFNClient;
  sleep?: (ms: number) => Promise<void>;
}

/** The configured state machine; a ConfigError naming the flag and variable when none. */
export function stateMachineArnOf(config: ResolvedConfig): string {
  const arn = config.stateMachineArn?.value;
  if (arn === undefined) {
    throw new ConfigError(
      'needs --state-machine-arn (or REPORT_EXPORT_STATE_MACHINE_ARN, or stateMachineArn in the config file)',
    );
  }
  return arn;
}

/**
 * A Step Functions client in the state machine's own region (the ARN's fourth field), so
 * no AWS_REGION is needed when an ARN is given; credentials from the usual AWS chain. The
 * SDK reads that chain (AWS_PROFILE, AWS_ACCESS_KEY_ID ...) from the process's own
 * environment, not from a command's `io.env`: a command cannot hand it another one.
 */
export function sfnClientFor(stateMachineArn: string): SFNClient {
  quietAwsSdk();
  const region = regionOfArn(stateMachineArn);
  return new SFNClient(region === undefined ? {} : { region });
}

/**
 * The client of `deps` (a test's double) or one for the ARN, and the pre-flight target
 * of the state machine on it (credentials, region and DescribeStateMachine), for
 * {@link checkAws} before any execution starts.
 */
export function stateMachineClient(
  stateMachineArn: string,
  deps: SfnDependencies,
): { sfn: SFNClient; target: AwsTarget } {
  const sfn = deps.sfn?.() ?? sfnClientFor(stateMachineArn);
  return {
    sfn,
    target: {
      kind: 'state-machine',
      arn: stateMachineArn,
      client: sfn,
      where: '--state-machine-arn',
      injected: deps.sfn !== undefined,
    },
  };
}

/** Starts one execution; returns its ARN. */
export async function startExecution(
  sfn: SFNClient,
  stateMachineArn: string,
  input: ExecutionInput,
  name?: string,
): Promise<string> {
  const out = await sfn.send(
    new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input), ...(name ? { name } : {}) }),
  );
  if (!out.executionArn) throw new Error('StartExecution returned no executionArn');
  return out.executionArn;
}

/**
 * Follows an execution and the executions it continues in (at most `maxChain`): the last
 * one's outcome, and what the chain held and left partial (every execution's Finalize output).
 */
export async function followChain(
  sfn: SFNClient,
  executionArn: string,
  options: Parameters<typeof followExecution>[2] & { maxChain?: number } = {},
): Promise<{ executions: string[]; last: FollowedExecution; outcome: RunOutcome }> {
  const executions = [executionArn];
  let last = await followExecution(sfn, executionArn, options);
  const outputs = [last.output];
  while (last.status === 'SUCCEEDED' && last.next !== null) {
    if (executions.length >= (options.maxChain ?? 200)) break;
    executions.push(last.next);
    last = await followExecution(sfn, last.next, options);
    outputs.push(last.output);
  }
  const summaries = outputs.filter((o): o is Partial<FinalizeOutput> => typeof o === 'object' && o !== null);
  return { executions, last, outcome: runOutcome(summaries) };
}
