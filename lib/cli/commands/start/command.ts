import { randomBytes } from 'node:crypto';
import { parseOrHelp, UsageError } from '../../../command-line';
import { checkAws } from '../../aws/preflight';
import { followChain, startExecution, stateMachineArnOf, stateMachineClient } from '../../aws/sfn-executions';
import { resolveConfig } from '../../shared/config';
import { DEPLOYED_PLAN_NOTE } from '../../shared/dry-run';
import { executionInputOf } from '../../shared/execution-input-options';
import type { IOStreams } from '../../shared/io-streams';
import { describeHeld, outcomeWarnings, runExitCode } from '../../shared/run-outcome';
import { checkedTenant } from '../../shared/tenant-check';
import { colors, progress } from '../../shared/terminal';
import { SFN_START_COMMAND } from './spec';
import { type StartDependencies, stackStart, startEachTenant } from './stack-tenants';

/**
 * The execution's name: `--name`, and with a tenant always beginning `<tenant>-` (the
 * console and ListExecutions then show whose it is): `<tenant>-<UTC time>-<random>` when no
 * name is given, which Step Functions would otherwise generate.
 */
export function executionName(name: string | undefined, tenant: string | undefined): string | undefined {
  if (tenant === undefined) return name;
  if (name !== undefined) {
    const named = name.startsWith(`${tenant}-`) ? name : `${tenant}-${name}`;
    if (named.length > 80)
      throw new UsageError(`--name with the tenant's prefix is over 80 characters: '${named}'`);
    return named;
  }
  const time = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${tenant}-${time}-${randomBytes(4).toString('hex')}`;
}

export async function sfnStartCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: StartDependencies = {},
): Promise<number> {
  const v = parseOrHelp(SFN_START_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const tenant = checkedTenant(v.tenant);
  const input = { ...executionInputOf(v), ...(tenant === undefined ? {} : { tenant }) };
  if (v.name !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(v.name)) {
    throw new UsageError(`--name must be 1 to 80 letters, digits, '-' or '_', got '${v.name}'`);
  }
  const name = executionName(v.name, tenant);
  if (v.stack !== undefined && v['state-machine-arn'] !== undefined) {
    throw new UsageError('give --stack or --state-machine-arn, not both');
  }
  if (v['all-tenants'] && v.stack === undefined) {
    throw new UsageError('--all-tenants needs --stack <name>: its registry lists the tenants');
  }
  const fromStack =
    v.stack === undefined
      ? undefined
      : await stackStart(v.stack, { tenant, allTenants: v['all-tenants'] }, io, deps);
  const arn =
    fromStack?.arn ?? stateMachineArnOf(await resolveConfig({ flags: v, env: io.env, cwd: io.cwd }));
  const { sfn, target } = stateMachineClient(arn, deps);
  await checkAws('start', [target], { env: io.env });
  if (fromStack?.tenants !== undefined) {
    const starts = fromStack.tenants.map((t) => ({
      tenant: t,
      name: executionName(v.name, t) as string,
      input: { ...input, tenant: t },
    }));
    if (v['dry-run']) {
      const plan = {
        dryRun: true,
        stateMachineArn: arn,
        executions: starts.map(({ name: n, input: i }) => ({ name: n, input: i })),
      };
      io.stdout.write(
        v.json
          ? `${JSON.stringify(plan)}\n`
          : `Dry run: would start ${starts.length} executions of ${arn}, one per enabled tenant:\n${starts.map((s) => `  ${s.name}  ${JSON.stringify(s.input)}\n`).join('')}${DEPLOYED_PLAN_NOTE}\n`,
      );
      return 0;
    }
    return startEachTenant(sfn, arn, starts, v.json, io);
  }
  if (v['dry-run']) {
    const plan = { dryRun: true, stateMachineArn: arn, executions: [{ name: name ?? null, input }] };
    io.stdout.write(
      v.json
        ? `${JSON.stringify(plan)}\n`
        : `Dry run: would start 1 execution of ${arn}${name ? ` named ${name}` : ''} with the input\n  ${JSON.stringify(input)}\n${DEPLOYED_PLAN_NOTE}\n`,
    );
    return 0;
  }
  const executionArn = await startExecution(sfn, arn, input, name);
  if (v['no-wait']) {
    io.stdout.write(
      v.json ? `${JSON.stringify({ executionArn, status: 'RUNNING' })}\n` : `${executionArn}\n`,
    );
    return 0;
  }
  io.stderr.write(`Started ${executionArn}\n`);
  const bar = progress(io.stderr, io.env);
  const c = colors(io.stderr, io.env);
  const { executions, last, outcome } = await followChain(sfn, executionArn, {
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    pollMs: v['poll-ms'],
    onEvent: (line, e) => {
      if (e.type?.endsWith('Failed')) bar.log(c.red(line));
      else bar.update(line);
    },
  });
  bar.done();
  if (v.json) {
    const { status, error, cause, output } = last;
    io.stdout.write(
      `${JSON.stringify({ executionArn, executions, status, error, cause, output, ...outcome })}\n`,
    );
  } else {
    const o = colors(io.stdout, io.env);
    const status = last.status === 'SUCCEEDED' ? o.green(last.status) : o.red(last.status);
    io.stdout.write(
      `${status}  ${last.executionArn}${executions.length > 1 ? ` (${executions.length} executions)` : ''}\n`,
    );
    for (const h of outcome.held) io.stdout.write(`  held ${describeHeld(h)}\n`);
    if (last.error !== null)
      io.stdout.write(`  error ${last.error}${last.cause ? `: ${last.cause.slice(0, 500)}` : ''}\n`);
  }
  for (const warning of outcomeWarnings(outcome)) io.stderr.write(`${warning}\n`);
  return runExitCode(last.status, outcome);
}
