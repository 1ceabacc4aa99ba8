import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { ReportExportConfig } from '../infra';
import { cdkFeatureFlags, ReportExportStack } from '../infra';

const LOCAL_ACCOUNT = '123456789012';
export const LOCAL_REGION = 'us-east-1';
/** The stack's id (and name) in every local synthesis. */
export const LOCAL_STACK_NAME = 'ReportExport';

/** A state machine definition (Amazon States Language) as the engine takes it. */
export type StateMachineDefinition = { StartAt: string; States: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** A Lambda function as the template declares it. */
export interface FunctionSpec {
  logicalId: string;
  /** Variables whose values are plain text in the template. */
  environment: Record<string, string>;
  /** Variables whose values are references resolved at deploy time (bucket, secret ARN). */
  deployTimeVariables: string[];
  memorySizeMb: number;
  timeoutSeconds: number;
  ephemeralStorageMb: number;
  handler: string;
  runtime: string;
  /** The bundle's key in the template (`<hash>.zip`): the asset directory of a bundling synthesis. */
  assetKey: string | undefined;
}

/** What the template says about the workflow: its definition and its functions. */
export interface SynthesizedWorkflow {
  definition: StateMachineDefinition;
  /** By logical id. */
  functions: Record<string, FunctionSpec>;
  /** The function each Lambda Task state invokes (logical id), by state name. */
  taskFunctions: Record<string, string>;
}

/** The configuration local runs synthesize with when none is given. */
export const PLACEHOLDER_CONFIG: ReportExportConfig = {
  workspaceId: 'local',
  reports: [{ id: 'local', name: 'local' }],
  timeZone: 'UTC',
  dataStartDate: '2020-01-01',
};

/**
 * The workflow's definition exactly as the CDK app synthesizes it: the stack is built
 * in-process (bundling skipped here: see lambda-assets.ts for the bundles), the template's
 * DefinitionString read, and its references to functions and the topic resolved to
 * placeholder ARNs. Nothing is hand-written here.
 */
export function synthesizedDefinition(options: { mapConcurrency?: number } = {}): StateMachineDefinition {
  return synthesizeWorkflow(
    options.mapConcurrency === undefined ? {} : { mapConcurrency: options.mapConcurrency },
  ).definition;
}

/** Synthesis takes seconds: once per process and configuration. */
const synthesized = new Map<string, SynthesizedWorkflow>();

/**
 * The stack synthesized for `config` (over a placeholder configuration), without bundling:
 * the definition, each function's environment, memory, timeout and ephemeral storage.
 */
export function synthesizeWorkflow(config: Partial<ReportExportConfig> = {}): SynthesizedWorkflow {
  // A multi-tenant stack refuses a tenant's settings: each tenant's are in the registry.
  const { workspaceId: _w, reports: _r, timeZone: _z, ...common } = PLACEHOLDER_CONFIG;
  const full = { ...(config.tenancy === 'multi' ? common : PLACEHOLDER_CONFIG), ...config };
  const key = JSON.stringify(full);
  let workflow = synthesized.get(key);
  if (workflow === undefined) {
    workflow = readTemplate(synthesizeTemplate(full, { bundling: false }).template);
    synthesized.set(key, workflow);
  }
  return structuredClone(workflow);
}

type CfnResource = { Type: string; Properties?: Record<string, unknown> };
export type CfnTemplate = { Resources: Record<string, CfnResource> };

/** Synthesizes the stack into `outdir` (a new temporary directory, removed unless kept). */
export function synthesizeTemplate(
  config: ReportExportConfig,
  options: { bundling: boolean; outdir?: string },
): { template: CfnTemplate; outdir: string } {
  const outdir = options.outdir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'report-export-synth-'));
  try {
    const app = new App({
      outdir,
      context: { ...cdkFeatureFlags(), ...(options.bundling ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    });
    const stack = new ReportExportStack(app, LOCAL_STACK_NAME, {
      env: { account: LOCAL_ACCOUNT, region: LOCAL_REGION },
      config,
    });
    const template = app.synth().getStackByName(stack.stackName).template as CfnTemplate;
    return { template, outdir };
  } finally {
    if (options.outdir === undefined) fs.rmSync(outdir, { recursive: true, force: true });
  }
}

/** The definition, the functions and which Task invokes which, read off a template. */
export function readTemplate(template: CfnTemplate): SynthesizedWorkflow {
  const machines = Object.values(template.Resources).filter(
    (r) => r.Type === 'AWS::StepFunctions::StateMachine',
  );
  if (machines.length !== 1)
    throw new Error(`expected one state machine in the template, found ${machines.length}`);
  const text = resolve(machines[0]?.Properties?.DefinitionString);
  if (typeof text !== 'string') throw new Error('DefinitionString did not resolve to text');
  const definition = JSON.parse(text) as StateMachineDefinition;
  const functions: Record<string, FunctionSpec> = {};
  for (const [logicalId, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function' || r.Properties?.Handler !== 'index.handler') continue;
    functions[logicalId] = functionSpec(logicalId, r.Properties);
  }
  const taskFunctions: Record<string, string> = {};
  for (const [name, state] of allStates(definition)) {
    // payloadResponseOnly Tasks name the function as their Resource; lambda:invoke ones in Parameters.
    const s = state as { Resource?: unknown; Parameters?: { FunctionName?: unknown } };
    const target =
      typeof s.Resource === 'string' && s.Resource.includes(':function:')
        ? s.Resource
        : s.Parameters?.FunctionName;
    if (typeof target !== 'string' || !target.includes(':function:')) continue;
    const logicalId = target.slice(target.lastIndexOf(':') + 1);
    if (functions[logicalId] === undefined)
      throw new Error(`Task ${name} invokes ${logicalId}, which is not in the template`);
    taskFunctions[name] = logicalId;
  }
  return { definition, functions, taskFunctions };
}

function functionSpec(logicalId: string, p: Record<string, unknown>): FunctionSpec {
  const variables = ((p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
    {}) as Record<string, unknown>;
  const environment: Record<string, string> = {};
  const deployTimeVariables: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value === 'string') environment[name] = value;
    else deployTimeVariables.push(name);
  }
  const code = p.Code as { S3Key?: unknown } | undefined;
  return {
    logicalId,
    environment,
    deployTimeVariables,
    // CloudFormation's defaults when the template leaves them out.
    memorySizeMb: Number(p.MemorySize ?? 128),
    timeoutSeconds: Number(p.Timeout ?? 3),
    ephemeralStorageMb: Number((p.EphemeralStorage as { Size?: unknown } | undefined)?.Size ?? 512),
    handler: String(p.Handler),
    runtime: String(p.Runtime),
    assetKey: typeof code?.S3Key === 'string' ? code.S3Key : undefined,
  };
}

type StateGraph = { States: Record<string, unknown> };

/** Every state, the Map's inner states and the Parallel states' branches included. */
function allStates(definition: StateGraph): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [name, state] of Object.entries(definition.States)) {
    out.push([name, state]);
    const s = state as { ItemProcessor?: StateGraph; Branches?: StateGraph[] };
    if (s.ItemProcessor !== undefined) out.push(...allStates(s.ItemProcessor));
    for (const branch of s.Branches ?? []) out.push(...allStates(branch));
  }
  return out;
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
    return `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${logicalId}`;
  }
  if ('Ref' in v) {
    const ref = v.Ref as string;
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': LOCAL_REGION,
      'AWS::AccountId': LOCAL_ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[ref] ?? `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${ref}`;
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
}
