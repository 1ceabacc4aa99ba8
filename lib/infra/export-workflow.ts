import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import {
  LAMBDA_CRASH_ERROR_NAMES,
  LAMBDA_SERVICE_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SFN_EXECUTION_EXISTS_ERROR_NAME,
  SFN_RETRIED_ERROR_NAMES,
  SNS_RETRIED_ERROR_NAMES,
  TASK_ERROR_NAMES,
  WORKFLOW_ERROR_CODES,
} from '../workflow';
import { STATE_NAMES } from './state-names';

export { STATE_NAMES, TASK_STATES } from './state-names';

/** The Lambda functions of the workflow, one per Task. */
interface WorkflowFunctions {
  readonly plan: lambda.IFunction;
  readonly requestReport: lambda.IFunction;
  readonly checkStatus: lambda.IFunction;
  readonly exportResults: lambda.IFunction;
  readonly finalize: lambda.IFunction;
}

interface ExportWorkflowProps {
  readonly functions: WorkflowFunctions;
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

/** Above the short functions' 120 s timeout, so the function's own timeout fires first. */
const SHORT_TASK_TIMEOUT = Duration.seconds(150);

/**
 * Waits of a task that found a lease held by another execution: without jitter, so that
 * their sum is certain to outlast the longest lease (an export's partition lease, which is
 * longer than the ExportResults function's timeout). A test checks the sum against it.
 */
export const LEASE_WAIT = {
  interval: Duration.seconds(30),
  backoffRate: 1.5,
  maxAttempts: 12,
  maxDelay: Duration.minutes(5),
} as const;

/** What a job's tasks get: ids and the cursor, plus the attempt for the run record's retries. */
const JOB_PAYLOAD = {
  'runId.$': '$.runId',
  'job.$': '$.job',
  'cursor.$': '$.cursor',
  'attempt.$': '$$.State.RetryCount',
};

/**
 * The export workflow: Plan -> Map over jobs (RequestReport -> Wait -> CheckStatus ->
 * Choice -> ExportResults, looping while a split window has pieces left) -> Finalize
 * (run record, metrics) -> fail after all jobs if any failed, or continue a long backfill
 * in a new execution. Every Task retries the transient errors of one shared list and
 * catches the rest into a path that records and notifies. Only ids, windows and counts
 * pass between states.
 */
export class ExportWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: ExportWorkflowProps) {
    super(scope, id);
    const f = props.functions;
    const S = STATE_NAMES;

    // The execution input stays in the context object ($$.Execution.Input), never in the
    // state: the tasks that need it (Plan, Finalize, RecordFailure) take it from there, so
    // the state carries the input's filters once (in the plan's options).
    const start = new sfn.Pass(this, S.start, {
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

    const plan = this.#task(S.plan, f.plan, {
      payload: {
        'input.$': '$$.Execution.Input',
        'executionName.$': '$.executionName',
        'startedAt.$': '$.startedAt',
      },
      resultPath: '$.plan',
    });

