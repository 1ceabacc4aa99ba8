import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import {
  DIRECTORY_RETRIED_ERROR_NAMES,
  DIRECTORY_SYNC_RETRY,
  INPUT_TOO_LARGE_PHRASE,
  SFN_EXECUTION_EXISTS_ERROR_NAME,
  TASK_ERROR_NAMES,
  WORKFLOW_ERROR_CODES,
} from '../workflow';
import { COMMIT_MEMORY_MB, COMMIT_TIMEOUT_SECONDS, SYNC_DIRECTORIES_TIMEOUT_SECONDS } from './export-sizing';
import { STATE_NAMES } from './state-names';
import { WorkflowFunction } from './workflow-function';
import {
  jobIteration,
  LEASE_WAIT,
  lambdaTask,
  notifyAndFail,
  notifyWhenUrgent,
  sfnTask,
} from './workflow-tasks';

export { STATE_NAMES, TASK_STATES } from './state-names';
export { LEASE_WAIT };

/** The Lambda functions of the workflow the stack makes, one per Task (Commit's is the workflow's own). */
interface WorkflowFunctions {
  readonly plan: lambda.IFunction;
  readonly requestReport: lambda.IFunction;
  readonly checkStatus: lambda.IFunction;
  readonly exportResults: lambda.IFunction;
  readonly syncDirectories: lambda.IFunction;
  readonly finalize: lambda.IFunction;
}

interface ExportWorkflowProps {
  readonly functions: WorkflowFunctions;
  /**
   * The environment of the Commit function, which the workflow makes (the other functions'
   * environment: it reads the same stores and catalog).
   */
  readonly commitEnvironment: Record<string, string>;
  /**
   * The state machine's name. Fixed, so that ContinueAsNew's permission names this state
   * machine and nothing else (its ARN is known before the role's policy is written).
   * @default `<stack name>-Export`
   */
  readonly stateMachineName?: string;
  /** Failures are published here. */
  readonly alarmTopic: sns.ITopic;
  /**
   * Jobs exported at the same time (Map concurrency).
   * @default 4
   */
  readonly mapConcurrency?: number;
  /**
   * Longest execution.
   * @default Duration.hours(12)
   */
  readonly timeout?: Duration;
  /**
   * Timeout of the ExportResults task; keep it above the function's timeout.
   * @default Duration.minutes(16)
   */
  readonly exportTaskTimeout?: Duration;
  /**
   * Execution logs (ERROR level, without execution data).
   * @default no logging
   */
  readonly logGroup?: logs.ILogGroup;
  /**
   * X-Ray tracing.
   * @default true
   */
  readonly tracing?: boolean;
}

/** Above the Commit function's timeout, so its own fires first. */
const COMMIT_TASK_TIMEOUT = Duration.seconds(COMMIT_TIMEOUT_SECONDS + 30);

/** Above the SyncDirectories function's timeout, so its own fires first. */
const SYNC_TASK_TIMEOUT = Duration.seconds(SYNC_DIRECTORIES_TIMEOUT_SECONDS + 30);

/**
 * The export workflow: Plan -> PrepareTables (the committer) -> a Parallel state of two
 * branches: the Map over jobs (RequestReport -> Wait -> CheckStatus -> Choice ->
 * ExportResults, looping while a split window has pieces left) and the contacts branch
 * (SyncDirectories when the plan syncs them; its failure caught into its own result, so it
 * never fails the calls, nor they it) -> Commit (every
 * run the jobs staged, one snapshot per table) -> Finalize (run record, metrics) -> fail
 * after all jobs if any failed, or continue a long backfill in a new execution. Every Task
 * retries the transient errors of one shared list and catches the rest into a path that
 * records, and notifies at once only what needs a person now (the night's digest names the rest). Only ids, windows and counts pass between states.
 *
 * Each part of the definition is made by a builder of its own below; the constructor only
 * chains them.
 */
