import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { manifestKey, partKey } from '../../lib/export/layout';
import { STATE_NAMES } from '../../lib/infra/state-names';
import { AWS_CALLS, type IamPermission } from '../../lib/stores/aws-calls';
import { parseS3Uri } from '../../lib/stores/from-uri';
import {
  type DeclaredCall,
  functionAwsCalls,
  lambdaRuntimeCalls,
  type StoreEnvironment,
  stateMachineAwsCalls,
  WORKFLOW_FUNCTIONS,
  type WorkflowFunctionName,
} from '../../lib/workflow/aws-calls';
import { synthStack } from './stack-synth';
import { ACCOUNT, REGION, type RolePrincipal, TemplateIam } from './template-iam';

/**
 * IAM, evaluated: every AWS call the workflow's functions and its state machine make
 * (lib/workflow/aws-calls.ts, expanded through lib/stores/aws-calls.ts), with the keys and
 * ARNs of the synthesized stack, is run through an IAM policy simulator against the roles'
 * policies and the targets' resource policies; so are calls that must be refused.
 */

type State = {
  Resource?: string;
  Parameters?: Record<string, unknown>;
  ItemProcessor?: { States: Record<string, State> };
};

interface WorkflowFunction {
  name: WorkflowFunctionName;
  arn: string;
  role: RolePrincipal;
  env: StoreEnvironment;
  logGroupArn: string;
}