    // One job: a loop of request -> wait -> poll, then export (which may queue more pieces).
    const jobFailed = new sfn.Pass(this, S.jobFailed, {
      stateName: S.jobFailed,
      parameters: {
        'jobId.$': '$.job.jobId',
        'reportId.$': '$.job.reportId',
        'reportName.$': '$.job.reportName',
        status: 'FAILED',
        'error.$': '$.failure.Error',
        'cause.$': '$.failure.Cause',
        'progress.$': '$.cursor',
      },
    });
    const jobSucceeded = new sfn.Pass(this, S.jobSucceeded, {
      stateName: S.jobSucceeded,
      parameters: {
        'jobId.$': '$.job.jobId',
        'reportId.$': '$.job.reportId',
        'reportName.$': '$.job.reportName',
        status: 'SUCCEEDED',
        'progress.$': '$.cursor',
      },
    });
    const requestReport = this.#task(S.requestReport, f.requestReport, {
      payload: { ...JOB_PAYLOAD, 'options.$': '$.options' },
      resultPath: '$.cursor',
    }).addCatch(jobFailed, { errors: ['States.ALL'], resultPath: '$.failure' });
    const wait = new sfn.Wait(this, S.waitForReport, {
      stateName: S.waitForReport,
      time: sfn.WaitTime.secondsPath('$.cursor.waitSeconds'),
    });
    const checkStatus = this.#task(S.checkStatus, f.checkStatus, {
      payload: JOB_PAYLOAD,
      resultPath: '$.cursor',
    }).addCatch(jobFailed, { errors: ['States.ALL'], resultPath: '$.failure' });
    const exportResults = this.#task(S.exportResults, f.exportResults, {
      payload: JOB_PAYLOAD,
      resultPath: '$.cursor',
      timeout: props.exportTaskTimeout ?? Duration.minutes(16),
    }).addCatch(jobFailed, { errors: ['States.ALL'], resultPath: '$.failure' });
    const reportFailed = new sfn.Pass(this, S.reportFailed, {
      stateName: S.reportFailed,
      result: sfn.Result.fromObject({
        Error: TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.reportFailed],
        Cause: 'The service ended the report run as failed',
      }),
      resultPath: '$.failure',
    }).next(jobFailed);
    const pollBudgetSpent = new sfn.Pass(this, S.pollBudgetSpent, {
      stateName: S.pollBudgetSpent,
      result: sfn.Result.fromObject({
        Error: TASK_ERROR_NAMES.API_POLL_BUDGET_EXHAUSTED,
        Cause:
          'The report run did not complete within the poll budget (MAX_POLLS_PER_JOB); nothing was published',
      }),
      resultPath: '$.failure',
    }).next(jobFailed);
    const jobDone = new sfn.Choice(this, S.jobDone, { stateName: S.jobDone })
      .when(sfn.Condition.booleanEquals('$.cursor.done', true), jobSucceeded)
      .otherwise(requestReport);
    const reportDone = new sfn.Choice(this, S.reportDone, { stateName: S.reportDone })
      .when(sfn.Condition.stringEquals('$.cursor.status', 'Complete'), exportResults.next(jobDone))
      .when(sfn.Condition.stringEquals('$.cursor.status', 'Failed'), reportFailed)
      .when(
        sfn.Condition.numberGreaterThanEqualsJsonPath('$.cursor.polls', '$.options.maxPollsPerJob'),
        pollBudgetSpent,
      )
      .otherwise(wait);
    requestReport.next(wait);
    wait.next(checkStatus);
    checkStatus.next(reportDone);

    const exportJobs = new sfn.Map(this, S.exportJobs, {
      stateName: S.exportJobs,
      itemsPath: '$.plan.jobs',
      itemSelector: {
        'job.$': '$$.Map.Item.Value',
        'runId.$': '$.plan.runId',
        'options.$': '$.plan.options',
        cursor: {},
      },
      maxConcurrency: props.mapConcurrency ?? 4,
      resultPath: '$.results',
    });
    exportJobs.itemProcessor(requestReport);

    // Failures outside the jobs: record them, notify, fail with the caught error's name.
    const runFailed = new sfn.Fail(this, S.runFailed, {
      stateName: S.runFailed,
      errorPath: '$.failure.Error',
      causePath: '$.failure.Cause',
    });
    // The plan's tenant: `$.summary` is missing when RecordFailure itself failed.
    const notifyCaught = this.#notify(S.notifyCaughtFailure, props.alarmTopic, {
      'tenant.$': '$.plan.tenant',
      'executionName.$': '$.executionName',
      'error.$': '$.failure.Error',
    });
    notifyCaught.addCatch(runFailed, { errors: ['States.ALL'], resultPath: '$.notifyError' }).next(runFailed);
    // Never the raw input: on a Plan failure it is what was refused (up to the 256 KiB AWS
    // accepts, which with the failure would exceed the payload quota, uncaught); the error
    // names its size. After Plan, the plan's fields are bounded (the input was 32 KiB at most).
    const recordFailure = this.#task(S.recordFailure, f.finalize, {
      payload: {
        'plan.$': '$.plan',
        'executionName.$': '$.executionName',
        'startedAt.$': '$.startedAt',
        'failure.$': '$.failure',
      },
      resultPath: '$.summary',
    });
    recordFailure
      .addCatch(notifyCaught, { errors: ['States.ALL'], resultPath: '$.recordError' })
      .next(notifyCaught);
    plan.addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' });
    exportJobs.addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' });

    const finalize = this.#task(S.finalize, f.finalize, {
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
        'results.$': '$.results',
      },
      resultPath: '$.summary',
    });
    finalize.addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' });

    const exportFailed = new sfn.Fail(this, S.exportFailed, {
      stateName: S.exportFailed,
      errorPath: '$.summary.error',
      causePath: '$.summary.cause',
    });
    const notifyFailure = this.#notify(S.notifyFailure, props.alarmTopic, {
      'tenant.$': '$.summary.tenant',
      'runId.$': '$.summary.runId',
      'executionName.$': '$.executionName',
      'failedJobs.$': '$.summary.failedJobs',
      'error.$': '$.summary.error',
      'cause.$': '$.summary.cause',
    });
    notifyFailure
      .addCatch(exportFailed, { errors: ['States.ALL'], resultPath: '$.notifyError' })
      .next(exportFailed);

    const machineName = props.stateMachineName ?? `${Stack.of(this).stackName}-Export`;
    const stack = Stack.of(this);
    const machineArn = stack.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: machineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // A name derived from this execution's makes a repeated StartExecution (a lost reply, a
    // retry) start the continuation once: same name and input is idempotent while it runs.
    const continuationName = "States.Hash($$.Execution.Name, 'SHA-1')";
    const continueAsNew = new tasks.CallAwsService(this, S.continueAsNew, {
      stateName: S.continueAsNew,
      service: 'sfn',
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
      iamResources: [machineArn],
      iamAction: 'states:StartExecution',
      resultSelector: { 'ExecutionArn.$': '$.ExecutionArn', 'StartDate.$': '$.StartDate' },
      resultPath: '$.continuedAs',
      taskTimeout: sfn.Timeout.duration(SHORT_TASK_TIMEOUT),
    });
    continueAsNew.addRetry({
      errors: [...SFN_RETRIED_ERROR_NAMES],
      interval: Duration.seconds(2),
      backoffRate: 2,
      maxAttempts: 4,
      jitterStrategy: sfn.JitterType.FULL,
    });
    // The name is taken once the child has closed (or by a retry whose first start went
    // through): the continuation exists, so look at it and go on as continued.
    const executionArnPrefix = stack.formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: machineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const continuationExists = new tasks.CallAwsService(this, S.continuationExists, {
      stateName: S.continuationExists,
      service: 'sfn',
      action: 'describeExecution',
      parameters: {
        'ExecutionArn.$': `States.Format('${executionArnPrefix}:{}', ${continuationName})`,
      },
      iamResources: [`${executionArnPrefix}:*`],
      iamAction: 'states:DescribeExecution',
      resultSelector: {
        'ExecutionArn.$': '$.ExecutionArn',
        'StartDate.$': '$.StartDate',
        'Status.$': '$.Status',
      },
      resultPath: '$.continuedAs',
      taskTimeout: sfn.Timeout.duration(SHORT_TASK_TIMEOUT),
    });
    continuationExists.addRetry({
      errors: [...SFN_RETRIED_ERROR_NAMES],
      interval: Duration.seconds(2),
      backoffRate: 2,
      maxAttempts: 4,
      jitterStrategy: sfn.JitterType.FULL,
    });
    const succeeded = new sfn.Succeed(this, S.succeeded, { stateName: S.succeeded, outputPath: '$.summary' });

    // A failed job does not stop a long backfill: its remaining days continue first, then
    // this execution fails (and notifies) with the failed job's error.
    const failedOrSucceeded = new sfn.Choice(this, S.failedJobs, { stateName: S.failedJobs })
      .when(sfn.Condition.stringEquals('$.summary.status', 'FAILED'), notifyFailure)
      .otherwise(succeeded);
    continueAsNew
      .addCatch(continuationExists, {
        errors: [SFN_EXECUTION_EXISTS_ERROR_NAME],
        resultPath: '$.continueError',
      })
      .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' })
      .next(failedOrSucceeded);
    // A continuation that already ended badly took its days with it: say so (RecordFailure
    // records, notifies and fails the execution) rather than succeed over it.
    const continuationStopped = new sfn.Pass(this, S.continuationStopped, {
      stateName: S.continuationStopped,
      parameters: {
        Error: TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.continuationStopped],
        'Cause.$':
          "States.Format('The continuation {} ended {}: its days may not all be exported; run a backfill of them', $.continuedAs.ExecutionArn, $.continuedAs.Status)",
      },
      resultPath: '$.failure',
    }).next(recordFailure);
    const continuationRunning = new sfn.Choice(this, S.continuationRunning, {
      stateName: S.continuationRunning,
    })
      .when(
        sfn.Condition.or(
          sfn.Condition.stringEquals('$.continuedAs.Status', 'RUNNING'),
          sfn.Condition.stringEquals('$.continuedAs.Status', 'SUCCEEDED'),
        ),
        failedOrSucceeded,
      )
      .otherwise(continuationStopped);
    continuationExists
      .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.failure' })
      .next(continuationRunning);
    const outcome = new sfn.Choice(this, S.runOutcome, { stateName: S.runOutcome })
      .when(sfn.Condition.booleanEquals('$.summary.hasContinuation', true), continueAsNew)
      .otherwise(failedOrSucceeded);

    const definition = start.next(plan).next(exportJobs).next(finalize).next(outcome);

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

  /** A Lambda task: the function's result is the state's result; shared Retry list. */
  #task(
    name: string,
    fn: lambda.IFunction,
    options: { payload: Record<string, unknown>; resultPath: string; timeout?: Duration },
  ): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, name, {
      stateName: name,
      lambdaFunction: fn,
      payload: sfn.TaskInput.fromObject(options.payload),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: options.resultPath,
      taskTimeout: sfn.Timeout.duration(options.timeout ?? SHORT_TASK_TIMEOUT),
    });
    task.addRetry({
      errors: [...LEASE_WAIT_ERROR_NAMES],
      ...LEASE_WAIT,
      jitterStrategy: sfn.JitterType.NONE,
    });
    task.addRetry({
      errors: [...RETRIED_ERROR_NAMES, ...LAMBDA_SERVICE_ERROR_NAMES],
      interval: Duration.seconds(2),
      backoffRate: 2,
      maxAttempts: 5,
      maxDelay: Duration.minutes(1),
      jitterStrategy: sfn.JitterType.FULL,
    });
    // A crash (out of memory, a hard timeout) may repeat with the same input: once more, then
    // the Catch ends the job with the crash's name.
    task.addRetry({
      errors: [...LAMBDA_CRASH_ERROR_NAMES],
      interval: Duration.seconds(5),
      backoffRate: 2,
      maxAttempts: 1,
      jitterStrategy: sfn.JitterType.FULL,
    });
    return task;
  }

  #notify(name: string, topic: sns.ITopic, message: Record<string, unknown>): tasks.SnsPublish {
    const task = new tasks.SnsPublish(this, name, {
      stateName: name,
      topic,
      subject: 'report-export run failed',
      message: sfn.TaskInput.fromObject(message),
      resultPath: '$.notified',
      taskTimeout: sfn.Timeout.duration(SHORT_TASK_TIMEOUT),
    });
    task.addRetry({
      errors: [...SNS_RETRIED_ERROR_NAMES],
      interval: Duration.seconds(2),
      backoffRate: 2,
      maxAttempts: 3,
      jitterStrategy: sfn.JitterType.FULL,
    });
    return task;
  }
}