export class ExportWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /**
   * The committer: the only principal that writes the tables' metadata and moves their
   * pointer (the stack grants it that; a tenant's session never gets it).
   */
  public readonly commitFunction: lambda.IFunction;

  constructor(scope: Construct, id: string, props: ExportWorkflowProps) {
    super(scope, id);
    const f = props.functions;
    this.commitFunction = new WorkflowFunction(this, 'CommitFunction', {
      handlerModule: 'commit',
      environment: props.commitEnvironment,
      memorySize: COMMIT_MEMORY_MB,
      timeout: Duration.seconds(COMMIT_TIMEOUT_SECONDS),
    }).function;
    const machineName = props.stateMachineName ?? `${Stack.of(this).stackName}-Export`;

    const recordFailure = failureRecording(this, f.finalize, props.alarmTopic);
    const plan = planTask(this, f.plan, recordFailure);
    const prepareTables = prepareTablesTask(this, this.commitFunction, recordFailure);
    const exportAndSync = exportAndSyncParallel(this, f, props).addCatch(recordFailure, {
      errors: ['States.ALL'],
      resultPath: '$.failure',
    });
    const finalize = finalizeTask(this, f.finalize).addCatch(recordFailure, {
      errors: ['States.ALL'],
      resultPath: '$.failure',
    });
    const commit = commitTask(this, this.commitFunction, finalize);
    const outcome = runOutcome(this, machineName, props.alarmTopic, recordFailure);
    const definition = startState(this)
      .next(plan)
      .next(prepareTables)
      .next(exportAndSync)
      .next(commit)
      .next(finalize)
      .next(outcome);

    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: machineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout: props.timeout ?? Duration.hours(12),
      tracingEnabled: props.tracing ?? true,
      ...(props.logGroup === undefined
        ? {}
        : { logs: { destination: props.logGroup, level: sfn.LogLevel.ERROR, includeExecutionData: false } }),
    });
    // sns:Publish alone fails on a topic encrypted with a customer-managed key: the
    // publisher needs kms:GenerateDataKey* and kms:Decrypt on it, which grantPublish adds.
    props.alarmTopic.grantPublish(this.stateMachine);
  }
}

/**
 * The first state. The execution input stays in the context object ($$.Execution.Input),
 * never in the state: the tasks that need it (Plan, Finalize) take it from there, so the
 * state carries the input's filters once (in the plan's options).
 */
function startState(scope: Construct): sfn.Pass {
  const S = STATE_NAMES;
  return new sfn.Pass(scope, S.start, {
    stateName: S.start,
    parameters: {
      'executionName.$': '$$.Execution.Name',
      'startedAt.$': '$$.Execution.StartTime',
      // Replaced by Plan's result: RecordFailure and the notices read `$.plan` (its
      // `tenant`, null until Plan names it) whether or not Plan ran. A null through the
      // intrinsic: the CDK drops a literal null from a Pass state's parameters.
      plan: { 'tenant.$': "States.StringToJson('null')" },
    },
  });
}

/**
 * Plan, whose failure is recorded under the tenant its input names: the Plan-only catch
 * copies `$$.Execution.Input.tenant` (when there is one, a string) into `$.plan.tenant`, so
 * the record goes to the tenant's runs (RecordFailure checks it is a registered tenant, else
 * records without one) and the notice names it. Not for an input Plan refused for its size
 * (its tenant alone could outgrow the state, uncaught) nor for a failure that is not one of
 * the handler's named errors (a crash, a cold start's invalid settings: the size unchecked).
 */
