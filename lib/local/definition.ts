import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { ReportExportStack } from '../infra/report-export-stack';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

/** A state machine definition (Amazon States Language) as the engine takes it. */
export type StateMachineDefinition = { StartAt: string; States: Record<string, unknown> } & Record<
  string,
  unknown
>;

/**
 * The workflow's definition exactly as the CDK app synthesizes it: the stack is built
 * in-process (bundling skipped: local runs call the handler modules directly), the
 * template's DefinitionString read, and its references to functions and the topic
 * resolved to placeholder ARNs. Nothing is hand-written here.
 */
export function synthesizedDefinition(options: { mapConcurrency?: number } = {}): StateMachineDefinition {
  const key = options.mapConcurrency ?? 0;
  const cached = synthesized.get(key);
  if (cached !== undefined) return structuredClone(cached);
  const definition = synthesize(options);
  synthesized.set(key, definition);
  return structuredClone(definition);
}

/** Synthesis takes seconds: once per process and Map concurrency. */
const synthesized = new Map<number, StateMachineDefinition>();

function synthesize(options: { mapConcurrency?: number }): StateMachineDefinition {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-export-synth-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new ReportExportStack(app, 'ReportExport', {
      env: { account: ACCOUNT, region: REGION },
      config: {
        workspaceId: 'local',
        reports: [{ id: 'local', name: 'local' }],
        timeZone: 'UTC',
        ...(options.mapConcurrency === undefined ? {} : { mapConcurrency: options.mapConcurrency }),
      },
    });
    const template = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Type: string; Properties?: { DefinitionString?: unknown } }>;
    };
    const machines = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::StepFunctions::StateMachine',
    );
    if (machines.length !== 1)
      throw new Error(`expected one state machine in the template, found ${machines.length}`);
    const text = resolve(
      (machines[0] as { Properties: { DefinitionString: unknown } }).Properties.DefinitionString,
    );
    if (typeof text !== 'string') throw new Error('DefinitionString did not resolve to text');
    return JSON.parse(text) as StateMachineDefinition;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

/** Resolves the CloudFormation intrinsics a definition uses to placeholder values. */
function resolve(value: unknown): unknown {
  if (typeof value === 'string' || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(resolve);
  const v = value as Record<string, unknown>;
  if ('Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(resolve(p))).join(sep);
  }
  if ('Fn::GetAtt' in v) {
    const [logicalId] = v['Fn::GetAtt'] as [string, string];
    return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${logicalId}`;
  }
  if ('Ref' in v) {
    const ref = v.Ref as string;
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[ref] ?? `arn:aws:sns:${REGION}:${ACCOUNT}:${ref}`;
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
}
