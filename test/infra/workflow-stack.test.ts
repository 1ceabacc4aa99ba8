import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import '../../lib/local/promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { cdkFeatureFlags } from '../../lib/infra/cdk-context';
import {
  DEFAULT_EXPORT_EPHEMERAL_MB,
  SYNC_DIRECTORIES_MEMORY_MB,
  SYNC_DIRECTORIES_TIMEOUT_SECONDS,
  spillBudgetBytes,
} from '../../lib/infra/export-sizing';
import { STATE_NAMES, TASK_STATES } from '../../lib/infra/export-workflow';
import { ReportExportStack } from '../../lib/infra/report-export-stack';
import { configFromContext } from '../../lib/infra/stack-config';
import { synthesizedDefinition } from '../../lib/local/definition';
import { DIRECTORY_SYNC_RETRY, type DirectorySyncSummary } from '../../lib/workflow/directory-sync-task';
import {
  DIRECTORY_RETRIED_ERROR_NAMES,
  LAMBDA_CRASH_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SFN_EXECUTION_EXISTS_ERROR_NAME,
  TERMINAL_ERROR_NAMES,
} from '../../lib/workflow/error-table';
import { PUBLISH_LEASE_TTL_MS } from '../../lib/workflow/export-task';
import { contactsOfRun } from '../../lib/workflow/run-record';
import { allStates, functionConstructId, synthStack, WORKFLOW_FUNCTION_IDS } from './stack-synth';

type Retrier = {
  ErrorEquals: string[];
  MaxAttempts?: number;
  JitterStrategy?: string;
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
};
type State = {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  Retry?: Retrier[];
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath?: string }[];
  TimeoutSeconds?: number;
  ItemProcessor?: { StartAt?: string; States: Record<string, State> };
  Branches?: { StartAt: string; States: Record<string, State> }[];
  MaxConcurrency?: number;
  Next?: string;
  End?: boolean;
  ResultPath?: string | null;
  ResultSelector?: Record<string, unknown>;
  Result?: Record<string, unknown>;
  Choices?: Record<string, unknown>[];
  Default?: string;
};

const CONFIG = {
  workspaceId: 'ws',
  reports: [{ id: 'r1', name: 'Call list by user' }],
  timeZone: 'Europe/London',
  dataStartDate: '2025-01-01',
};

let template: Template;
let assetDir: string;
let states: Record<string, State>;
let definition: { TimeoutSeconds?: number; States: Record<string, State> };

beforeAll(() => {
  // Prepare: synthesize with real bundling (the local esbuild, no Docker).
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-test-'));
  const app = new App({ outdir, context: cdkFeatureFlags() });
  const stack = new ReportExportStack(app, 'ReportExport', { config: CONFIG });
  app.synth();
  template = Template.fromStack(stack);
  assetDir = outdir;
  definition = synthesizedDefinition() as unknown as typeof definition;
  states = allStates(definition);
}, 180_000);

const S = STATE_NAMES;