function planTask(scope: Construct, fn: lambda.IFunction, recordFailure: sfn.IChainable): tasks.LambdaInvoke {
  const S = STATE_NAMES;
  const plan = lambdaTask(scope, S.plan, fn, {
    payload: {
      'input.$': '$$.Execution.Input',
      'executionName.$': '$.executionName',
      'startedAt.$': '$.startedAt',
    },
    resultPath: '$.plan',
  });
  const tenant = '$$.Execution.Input.tenant';
  const handlerErrors = Object.values(TASK_ERROR_NAMES).filter(
    (name) => name !== TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.invalidConfig],
  );
  const planFailureTenant = new sfn.Pass(scope, S.planFailureTenant, {
    stateName: S.planFailureTenant,
    parameters: { 'tenant.$': tenant },
    resultPath: '$.plan',
  }).next(recordFailure);
  const planFailed = new sfn.Choice(scope, S.planFailed, { stateName: S.planFailed })
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(tenant),
        sfn.Condition.isString(tenant),
        sfn.Condition.or(...handlerErrors.map((name) => sfn.Condition.stringEquals('$.failure.Error', name))),
        sfn.Condition.not(sfn.Condition.stringMatches('$.failure.Cause', `*${INPUT_TOO_LARGE_PHRASE}*`)),
      ),
      planFailureTenant,
    )
    .otherwise(recordFailure);
  plan.addCatch(planFailed, { errors: ['States.ALL'], resultPath: '$.failure' });
  return plan;
}

/**
 * PrepareTables: the committer (the Commit function's `prepare` action, its own role) makes
 * the tables the jobs may write ready before they run: created, columns renamed, promoted
 * columns added. The jobs' exports, in a tenant's session, only read the tables' metadata.
 * Nothing to do (the Hive layout, current tables) costs one short invocation. Its failure,
 * once retried, fails the run: RecordFailure records it by name (notified when urgent).
 */
function prepareTablesTask(
  scope: Construct,
  fn: lambda.IFunction,
  recordFailure: sfn.IChainable,
): sfn.TaskStateBase {
  return lambdaTask(scope, STATE_NAMES.prepareTables, fn, {
    payload: {
      action: 'prepare',
      'runId.$': '$.plan.runId',
      'tenant.$': '$.plan.tenant',
      'jobCount.$': '$.plan.jobCount',
      'contacts.$': '$.plan.contacts.sync',
    },
    resultPath: '$.prepared',
    timeout: COMMIT_TASK_TIMEOUT,
  }).addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' });
}

/**
 * The jobs and the contacts side by side: a Parallel state whose first branch is the Map
 * over the jobs and whose second syncs the directories. Its result, `$.exported`, is
 * `{results, contacts}`: the jobs' results (the Map's) and the contacts branch's summary.
 * The contacts branch catches every error of its task into a FAILED summary, so only the
 * Map's own failure (none of its iterations throws: each ends in JobSucceeded or JobFailed)
 * fails the Parallel state.
 */
function exportAndSyncParallel(
  scope: Construct,
  f: WorkflowFunctions,
  props: ExportWorkflowProps,
): sfn.Parallel {
  const S = STATE_NAMES;
  const parallel = new sfn.Parallel(scope, S.exportAndSync, {
    stateName: S.exportAndSync,
    resultSelector: { 'results.$': '$[0]', 'contacts.$': '$[1]' },
    resultPath: '$.exported',
  });
  parallel.branch(exportJobsMap(scope, f, props));
  parallel.branch(contactsBranch(scope, f.syncDirectories));
  return parallel;
}

/** A summary of no sync, the contacts branch's result when the plan syncs none. */
const NO_SYNC = {
  report: null,
  directories: 0,
  unchanged: 0,
  staged: 0,
  committed: 0,
  held: 0,
  failed: 0,
  newVersions: 0,
  closedVersions: 0,
  deletions: 0,
} as const;

/**
 * The contacts branch: SyncDirectories when the plan says so (`$.plan.contacts.sync`), in the
 * tenant's session, its read failures retried as their own class (DIRECTORY_SYNC_RETRY, the
 * handler throws them only while `attempt` has retries left), every other transient error as
 * every task's; anything it still throws becomes a FAILED summary naming the error, so the
 * calls go on to Commit and the run record says why the contacts did not.
 */