/** The deployment as the template describes it: the state machine, what it invokes and notifies. */
function readDeployment(iam: TemplateIam) {
  const [[smId, sm] = []] = iam.ofType('AWS::StepFunctions::StateMachine');
  if (smId === undefined || sm === undefined) throw new Error('no state machine in the template');
  const definition = JSON.parse(iam.resolve(sm.Properties?.DefinitionString) as string) as {
    States: Record<string, State>;
  };
  const states: Record<string, State> = {};
  const collect = (s: Record<string, State>) => {
    for (const [name, state] of Object.entries(s)) {
      states[name] = state;
      if (state.ItemProcessor !== undefined) collect(state.ItemProcessor.States);
    }
  };
  collect(definition.States);
  const stateOf = (name: string) => {
    const state = states[name];
    if (state === undefined) throw new Error(`no state ${name} in the definition`);
    return state;
  };

  const functions = WORKFLOW_FUNCTIONS.map((name): WorkflowFunction => {
    // The function a Task invokes: its Resource (payloadResponseOnly) or its FunctionName.
    const task = stateOf(STATE_NAMES[name]);
    const arn = task.Resource?.startsWith('arn:aws:lambda:')
      ? task.Resource
      : String(task.Parameters?.FunctionName);
    const props = iam.resources[iam.idOf('AWS::Lambda::Function', arn)]?.Properties ?? {};
    const logGroup = iam.resolve((props.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup);
    const functionName = arn.slice(arn.lastIndexOf(':') + 1);
    return {
      name,
      arn,
      role: iam.role(iam.resolve(props.Role) as string, functionName),
      env: iam.resolve((props.Environment as { Variables: unknown }).Variables) as StoreEnvironment,
      logGroupArn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${String(logGroup ?? `/aws/lambda/${functionName}`)}`,
    };
  });

  const topicArn = String(stateOf(STATE_NAMES.notifyFailure).Parameters?.TopicArn);
  const topic = iam.resources[iam.idOf('AWS::SNS::Topic', topicArn)];
  const key = String(iam.resolve(topic?.Properties?.KmsMasterKeyId));
  return {
    stateMachineArn: iam.arnOf(smId),
    stateMachineRole: iam.role(iam.resolve(sm.Properties?.RoleArn) as string, 'states'),
    functions,
    alarmTopicArn: topicArn,
    alarmTopicKeyArn: key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`,
  };
}

interface Row {
  who: string;
  principal: RolePrincipal;
  why: string;
  call: string;
  permission: IamPermission;
}

function rows(who: string, principal: RolePrincipal, calls: readonly DeclaredCall[]): Row[] {
  return calls.flatMap((c) =>
    c.permissions.map((permission) => ({ who, principal, why: c.why, call: c.call, permission })),
  );
}

/** One row per distinct permission (many steps need the same one); the first step names it. */
function distinct(all: readonly Row[]): Row[] {
  const seen = new Map<string, Row>();
  for (const r of all) {
    const p = r.permission;
    const key = `${r.who} ${p.action} ${p.resource} ${JSON.stringify(p.context ?? {})}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

// Prepare (at collection: the tables are built from the synthesized template).
// dataStartDate: required by the configuration; any date gives the same IAM.
const iam = new TemplateIam(
  synthStack({ dataStartDate: '2021-06-01' }).toJSON() as ConstructorParameters<typeof TemplateIam>[0],
);
const deployment = readDeployment(iam);
const fn = (name: WorkflowFunctionName) => {
  const found = deployment.functions.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no function ${name}`);
  return found;
};
const functionCalls = deployment.functions.map((f) => ({ f, calls: functionAwsCalls(f.name, f.env) }));
const stateMachine = deployment.stateMachineRole;

const ALLOWED: Row[] = distinct([
  ...functionCalls.flatMap(({ f, calls }) =>
    rows(f.name, f.role, [...calls, ...lambdaRuntimeCalls(f.logGroupArn)]),
  ),
  ...rows(
    'stateMachine',
    stateMachine,
    stateMachineAwsCalls({
      stateMachineArn: deployment.stateMachineArn,
      functionArns: Object.fromEntries(deployment.functions.map((f) => [f.name, f.arn])) as Record<
        WorkflowFunctionName,
        string
      >,
      alarmTopicArn: deployment.alarmTopicArn,
      alarmTopicKeyArn: deployment.alarmTopicKeyArn,
    }),
  ),
]);

// The keys and ARNs the refusals are about: the lake's, a part, another bucket, another secret.
const exporter = fn('exportResults');
const lake = parseS3Uri('OBJECT_STORE_URI', exporter.env.OBJECT_STORE_URI);
const reportId = (JSON.parse(exporter.env.REPORTS) as { id: string }[])[0]?.id ?? '';
const layout = {
  prefix: lake.prefix,
  dataset: 'calls',
  reportId,
  csvExtension: '.csv',
} as const;
const part = `arn:aws:s3:::${lake.bucket}/${partKey(layout, 'parquet', '2026-11-18', 0)}`;
const manifest = `arn:aws:s3:::${lake.bucket}/${manifestKey(layout, 'parquet', '2026-11-18')}`;
const otherBuckets = iam
  .ofType('AWS::S3::Bucket')
  .map(([id]) => iam.arnOf(id))
  .filter((arn) => arn !== `arn:aws:s3:::${lake.bucket}`);
const otherSecret = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:another-service-AbCdEf`;
const ownSecret = exporter.env.SECRET_URI;
const otherStateMachine = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:AnotherWorkflow`;

const deny = (
  who: WorkflowFunctionName | 'stateMachine',
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult = 'ImplicitlyDenied',
  context?: Record<string, string>,
) => ({
  who,
  principal: who === 'stateMachine' ? stateMachine : fn(who).role,
  why,
  permission: { action, resource, ...(context === undefined ? {} : { context }) },
  expected,
});

const DENIED = [
  deny(
    'exportResults',
    'writing outside the lake prefix',
    's3:PutObject',
    `arn:aws:s3:::${lake.bucket}/other/x.parquet`,
  ),
  deny(
    'exportResults',
    'deleting outside the lake prefix',
    's3:DeleteObject',
    `arn:aws:s3:::${lake.bucket}/other/x.parquet`,
  ),
  ...otherBuckets.map((bucket) =>
    deny(
      'exportResults',
      'writing another bucket of the stack',
      's3:PutObject',
      `${bucket}/${lake.prefix}/x.parquet`,
    ),
  ),
  deny(
    'exportResults',
    'writing a bucket outside the stack',
    's3:PutObject',
    'arn:aws:s3:::someone-elses-bucket/lake/x.parquet',
  ),
  deny('exportResults', 'writing the lake without TLS', 's3:PutObject', part, 'ExplicitlyDenied', {
    'aws:SecureTransport': 'false',
  }),
  ...(['requestReport', 'checkStatus', 'exportResults', 'plan', 'finalize'] as const).map((who) =>
    deny(who, 'reading another secret', 'secretsmanager:GetSecretValue', otherSecret),
  ),
  deny(
    'plan',
    'reading the service secret (it never calls the service)',
    'secretsmanager:GetSecretValue',
    ownSecret,
  ),
  deny('finalize', 'writing the service secret', 'secretsmanager:PutSecretValue', ownSecret),
  deny('plan', 'writing the lake', 's3:PutObject', part),
  deny('plan', 'reading the lake', 's3:GetObject', part),
  deny('requestReport', 'writing the lake', 's3:PutObject', part),
  deny('checkStatus', 'deleting parts', 's3:DeleteObject', part),
  deny('finalize', 'deleting parts', 's3:DeleteObject', part),
  deny('finalize', 'writing a part (outside runs/)', 's3:PutObject', part),
  deny('finalize', 'replacing a manifest', 's3:PutObject', manifest),
  deny('finalize', 'reading the lake', 's3:GetObject', part),
  deny('stateMachine', 'starting another state machine', 'states:StartExecution', otherStateMachine),
  deny(
    'stateMachine',
    'invoking a function outside the workflow',
    'lambda:InvokeFunction',
    `arn:aws:lambda:${REGION}:${ACCOUNT}:function:another`,
  ),
  deny(
    'stateMachine',
    'publishing to another topic',
    'sns:Publish',
    `arn:aws:sns:${REGION}:${ACCOUNT}:another-topic`,
  ),
  ...WORKFLOW_FUNCTIONS.map((who) =>
    deny(who, 'starting an execution', 'states:StartExecution', deployment.stateMachineArn),
  ),
];

/** A row's test title, whole (vitest shortens `$name` values past 40 characters). */
const titled = <R extends { who: string; why: string; permission: IamPermission }>(all: readonly R[]) =>
  all.map((r): [string, R] => {
    const { action, resource, context } = r.permission;
    const conditions = context === undefined ? '' : ` with ${JSON.stringify(context)}`;
    return [`${r.who} ${action} on ${resource}${conditions} (${r.why})`, r];
  });

describe('IAM of the synthesized stack', () => {
  it.each(titled(ALLOWED))('allows %s', async (_, row) => {
    // Act
    const result = await iam.evaluate(row.principal, row.permission);

    // Assess
    expect(result, `${row.who}: ${row.call} (${row.why})`).toBe('Allowed');
  });

  it.each(titled(DENIED))('refuses %s', async (_, row) => {
    // Act
    const result = await iam.evaluate(row.principal, row.permission);

    // Assess
    expect(result).toBe(row.expected);
  });

  it('evaluates every call of the stores for some function when the calls are declared', () => {
    // Act
    const checked = new Set(functionCalls.flatMap(({ calls }) => calls.map((c) => c.call)));

    // Assess
    expect(Object.keys(AWS_CALLS).filter((name) => !checked.has(name))).toEqual([]);
  });

  it('finds the five functions and their roles when the definition is read', () => {
    // Assess
    expect(new Set(deployment.functions.map((f) => f.role.logicalId)).size).toBe(5);
    expect(functionCalls.find(({ f }) => f.name === 'plan')?.calls).toEqual([]);
    expect(ALLOWED.length).toBeGreaterThan(40);
  });
});
