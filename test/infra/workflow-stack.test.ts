import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATE_NAMES, TASK_STATES } from '../../lib/infra/export-workflow';
import { ReportExportStack } from '../../lib/infra/report-export-stack';
import { configFromContext } from '../../lib/infra/stack-config';
import { synthesizedDefinition } from '../../lib/local/definition';
import { TERMINAL_ERROR_NAMES, TRANSIENT_ERROR_NAMES } from '../../lib/workflow/errors';

type State = {
  Type: string;
  Retry?: { ErrorEquals: string[]; MaxAttempts?: number; JitterStrategy?: string }[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
  TimeoutSeconds?: number;
  ItemProcessor?: { States: Record<string, State> };
  MaxConcurrency?: number;
};

const CONFIG = {
  workspaceId: 'ws',
  reports: [{ id: 'r1', name: 'Call list by user' }],
  timeZone: 'Europe/London',
};

let template: Template;
let assetDir: string;
let states: Record<string, State>;
let definition: { TimeoutSeconds?: number; States: Record<string, State> };

beforeAll(() => {
  // Prepare: synthesize with real bundling (the local esbuild, no Docker).
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-test-'));
  const app = new App({ outdir });
  const stack = new ReportExportStack(app, 'ReportExport', { config: CONFIG });
  app.synth();
  template = Template.fromStack(stack);
  assetDir = outdir;
  definition = synthesizedDefinition() as unknown as typeof definition;
  states = { ...definition.States };
  for (const s of Object.values(definition.States)) Object.assign(states, s.ItemProcessor?.States ?? {});
}, 180_000);

describe('ReportExportStack workflow', () => {
  it('runs every function on nodejs22.x ARM64 with tracing and JSON logs', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const ours = Object.values(functions).filter(
      (f) => (f.Properties as { Handler?: string }).Handler === 'index.handler',
    );
    expect(ours).toHaveLength(5);
    for (const f of ours) {
      expect(f.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON' },
      });
    }
  });

  const TASKS = TASK_STATES;

  it('has exactly these Task states', () => {
    const tasks = Object.entries(states)
      .filter(([, s]) => s.Type === 'Task')
      .map(([n]) => n);
    expect(tasks.sort()).toEqual([...TASKS].sort());
  });

  it.each(TASKS)(
    'gives Task %s a timeout, a retry of the transient errors with full jitter, and a catch',
    (name) => {
      const state = states[name] as State;
      expect(state.TimeoutSeconds).toBeGreaterThan(0);
      if (name.startsWith('Notify')) {
        expect(state.Catch?.[0]?.ErrorEquals).toEqual(['States.ALL']);
        return;
      }
      const retried = (state.Retry ?? []).flatMap((r) => r.ErrorEquals);
      if (name !== STATE_NAMES.continueAsNew) {
        for (const transient of TRANSIENT_ERROR_NAMES) expect(retried).toContain(transient);
        for (const terminal of TERMINAL_ERROR_NAMES) expect(retried).not.toContain(terminal);
      }
      for (const r of state.Retry ?? []) expect(r).toMatchObject({ JitterStrategy: 'FULL' });
      for (const r of state.Retry ?? []) expect(r.MaxAttempts).toBeLessThanOrEqual(12);
      expect(state.Catch?.some((c) => c.ErrorEquals.includes('States.ALL'))).toBe(true);
    },
  );

  it('bounds the execution and the Map', () => {
    expect(definition.TimeoutSeconds).toBe(12 * 3600);
    expect(states[STATE_NAMES.exportJobs]?.MaxConcurrency).toBe(4);
  });

  it('logs executions at ERROR without execution data and traces them', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
  });

  it('ships the encode worker beside the ExportResults bundle', () => {
    const exportFn = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (f) => (f.Properties as { MemorySize?: number }).MemorySize === 1769,
    );
    const key = (exportFn?.Properties as { Code?: { S3Key?: string } } | undefined)?.Code?.S3Key;
    expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
    const assetPath = `asset.${(key as string).replace('.zip', '')}`;
    const files = fs.readdirSync(path.join(assetDir, assetPath as string));
    expect(files).toEqual(expect.arrayContaining(['index.mjs', 'encode-worker.mjs']));
    // Error names survive minification: the handler's errors set their names as literals.
    const bundle = fs.readFileSync(path.join(assetDir, assetPath as string, 'index.mjs'), 'utf8');
    for (const name of [
      'ServiceUnavailableError',
      'LeaseBusyError',
      'DeadlineError',
      'StoreFailedError',
      'ExportFailedError',
      'RowLimitError',
    ]) {
      expect(bundle).toContain(`this.name="${name}"`);
    }
    expect(bundle).not.toContain('new.target.name');
  });

  it('never puts a secret value in the template: the secret is created empty', () => {
    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]?.Properties).not.toHaveProperty('SecretString');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/refreshToken|clientSecret/);
  });
});

describe('configFromContext', () => {
  it.each([
    [{ ...CONFIG, timeZone: 'Europe/Londn' }, 'timeZone "Europe/Londn" is not an IANA zone'],
    [{ ...CONFIG, reports: [] }, 'reports'],
    [{ ...CONFIG, mapConcurrency: 0 }, 'mapConcurrency'],
    [undefined, 'reportExport'],
  ])('names the setting when the context is %j', (context, named) => {
    expect(() => configFromContext(context)).toThrow(named);
  });
});