function contactsBranch(scope: Construct, fn: lambda.IFunction): sfn.IChainable {
  const S = STATE_NAMES;
  const skipped = new sfn.Pass(scope, S.contactsSkipped, {
    stateName: S.contactsSkipped,
    result: sfn.Result.fromObject({ status: 'SKIPPED', ...NO_SYNC }),
  });
  const { report: _none, ...counts } = NO_SYNC;
  const failed = new sfn.Pass(scope, S.contactsFailed, {
    stateName: S.contactsFailed,
    parameters: {
      status: 'FAILED',
      // A null through the intrinsic: the CDK drops a literal null from a Pass state's
      // parameters, and a summary without `report` would send Finalize to read one.
      'report.$': "States.StringToJson('null')",
      ...counts,
      error: { 'name.$': '$.failure.Error', message: 'the SyncDirectories task failed' },
      'cause.$': '$.failure.Cause',
    },
  });
  const sync = lambdaTask(scope, S.syncDirectories, fn, {
    payload: {
      'runId.$': '$.plan.runId',
      'tenant.$': '$.plan.tenant',
      'force.$': '$.plan.contacts.force',
      'attempt.$': '$$.State.RetryCount',
    },
    // No ResultPath: the summary replaces the branch's state (ASL's default, `$`; spelled
    // out, aws-local-stepfunctions would set it under a key named `$` instead).
    resultPath: undefined,
    timeout: SYNC_TASK_TIMEOUT,
    firstRetry: {
      errors: [...DIRECTORY_RETRIED_ERROR_NAMES],
      interval: Duration.seconds(DIRECTORY_SYNC_RETRY.intervalSeconds),
      backoffRate: DIRECTORY_SYNC_RETRY.backoffRate,
      maxAttempts: DIRECTORY_SYNC_RETRY.maxAttempts,
      jitterStrategy: sfn.JitterType.FULL,
    },
  }).addCatch(failed, { errors: ['States.ALL'], resultPath: '$.failure' });
  return new sfn.Choice(scope, S.syncContacts, { stateName: S.syncContacts })
    .when(sfn.Condition.booleanEquals('$.plan.contacts.sync', true), sync)
    .otherwise(skipped);
}

/** The Map over the plan's jobs, each one the job iteration (workflow-tasks.ts): its result the branch's. */
function exportJobsMap(scope: Construct, f: WorkflowFunctions, props: ExportWorkflowProps): sfn.Map {
  const S = STATE_NAMES;
  const exportJobs = new sfn.Map(scope, S.exportJobs, {
    stateName: S.exportJobs,
    itemsPath: '$.plan.jobs',
    itemSelector: {
      'job.$': '$$.Map.Item.Value',
      'runId.$': '$.plan.runId',
      'options.$': '$.plan.options',
      cursor: {},
    },
    maxConcurrency: props.mapConcurrency ?? 4,
  });
  exportJobs.itemProcessor(jobIteration(scope, f, props.exportTaskTimeout ?? Duration.minutes(16)));
  return exportJobs;
}

/**
 * Commit: every run the jobs staged lands in one snapshot per table (the committer's own
 * role). Its failure, once its retries are spent, is no failure of the run's path: CommitFailed
 * puts the error in `$.commit` and Finalize records every staged job as not committed (and
 * the run as failed, notified). Each execution of a continued backfill commits its own part.
 */
function commitTask(scope: Construct, fn: lambda.IFunction, finalize: sfn.IChainable): tasks.LambdaInvoke {
  const S = STATE_NAMES;
  const commit = lambdaTask(scope, S.commit, fn, {
    payload: {
      'runId.$': '$.plan.runId',
      'tenant.$': '$.plan.tenant',
      'executionName.$': '$.executionName',
      'results.$': '$.exported.results',
      'contacts.$': '$.exported.contacts',
    },
    resultPath: '$.commit',
    timeout: COMMIT_TASK_TIMEOUT,
  });
  const commitFailed = new sfn.Pass(scope, S.commitFailed, {
    stateName: S.commitFailed,
    parameters: { status: 'FAILED', 'error.$': '$.commitError.Error', 'cause.$': '$.commitError.Cause' },
    resultPath: '$.commit',
  }).next(finalize);
  commit.addCatch(commitFailed, { errors: ['States.ALL'], resultPath: '$.commitError' });
  return commit;
}