describe('ReportExportStack workflow', () => {
  it('runs every function on nodejs22.x ARM64 with tracing and JSON logs', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const ours = Object.entries(functions).filter(
      ([, f]) => (f.Properties as { Handler?: string }).Handler === 'index.handler',
    );
    // One per Lambda task (SyncDirectories, the contacts branch's, among them), the committer,
    // and the night's digest (scheduled on its own, no Task of the workflow).
    expect(ours.map(([id]) => functionConstructId(id)).sort()).toEqual(
      [...WORKFLOW_FUNCTION_IDS, 'NightDigest'].sort(),
    );
    for (const [, f] of ours) {
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
      if (state.Resource?.includes(':function:')) {
        for (const transient of RETRIED_ERROR_NAMES) expect(retried).toContain(transient);
        for (const terminal of TERMINAL_ERROR_NAMES) expect(retried).not.toContain(terminal);
      }
      // Full jitter everywhere but the lease waits, whose sum must be certain (see below).
      for (const r of state.Retry ?? []) {
        const leaseWait = r.ErrorEquals.every((e) =>
          (LEASE_WAIT_ERROR_NAMES as readonly string[]).includes(e),
        );
        expect(r).toMatchObject({ JitterStrategy: leaseWait ? 'NONE' : 'FULL' });
        expect(r.MaxAttempts).toBeLessThanOrEqual(12);
      }
      expect(state.Catch?.some((c) => c.ErrorEquals.includes('States.ALL'))).toBe(true);
    },
  );

  it("prepares the tables between Plan and the jobs and contacts with the Commit function's prepare action, and records its failure", () => {
    // Assess: Plan -> PrepareTables -> ExportAndSync, PrepareTables invoking the committer
    // (the contact tables too when the plan syncs the directories).
    const plan = states[S.plan] as State;
    const prepare = states[S.prepareTables] as State;
    expect(plan.Next).toBe(S.prepareTables);
    expect(prepare.Next).toBe(S.exportAndSync);
    expect(prepare.Resource).toBe(states[S.commit]?.Resource);
    expect(prepare.Resource).toMatch(/:function:.*CommitFunction/);
    expect(prepare.Parameters).toEqual({
      action: 'prepare',
      'runId.$': '$.plan.runId',
      'tenant.$': '$.plan.tenant',
      'jobCount.$': '$.plan.jobCount',
      'contacts.$': '$.plan.contacts.sync',
    });
    expect(prepare.TimeoutSeconds).toBe(states[STATE_NAMES.commit]?.TimeoutSeconds);
    // Its failure fails the run: RecordFailure records and notifies the error by name.
    expect(prepare.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: STATE_NAMES.recordFailure },
    ]);
  });

  it('invokes from each Lambda task its own function: the committer from PrepareTables and Commit, Finalize from RecordFailure', () => {
    // Act
    const invoked = Object.fromEntries(
      TASKS.filter((t) => states[t]?.Resource?.includes(':function:')).map((t) => [
        t,
        functionConstructId(String(states[t]?.Resource).replace(/^.*:function:/, '')),
      ]),
    );

    // Assess
    expect(invoked).toEqual({
      [S.plan]: 'Plan',
      [S.prepareTables]: 'WorkflowCommit',
      [S.requestReport]: 'RequestReport',
      [S.checkStatus]: 'CheckStatus',
      [S.exportResults]: 'ExportResults',
      [S.syncDirectories]: 'SyncDirectories',
      [S.commit]: 'WorkflowCommit',
      [S.finalize]: 'Finalize',
      [S.recordFailure]: 'Finalize',
    });
    expect(new Set(Object.values(invoked))).toEqual(new Set(WORKFLOW_FUNCTION_IDS));
  });

  it('runs the jobs and the contacts side by side: a Parallel state of the Map and the contacts branch, its result at $.exported', () => {
    // Act
    const parallel = definition.States[S.exportAndSync] as State;
    const [jobs, contacts] = parallel.Branches ?? [];

    // Assess: the Map is the first branch, whole (its result, the jobs', is the branch's);
    // the contacts branch the second; the result selector names them in that order.
    expect(parallel.Type).toBe('Parallel');
    expect(parallel.Branches).toHaveLength(2);
    expect(jobs?.StartAt).toBe(S.exportJobs);
    expect(Object.keys(jobs?.States ?? {})).toEqual([S.exportJobs]);
    expect(jobs?.States[S.exportJobs]).toMatchObject({ Type: 'Map', End: true, ItemsPath: '$.plan.jobs' });
    expect(jobs?.States[S.exportJobs]).not.toHaveProperty('ResultPath');
    expect(contacts?.StartAt).toBe(S.syncContacts);
    expect(Object.keys(contacts?.States ?? {}).sort()).toEqual(
      [S.syncContacts, S.syncDirectories, S.contactsSkipped, S.contactsFailed].sort(),
    );
    expect(parallel.ResultSelector).toEqual({ 'results.$': '$[0]', 'contacts.$': '$[1]' });
    expect(parallel.ResultPath).toBe('$.exported');
    expect(parallel.Next).toBe(S.commit);
    // Neither is a top-level state any more.
    expect(Object.keys(definition.States)).not.toContain(S.exportJobs);
    expect(Object.keys(definition.States)).not.toContain(S.syncDirectories);
  });

  it("records the Parallel state's own failure: a Catch of every error to RecordFailure", () => {
    // Assess: the contacts branch catches its task's errors itself, and no job iteration
    // throws (each ends in JobSucceeded or JobFailed): what is left fails the run, recorded.
    expect(states[S.exportAndSync]?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.recordFailure },
    ]);
  });

  it("hands Commit and Finalize the jobs' results and the contacts' summary from $.exported", () => {
    // Act
    const payload = (name: string) => {
      const p = states[name]?.Parameters;
      return (p?.Payload ?? p) as Record<string, unknown>;
    };

    // Assess
    for (const name of [S.commit, S.finalize]) {
      expect(payload(name), name).toMatchObject({
        'results.$': '$.exported.results',
        'contacts.$': '$.exported.contacts',
      });
    }
    // No state reads the results where the Map used to put them.
    expect(JSON.stringify(Object.values(states).map((st) => st.Parameters ?? {}))).not.toContain(
      '"$.results"',
    );
  });

  it('syncs the directories only when the plan says so: a Choice on $.plan.contacts.sync, else ContactsSkipped', () => {
    // Act
    const choice = states[S.syncContacts] as State;
    const skipped = states[S.contactsSkipped] as State;

    // Assess
    expect(choice.Type).toBe('Choice');
    expect(choice.Choices).toEqual([
      { Variable: '$.plan.contacts.sync', BooleanEquals: true, Next: S.syncDirectories },
    ]);
    expect(choice.Default).toBe(S.contactsSkipped);
    expect(skipped).toMatchObject({ Type: 'Pass', End: true });
    expect(skipped.Result).toMatchObject({ status: 'SKIPPED', report: null });
    expect(contactsOfRun(skipped.Result as unknown as DirectorySyncSummary, undefined, undefined)).toEqual({
      status: 'skipped',
      directories: [],
    });
  });

  it("retries SyncDirectories' directory reads first, as their own class, then as every Lambda task, and catches the rest into ContactsFailed", () => {
    // Act
    const sync = states[S.syncDirectories] as State;
    const [first, ...shared] = sync.Retry ?? [];

    // Assess: its own Retry first (Step Functions takes the first that matches), the shared
    // ones after it as every Lambda task has them, none of them naming the directory errors.
    expect(DIRECTORY_RETRIED_ERROR_NAMES.length).toBeGreaterThan(0);
    expect(first).toEqual({
      ErrorEquals: [...DIRECTORY_RETRIED_ERROR_NAMES],
      IntervalSeconds: DIRECTORY_SYNC_RETRY.intervalSeconds,
      MaxAttempts: DIRECTORY_SYNC_RETRY.maxAttempts,
      BackoffRate: DIRECTORY_SYNC_RETRY.backoffRate,
      JitterStrategy: 'FULL',
    });
    expect(shared).toEqual(states[S.plan]?.Retry);
    for (const name of DIRECTORY_RETRIED_ERROR_NAMES) {
      expect(shared.flatMap((r) => r.ErrorEquals)).not.toContain(name);
      expect(RETRIED_ERROR_NAMES).not.toContain(name);
    }
    // Its failure is the contacts' outcome, not the job's nor the run's.
    expect(sync.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.contactsFailed },
    ]);
    // The summary is the branch's output: no ResultPath (its default, `$`, replaces the state).
    expect(sync).not.toHaveProperty('ResultPath');
    expect(sync.End).toBe(true);
    expect(sync.Parameters).toEqual({
      'runId.$': '$.plan.runId',
      'tenant.$': '$.plan.tenant',
      'force.$': '$.plan.contacts.force',
      'attempt.$': '$$.State.RetryCount',
    });
  });

  it('gives SyncDirectories its memory and a timeout below its task timeout', () => {
    // Act
    const fn = lambdaFunction('SyncDirectories');

    // Assess
    expect(fn.MemorySize).toBe(SYNC_DIRECTORIES_MEMORY_MB);
    expect(fn.Timeout).toBe(SYNC_DIRECTORIES_TIMEOUT_SECONDS);
    expect(states[S.syncDirectories]?.TimeoutSeconds).toBe(SYNC_DIRECTORIES_TIMEOUT_SECONDS + 30);
  });

  it("gives ContactsFailed's summary the status FAILED, a null report, the error's name and its cause", () => {
    // Act
    const failed = states[S.contactsFailed] as State;
    const skipped = states[S.contactsSkipped] as State;

    // Assess: the counts of no sync (as ContactsSkipped's), a null report (through the
    // intrinsic: the CDK drops a literal null), and the caught error from $.failure.
    expect(failed).toMatchObject({ Type: 'Pass', End: true });
    const { status, 'report.$': report, error, 'cause.$': cause, ...counts } = failed.Parameters ?? {};
    expect(status).toBe('FAILED');
    expect(report).toBe("States.StringToJson('null')");
    expect(error).toEqual({ 'name.$': '$.failure.Error', message: expect.any(String) });
    expect(cause).toBe('$.failure.Cause');
    const { status: _, report: __, ...noSync } = skipped.Result ?? {};
    expect(counts).toEqual(noSync);
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  });

  describe('the contacts branch, run by aws-local-stepfunctions', () => {
    const runBranch = async (
      sync: boolean,
      handler: (event: Record<string, unknown>) => Promise<unknown>,
    ): Promise<{ output: Record<string, unknown>; events: Record<string, unknown>[] }> => {
      const branch = (definition.States[S.exportAndSync] as State).Branches?.[1];
      const machine = new StateMachine(branch as never, { validationOptions: { checkPaths: true } });
      const events: Record<string, unknown>[] = [];
      const execution = machine.run(
        {
          plan: { runId: 'run-1', tenant: 'acme', contacts: { sync, force: false } },
          executionName: 'x',
        } as never,
        {
          overrides: {
            taskResourceLocalHandlers: {
              [S.syncDirectories]: (event: Record<string, unknown>) => {
                events.push(event);
                return handler(event);
              },
            } as never,
            retryIntervalOverrides: { [S.syncDirectories]: 0 },
          },
          // The engine keeps no per-state context: the payload's attempt reads this one.
          context: { State: { Name: '', EnteredTime: '', RetryCount: 0 } } as never,
        },
      );
      return { output: (await execution.result) as Record<string, unknown>, events };
    };
    const failing = (name: string) => async () => {
      throw Object.assign(new Error(`${name} of the test`), { name });
    };
    const SUMMARY: DirectorySyncSummary = {
      status: 'SYNCED',
      report: 'lake/_staging/tenant=acme/_directory-sync-reports/run-1.json',
      directories: 2,
      unchanged: 1,
      staged: 1,
      committed: 0,
      held: 0,
      failed: 0,
      newVersions: 3,
      closedVersions: 1,
      deletions: 0,
    };

    it('returns the summary of SyncDirectories as it is, given the plan', async () => {
      // Act
      const { output, events } = await runBranch(true, async () => SUMMARY);

      // Assess
      expect(output).toEqual(SUMMARY);
      expect(events).toEqual([{ runId: 'run-1', tenant: 'acme', force: false, attempt: 0 }]);
    });

    it('skips the sync when the plan syncs no contacts', async () => {
      // Act
      const { output, events } = await runBranch(false, async () => SUMMARY);

      // Assess
      expect(events).toEqual([]);
      expect(output).toEqual(states[S.contactsSkipped]?.Result);
    });

    it('ends in a FAILED summary naming the error when the task throws, which the run record names', async () => {
      // Act: a terminal error (no retry).
      const { output, events } = await runBranch(true, failing('ExportFailedError'));

      // Assess
      expect(events).toHaveLength(1);
      expect(output).toMatchObject({
        status: 'FAILED',
        report: null,
        staged: 0,
        error: { name: 'ExportFailedError' },
        cause: expect.stringContaining('ExportFailedError of the test'),
      });
      const record = contactsOfRun(output as unknown as DirectorySyncSummary, undefined, undefined);
      expect(record).toMatchObject({ status: 'failed', error: { name: 'ExportFailedError' } });
    });

    it('retries a directory read DIRECTORY_SYNC_RETRY.maxAttempts times before the failure is caught', async () => {
      // Act
      const [name = ''] = DIRECTORY_RETRIED_ERROR_NAMES;
      const { output, events } = await runBranch(true, failing(name));

      // Assess
      expect(events).toHaveLength(1 + DIRECTORY_SYNC_RETRY.maxAttempts);
      expect(output).toMatchObject({ status: 'FAILED', report: null, error: { name } });
    });
  });

  it('waits longer than a partition lease lives, without jitter, before a lease-busy task gives up', () => {
    for (const name of TASKS.filter((t) => states[t]?.Resource?.includes(':function:'))) {
      const r = states[name]?.Retry?.find((x) => x.ErrorEquals.includes('LeaseBusyError')) as Retrier;
      expect(r.JitterStrategy).toBe('NONE');
      let total = 0;
      for (let n = 0; n < (r.MaxAttempts ?? 3); n++) {
        total += Math.min(
          (r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** n,
          r.MaxDelaySeconds ?? Infinity,
        );
      }
      expect(total * 1000).toBeGreaterThan(PUBLISH_LEASE_TTL_MS);
    }
  });

  it('retries a Lambda crash (out of memory, exit, timeout, under every name AWS reports) once and then catches it on every Lambda task', () => {
    for (const name of TASKS.filter((t) => states[t]?.Resource?.includes(':function:'))) {
      const state = states[name] as State;
      const crash = state.Retry?.find((r) => r.ErrorEquals.includes('Lambda.Unknown'));
      expect(crash?.ErrorEquals.sort()).toEqual([...LAMBDA_CRASH_ERROR_NAMES].sort());
      expect(crash?.MaxAttempts).toBe(1);
    }
  });

  it('retries the SNS and Step Functions integrations only under the names Step Functions reports', () => {
    const names = Object.values(states).flatMap((st) => (st.Retry ?? []).flatMap((r) => r.ErrorEquals));
    expect(names.filter((n) => /^(SFN|SNS)\.(Sfn|Sns)Exception$/.test(n))).toEqual([]);
    expect(names).not.toContain('States.TaskFailed');
    const cont = states[STATE_NAMES.continueAsNew] as State;
    expect(cont.Retry?.flatMap((r) => r.ErrorEquals)).toEqual(['Sfn.SfnException']);
    expect(cont.Catch?.[0]).toEqual({
      ErrorEquals: [SFN_EXECUTION_EXISTS_ERROR_NAME],
      Next: STATE_NAMES.continuationExists,
      ResultPath: '$.continueError',
    });
    for (const notify of [STATE_NAMES.notifyFailure, STATE_NAMES.notifyCaughtFailure]) {
      expect(states[notify]?.Retry?.[0]?.ErrorEquals).toContain('SNS.ThrottledException');
    }
  });

  it('starts continuations of this state machine only, and describes only its executions', () => {
    const cont = states[STATE_NAMES.continueAsNew] as State;
    const arn = 'arn:aws:states:us-east-1:123456789012:stateMachine:ReportExport-Export';
    expect(cont.Parameters?.StateMachineArn).toBe(arn);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: 'ReportExport-Export',
    });
    const statements = policyStatementsOf('StateMachine');
    const start = statements.filter((st) => [st.Action].flat().includes('states:StartExecution'));
    expect(start).toHaveLength(1);
    expect(JSON.stringify(start[0]?.Resource)).toContain(':stateMachine:ReportExport-Export');
    expect(start[0]?.Resource).not.toBe('*');
    const describe = statements.filter((st) => [st.Action].flat().includes('states:DescribeExecution'));
    expect(JSON.stringify(describe[0]?.Resource)).toContain(':execution:ReportExport-Export:*');
  });

  it('lets the state machine publish to the encrypted alarm topic: kms:GenerateDataKey* and kms:Decrypt on its key', () => {
    const key = Object.keys(template.findResources('AWS::KMS::Key'));
    expect(key).toHaveLength(1);
    const kms = policyStatementsOf('StateMachine').filter((st) =>
      [st.Action].flat().some((a) => String(a).startsWith('kms:')),
    );
    expect(kms.flatMap((st) => [st.Action].flat()).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    expect(kms[0]?.Resource).toEqual({ 'Fn::GetAtt': [key[0], 'Arn'] });
  });

  it('gives ExportResults its ephemeral storage and the matching spill budget', () => {
    const exportFn = lambdaFunction('ExportResults');
    expect(exportFn.EphemeralStorage).toEqual({ Size: DEFAULT_EXPORT_EPHEMERAL_MB });
    const env = (exportFn.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(env.SPILL_BUDGET_BYTES).toBe(String(spillBudgetBytes(DEFAULT_EXPORT_EPHEMERAL_MB)));
  });

  it('bundles the AWS SDK into every workflow function: no @aws-sdk import is left for the runtime to resolve', () => {
    // The workflow's functions; not the table creator (__entrypoint__.handler), which makes one
    // CreateTable per table, once, with the runtime's SDK (lib/infra/table-creator).
    const bundles = Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((f) => (f.Properties as { Handler?: string }).Handler === 'index.handler')
      .map((f) => (f.Properties as { Code?: { S3Key?: string } }).Code?.S3Key)
      .filter((k): k is string => k?.endsWith('.zip') === true)
      .map((k) =>
        fs.readFileSync(path.join(assetDir, `asset.${k.replace('.zip', '')}`, 'index.mjs'), 'utf8'),
      );
    expect(bundles.length).toBeGreaterThanOrEqual(5);
    for (const code of bundles) {
      // Only the SDK's own optional SigV4a signers (multi-region access points, unused here)
      // stay as require() calls inside its try/catch: everything the code calls is inside.
      const left = [
        ...code.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["'](@aws-sdk\/[a-z0-9-]+)/g),
      ].map((m) => m[1]);
      expect([...new Set(left)].sort()).toEqual(['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a']);
      // The SDK version logged at cold start is the bundled one.
      expect(code).toMatch(/"3\.\d+\.\d+"/);
      expect(code).not.toContain('REPORT_EXPORT_AWS_SDK_VERSION');
    }
  });

  it('keeps the execution input out of the state: the tasks that need it read the context object', () => {
    // Prepare: every place the definition reads the input (JSONPath values of Parameters).
    const reads = Object.entries(states).flatMap(([name, state]) =>
      Object.entries({ ...state.Parameters, ...(state.Parameters?.Payload as object) })
        .filter(([, v]) => v === '$$.Execution.Input' || v === '$.input')
        .map(([k, v]) => `${name}: ${k} ${v}`),
    );
    // Assess: Plan and Finalize, from the context; Finalize gets no jobs or options. RecordFailure
    // never (a refused input may be 256 KiB: with the failure, over the payload quota): the plan.
    expect(reads.sort()).toEqual([
      'Finalize: input.$ $$.Execution.Input',
      'Plan: input.$ $$.Execution.Input',
    ]);
    const recordFailure = states[STATE_NAMES.recordFailure]?.Parameters;
    expect((recordFailure?.Payload ?? recordFailure) as Record<string, string>).toMatchObject({
      'plan.$': '$.plan',
    });
    const parameters = states[STATE_NAMES.finalize]?.Parameters;
    const finalize = (parameters?.Payload ?? parameters) as { plan?: Record<string, string> };
    expect(Object.keys(finalize.plan ?? {}).sort()).toEqual(
      ['dates.$', 'hasContinuation.$', 'jobCount.$', 'mode.$', 'runId.$', 'tenant.$', 'timeZone.$'].sort(),
    );
    expect(finalize.plan?.['tenant.$']).toBe('$.plan.tenant');
  });

  it("names the plan's tenant in every failure notice, null until Plan names it", () => {
    // Assess: the placeholder plan RecordFailure and the caught notice read when Plan failed.
    const start = states[STATE_NAMES.start]?.Parameters as { plan?: unknown };
    expect(start.plan).toEqual({ 'tenant.$': "States.StringToJson('null')" });
    const message = (name: string) =>
      (states[name]?.Parameters as { Message?: Record<string, string> } | undefined)?.Message;
    expect(message(STATE_NAMES.notifyFailure)).toMatchObject({ 'tenant.$': '$.summary.tenant' });
    // RecordFailure's own failure leaves no summary: the plan's tenant.
    expect(message(STATE_NAMES.notifyCaughtFailure)).toMatchObject({ 'tenant.$': '$.plan.tenant' });
  });

  it('bounds the execution and the Map', () => {
    expect(definition.TimeoutSeconds).toBe(12 * 3600);
    const [jobs] = (definition.States[S.exportAndSync] as State).Branches ?? [];
    expect(jobs?.States[S.exportJobs]?.MaxConcurrency).toBe(4);
    expect(states[S.exportJobs]?.MaxConcurrency).toBe(4);
  });

  it('logs executions at ERROR without execution data and traces them', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
  });

  it('ships the encode worker beside the ExportResults bundle', () => {
    const key = (lambdaFunction('ExportResults') as { Code?: { S3Key?: string } }).Code?.S3Key;
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

  it('keeps in the SyncDirectories bundle the names its own Retry matches (minified: set as literals)', () => {
    const key = (lambdaFunction('SyncDirectories') as { Code?: { S3Key?: string } }).Code?.S3Key;
    expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
    const bundle = fs.readFileSync(
      path.join(assetDir, `asset.${(key as string).replace('.zip', '')}`, 'index.mjs'),
      'utf8',
    );
    for (const name of [...DIRECTORY_RETRIED_ERROR_NAMES, 'LeaseBusyError', 'ServiceUnavailableError']) {
      expect(bundle).toContain(`this.name="${name}"`);
    }
  });

  it('never puts a secret value in the template: the secret is created empty', () => {
    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]?.Properties).not.toHaveProperty('SecretString');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/refreshToken|clientSecret/);
  });
});

