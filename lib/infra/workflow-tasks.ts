import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import {
  IMMEDIATE_NOTICE_ERROR_NAMES,
  LAMBDA_CRASH_ERROR_NAMES,
  LAMBDA_SERVICE_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SFN_RETRIED_ERROR_NAMES,
  SNS_RETRIED_ERROR_NAMES,
  TASK_ERROR_NAMES,
  WORKFLOW_ERROR_CODES,
} from '../workflow';
import { STATE_NAMES } from './state-names';

/*
 * The export workflow's Task builders and the states of one job (the Map's iteration), apart
 * from ExportWorkflow (export-workflow.ts), which assembles the definition from them.
 */

/** Above the short functions' 120 s timeout, so the function's own timeout fires first. */
export const SHORT_TASK_TIMEOUT = Duration.seconds(150);

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

/** A Lambda task: the function's result is the state's result; the one table's Retry lists. */
export function lambdaTask(
  scope: Construct,
  name: string,
  fn: lambda.IFunction,
  options: {
    payload: Record<string, unknown>;
    /** Where the result goes; undefined: it replaces the state (no ResultPath, ASL's `$`). */
    resultPath: string | undefined;
    timeout?: Duration;
    /** A Retry of the task's own, before the shared ones (Step Functions takes the first that matches). */
    firstRetry?: sfn.RetryProps;
  },
): tasks.LambdaInvoke {
  const task = new tasks.LambdaInvoke(scope, name, {
    stateName: name,
    lambdaFunction: fn,
    payload: sfn.TaskInput.fromObject(options.payload),
    payloadResponseOnly: true,
    retryOnServiceExceptions: false,
    ...(options.resultPath === undefined ? {} : { resultPath: options.resultPath }),
    taskTimeout: sfn.Timeout.duration(options.timeout ?? SHORT_TASK_TIMEOUT),
  });
  if (options.firstRetry !== undefined) task.addRetry(options.firstRetry);
  task.addRetry({
    errors: [...LEASE_WAIT_ERROR_NAMES],
    ...LEASE_WAIT,
    jitterStrategy: sfn.JitterType.NONE,
  });
  task.addRetry({
    ...transientRetry([...RETRIED_ERROR_NAMES, ...LAMBDA_SERVICE_ERROR_NAMES], 5),
    maxDelay: Duration.minutes(1),
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

/** A failure notice to the alarm topic, retried on SNS's transient errors. */
function notifyTask(
  scope: Construct,
  name: string,
  topic: sns.ITopic,
  message: Record<string, unknown>,
): tasks.SnsPublish {
  const task = new tasks.SnsPublish(scope, name, {
    stateName: name,
    topic,
    subject: 'report-export run failed',
    message: sfn.TaskInput.fromObject(message),
    resultPath: '$.notified',
    taskTimeout: sfn.Timeout.duration(SHORT_TASK_TIMEOUT),
  });
  task.addRetry(transientRetry(SNS_RETRIED_ERROR_NAMES, 3));
  return task;
}

/** A failure's path to its end: `notify` (a notice, then failed) and `fail` (failed without one). */
export interface FailurePath {
  readonly notify: tasks.SnsPublish;
  readonly fail: sfn.Fail;
}

/**
 * A failure notice, then the execution failed with the error and cause at `failure`'s paths
 * (failed as well when the notice itself fails). Returns both the notice (the path's first
 * state when it notifies) and the Fail state (the first when it does not).
 */
export function notifyAndFail(
  scope: Construct,
  names: { notify: string; fail: string },
  topic: sns.ITopic,
  message: Record<string, unknown>,
  failure: { errorPath: string; causePath: string },
): FailurePath {
  const fail = new sfn.Fail(scope, names.fail, { stateName: names.fail, ...failure });
  const notify = notifyTask(scope, names.notify, topic, message);
  notify.addCatch(fail, { errors: ['States.ALL'], resultPath: '$.notifyError' }).next(fail);
  return { notify, fail };
}

/**
 * Notifies at once only a failure that needs a person now (IMMEDIATE_NOTICE_ERROR_NAMES of
 * lib/workflow: a revoked login, an invalid tenant entry, the deployment's settings refused):
 * a Choice on the error name at `errorPath`; every other failure just fails the execution and
 * is named in the night's digest.
 */
export function notifyWhenUrgent(
  scope: Construct,
  name: string,
  errorPath: string,
  path: FailurePath,
): sfn.Choice {
  return new sfn.Choice(scope, name, { stateName: name })
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(errorPath),
        sfn.Condition.isString(errorPath),
        sfn.Condition.or(
          ...IMMEDIATE_NOTICE_ERROR_NAMES.map((n) => sfn.Condition.stringEquals(errorPath, n)),
        ),
      ),
      path.notify,
    )
    .otherwise(path.fail);
}

/**
 * A call of the continuation to Step Functions itself (the AWS SDK integration): its result
 * selected into `$.continuedAs`, retried on the service's transient errors.
 */
export function sfnTask(
  scope: Construct,
  name: string,
  call: {
    action: 'startExecution' | 'describeExecution';
    parameters: Record<string, unknown>;
    iamResource: string;
    resultSelector: Record<string, string>;
  },
): tasks.CallAwsService {
  const task = new tasks.CallAwsService(scope, name, {
    stateName: name,
    service: 'sfn',
    action: call.action,
    parameters: call.parameters,
    iamResources: [call.iamResource],
    iamAction: `states:${call.action.charAt(0).toUpperCase()}${call.action.slice(1)}`,
    resultSelector: call.resultSelector,
    resultPath: '$.continuedAs',
    taskTimeout: sfn.Timeout.duration(SHORT_TASK_TIMEOUT),
  });
  task.addRetry(transientRetry(SFN_RETRIED_ERROR_NAMES, 4));
  return task;
}

/** Exponential backoff with full jitter from 2 s, for an integration's transient errors. */
function transientRetry(errors: readonly string[], maxAttempts: number): sfn.RetryProps {
  return {
    errors: [...errors],
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts,
    jitterStrategy: sfn.JitterType.FULL,
  };
}

/** The functions of a job's tasks. */
interface JobFunctions {
  readonly requestReport: lambda.IFunction;
  readonly checkStatus: lambda.IFunction;
  readonly exportResults: lambda.IFunction;
}

/**
 * One job, the Map's iteration: a loop of request -> wait -> poll, then export (which may
 * queue more pieces), ending in JobSucceeded or JobFailed (the job's result, its cursor
 * with it). Returns the iteration's first state.
 */
export function jobIteration(scope: Construct, f: JobFunctions, exportTaskTimeout: Duration): sfn.IChainable {
  const S = STATE_NAMES;
  const jobFailed = new sfn.Pass(scope, S.jobFailed, {
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
  const jobSucceeded = new sfn.Pass(scope, S.jobSucceeded, {
    stateName: S.jobSucceeded,
    parameters: {
      'jobId.$': '$.job.jobId',
      'reportId.$': '$.job.reportId',
      'reportName.$': '$.job.reportName',
      status: 'SUCCEEDED',
      'progress.$': '$.cursor',
    },
  });
  const catchInto = { errors: ['States.ALL'], resultPath: '$.failure' };
  const requestReport = lambdaTask(scope, S.requestReport, f.requestReport, {
    payload: { ...JOB_PAYLOAD, 'options.$': '$.options' },
    resultPath: '$.cursor',
  }).addCatch(jobFailed, catchInto);
  const wait = new sfn.Wait(scope, S.waitForReport, {
    stateName: S.waitForReport,
    time: sfn.WaitTime.secondsPath('$.cursor.waitSeconds'),
  });
  const checkStatus = lambdaTask(scope, S.checkStatus, f.checkStatus, {
    payload: JOB_PAYLOAD,
    resultPath: '$.cursor',
  }).addCatch(jobFailed, catchInto);
  const exportResults = lambdaTask(scope, S.exportResults, f.exportResults, {
    payload: JOB_PAYLOAD,
    resultPath: '$.cursor',
    timeout: exportTaskTimeout,
  }).addCatch(jobFailed, catchInto);
  const reportFailed = new sfn.Pass(scope, S.reportFailed, {
    stateName: S.reportFailed,
    result: sfn.Result.fromObject({
      Error: TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.reportFailed],
      Cause: 'The service ended the report run as failed',
    }),
    resultPath: '$.failure',
  }).next(jobFailed);
  const pollBudgetSpent = new sfn.Pass(scope, S.pollBudgetSpent, {
    stateName: S.pollBudgetSpent,
    result: sfn.Result.fromObject({
      Error: TASK_ERROR_NAMES.API_POLL_BUDGET_EXHAUSTED,
      Cause:
        'The report run did not complete within the poll budget (MAX_POLLS_PER_JOB); nothing was published',
    }),
    resultPath: '$.failure',
  }).next(jobFailed);
  const jobDone = new sfn.Choice(scope, S.jobDone, { stateName: S.jobDone })
    .when(sfn.Condition.booleanEquals('$.cursor.done', true), jobSucceeded)
    .otherwise(requestReport);
  const reportDone = new sfn.Choice(scope, S.reportDone, { stateName: S.reportDone })
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
  return requestReport;
}