/** Finalize: the run record and the metrics, from the plan's counts, the jobs' results and Commit's. */
function finalizeTask(scope: Construct, fn: lambda.IFunction): tasks.LambdaInvoke {
  return lambdaTask(scope, STATE_NAMES.finalize, fn, {
    // What the run record needs of the plan: not its jobs or options (the filters are
    // in the input already).
    payload: {
      'input.$': '$$.Execution.Input',
      'executionName.$': '$.executionName',
      'startedAt.$': '$.startedAt',
      plan: {
        'runId.$': '$.plan.runId',
        'tenant.$': '$.plan.tenant',
        'mode.$': '$.plan.mode',
        'timeZone.$': '$.plan.timeZone',
        'dates.$': '$.plan.dates',
        'jobCount.$': '$.plan.jobCount',
        'hasContinuation.$': '$.plan.hasContinuation',
      },
      'results.$': '$.exported.results',
      'contacts.$': '$.exported.contacts',
      'commit.$': '$.commit',
    },
    resultPath: '$.summary',
  });
}

/**
 * Failures outside the jobs: recorded (RecordFailure), notified when they need a person now
 * (notifyWhenUrgent), and the execution failed with the caught error's name. Returns
 * RecordFailure, where every such Catch goes.
 */
function failureRecording(
  scope: Construct,
  finalizeFn: lambda.IFunction,
  topic: sns.ITopic,
): tasks.LambdaInvoke {
  const S = STATE_NAMES;
  // The plan's tenant: `$.summary` is missing when RecordFailure itself failed.
  const caught = notifyAndFail(
    scope,
    { notify: S.notifyCaughtFailure, fail: S.runFailed },
    topic,
    { 'tenant.$': '$.plan.tenant', 'executionName.$': '$.executionName', 'error.$': '$.failure.Error' },
    { errorPath: '$.failure.Error', causePath: '$.failure.Cause' },
  );
  // Never the raw input: on a Plan failure it is what was refused (up to the 256 KiB AWS
  // accepts, which with the failure would exceed the payload quota, uncaught); the error
  // names its size. After Plan, the plan's fields are bounded (the input was 32 KiB at most).
  const recordFailure = lambdaTask(scope, S.recordFailure, finalizeFn, {
    payload: {
      'plan.$': '$.plan',
      'executionName.$': '$.executionName',
      'startedAt.$': '$.startedAt',
      'failure.$': '$.failure',
    },
    resultPath: '$.summary',
  });
  // Recorded: notified now only when it needs a person now, else the night's digest names it.
  // Not recorded (RecordFailure failed): notified now, whatever it was, since no digest can
  // name a failure that left no record.
  recordFailure
    .addCatch(caught.notify, { errors: ['States.ALL'], resultPath: '$.recordError' })
    .next(notifyWhenUrgent(scope, S.caughtFailureNeedsPerson, '$.failure.Error', caught));
  return recordFailure;
}

/**
 * After Finalize: continue a long backfill in a new execution (once, by a name derived from
 * this one's), then fail if a job failed (notified now when its error needs a person now:
 * the record's `error`, the first failed job's), else succeed.
 */
function runOutcome(
  scope: Construct,
  machineName: string,
  topic: sns.ITopic,
  recordFailure: sfn.IChainable,
): sfn.Choice {
  const S = STATE_NAMES;
  const notifyFailure = notifyAndFail(
    scope,
    { notify: S.notifyFailure, fail: S.exportFailed },
    topic,
    {
      'tenant.$': '$.summary.tenant',
      'runId.$': '$.summary.runId',
      'executionName.$': '$.executionName',
      'failedJobs.$': '$.summary.failedJobs',
      'error.$': '$.summary.error',
      'cause.$': '$.summary.cause',
    },
    { errorPath: '$.summary.error', causePath: '$.summary.cause' },
  );
  const succeeded = new sfn.Succeed(scope, S.succeeded, { stateName: S.succeeded, outputPath: '$.summary' });
  // A failed job does not stop a long backfill: its remaining days continue first, then
  // this execution fails with the failed job's error (notified now only when it needs a person now).
  const failedOrSucceeded = new sfn.Choice(scope, S.failedJobs, { stateName: S.failedJobs })
    .when(
      sfn.Condition.stringEquals('$.summary.status', 'FAILED'),
      notifyWhenUrgent(scope, S.failureNeedsPerson, '$.summary.error', notifyFailure),
    )
    .otherwise(succeeded);
  const continueAsNew = continuation(scope, machineName, failedOrSucceeded, recordFailure);
  return new sfn.Choice(scope, S.runOutcome, { stateName: S.runOutcome })
    .when(sfn.Condition.booleanEquals('$.summary.hasContinuation', true), continueAsNew)
    .otherwise(failedOrSucceeded);
}