/** The statements of the inline policies attached to the role of the resource whose logical id starts with `prefix`. */
function policyStatementsOf(prefix: string): { Action: string | string[]; Resource: unknown }[] {
  const resources = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >;
  const owner = Object.entries(resources).find(
    ([id, r]) => id.includes(prefix) && r.Type === 'AWS::StepFunctions::StateMachine',
  );
  if (owner === undefined) throw new Error(`no state machine ${prefix} in the template`);
  const roleRef = JSON.stringify(
    (owner[1].Properties.RoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0],
  );
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleRef))
    .flatMap(
      (r) =>
        (r.Properties.PolicyDocument as { Statement: { Action: string; Resource: unknown }[] }).Statement,
    );
}

function lambdaFunction(idPart: string): Record<string, unknown> {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
    id.startsWith(idPart),
  );
  if (found === undefined) throw new Error(`no function ${idPart} in the template`);
  return (found[1] as { Properties: Record<string, unknown> }).Properties;
}

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

describe('ExportResults sizing and the environment limit', () => {
  it('takes its memory and ephemeral storage from the configuration, with the spill budget to match', () => {
    const t = synthStack({ exportMemoryMb: 3538, exportEphemeralStorageMb: 4096 });
    const [fn] = Object.entries(t.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('ExportResults'),
    );
    if (fn === undefined) throw new Error('no ExportResults function');
    const p = (fn[1] as { Properties: Record<string, unknown> }).Properties;
    expect(p.MemorySize).toBe(3538);
    expect(p.EphemeralStorage).toEqual({ Size: 4096 });
    expect((p.Environment as { Variables: Record<string, unknown> }).Variables.SPILL_BUDGET_BYTES).toBe(
      String((4096 - 64) * 1024 * 1024),
    );
  });

  it.each([
    [{ exportMemoryMb: 64 }, 'exportMemoryMb'],
    [{ exportEphemeralStorageMb: 20_000 }, 'exportEphemeralStorageMb'],
  ])('refuses %j naming the setting', (config, named) => {
    expect(() => synthStack(config)).toThrow(named);
  });

  it('fails synthesis naming REPORTS when the environment would pass Lambda 4 KB', () => {
    // 10 reports (the most one execution's state holds beside the contacts branch) with ids
    // and names at their longest (MAX_REPORT_FIELD_CHARS), in characters of 3 UTF-8 bytes:
    // Lambda counts bytes.
    const reports = Array.from({ length: 10 }, (_, i) => ({
      id: `report-${i}-${'x'.repeat(90)}`,
      name: `Report ${i}: ${'€'.repeat(88)}`,
    }));
    expect(() => synthStack({ reports })).toThrow(/more than Lambda's 4096; largest: REPORTS/);
  });
});