/**
 * ContinueAsNew: StartExecution of this state machine with the plan's continuation. A name
 * taken (a retried start, or a continuation that closed) is looked at: running or succeeded
 * goes on as continued, stopped is recorded as ContinuationStoppedError.
 */
function continuation(
  scope: Construct,
  machineName: string,
  next: sfn.IChainable,
  recordFailure: sfn.IChainable,
): tasks.CallAwsService {
  const S = STATE_NAMES;
  const stack = Stack.of(scope);
  const machineArn = stack.formatArn({
    service: 'states',
    resource: 'stateMachine',
    resourceName: machineName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  // A name derived from this execution's makes a repeated StartExecution (a lost reply, a
  // retry) start the continuation once: same name and input is idempotent while it runs.
  const continuationName = "States.Hash($$.Execution.Name, 'SHA-1')";
  const continueAsNew = sfnTask(scope, S.continueAsNew, {
    action: 'startExecution',
    parameters: {
      StateMachineArn: machineArn,
      'Name.$': continuationName,
      // The plan's continuation without the filters, merged back from the one copy. Merged
      // into a copy of it (StringToJson of its text): aws-local-stepfunctions' JsonMerge
      // assigns into its first argument, the state's own object.
      'Input.$':
        'States.JsonToString(States.JsonMerge(States.StringToJson(States.JsonToString($.plan.continuation)), $.plan.options.filters, false))',
    },
    iamResource: machineArn,
    resultSelector: { 'ExecutionArn.$': '$.ExecutionArn', 'StartDate.$': '$.StartDate' },
  });
  // The name is taken once the child has closed (or by a retry whose first start went
  // through): the continuation exists, so look at it and go on as continued.
  const executionArnPrefix = stack.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: machineName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  const continuationExists = sfnTask(scope, S.continuationExists, {
    action: 'describeExecution',
    parameters: {
      'ExecutionArn.$': `States.Format('${executionArnPrefix}:{}', ${continuationName})`,
    },
    iamResource: `${executionArnPrefix}:*`,
    resultSelector: {
      'ExecutionArn.$': '$.ExecutionArn',
      'StartDate.$': '$.StartDate',
      'Status.$': '$.Status',
    },
  });
  continueAsNew
    .addCatch(continuationExists, {
      errors: [SFN_EXECUTION_EXISTS_ERROR_NAME],
      resultPath: '$.continueError',
    })
    .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' })
    .next(next);
  // A continuation that already ended badly took its days with it: say so (RecordFailure
  // records, notifies and fails the execution) rather than succeed over it.
  const continuationStopped = new sfn.Pass(scope, S.continuationStopped, {
    stateName: S.continuationStopped,
    parameters: {
      Error: TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.continuationStopped],
      'Cause.$':
        "States.Format('The continuation {} ended {}: its days may not all be exported; run a backfill of them', $.continuedAs.ExecutionArn, $.continuedAs.Status)",
    },
    resultPath: '$.failure',
  }).next(recordFailure);
  const continuationRunning = new sfn.Choice(scope, S.continuationRunning, {
    stateName: S.continuationRunning,
  })
    .when(
      sfn.Condition.or(
        sfn.Condition.stringEquals('$.continuedAs.Status', 'RUNNING'),
        sfn.Condition.stringEquals('$.continuedAs.Status', 'SUCCEEDED'),
      ),
      next,
    )
    .otherwise(continuationStopped);
  continuationExists
    .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' })
    .next(continuationRunning);
  return continueAsNew;
}
