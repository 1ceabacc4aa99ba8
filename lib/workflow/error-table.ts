import {
  API_ERROR_CODES,
  API_ERROR_TABLE,
  type ApiErrorCode,
  OAUTH_ERROR_CODES,
  type OAuthErrorCode,
} from '../api';
import { EXPORT_ERROR_CODES, type ExportErrorCode } from '../export';
import { WORKFLOW_ERROR_CODES as W, type WorkflowErrorCode } from './errors';

/**
 * The one table of what happens to a task's error. The state machine's Retry and Catch
 * lists (lib/infra/export-workflow.ts), the handlers' mapping of the client's and the
 * export core's errors (classify.ts) and the tests all read it; the compiler checks that
 * every code of every module has a row.
 *
 * - `transient`: retried with exponential backoff and full jitter (bounded).
 * - `lease-wait`: another execution holds a lease; retried with waits that together
 *   outlast the longest lease (see LEASE_WAIT in export-workflow.ts).
 * - `split`: the export task splits the window into smaller ones and goes on; where it
 *   cannot split (a single piece, a preset), the state machine retries it like `transient`.
 * - `terminal`: the job ends at once (caught, recorded, notified).
 * - `directory-retry`: a contact directory's read failed after the client's own retries: the
 *   SyncDirectories task alone retries it, a couple of times with backoff, then its outcome
 *   names it (a directory never fails the execution).
 */
export type ErrorOutcome = 'transient' | 'lease-wait' | 'split' | 'terminal' | 'directory-retry';

/** The codes a task fails with: the workflow's own and the two client errors it passes on. */
export type TaskErrorCode =
  | WorkflowErrorCode
  | typeof OAUTH_ERROR_CODES.invalidGrant
  | typeof API_ERROR_CODES.pollBudgetExhausted;

/** The error name (Step Functions `ErrorEquals`) of each task error code: the classes' literal names. */
export const TASK_ERROR_NAMES = {
  [W.invalidInput]: 'InvalidInputError',
  [W.invalidConfig]: 'InvalidConfigError',
  [W.serviceUnavailable]: 'ServiceUnavailableError',
  [W.reportFailed]: 'ReportRunFailedError',
  [W.rowLimit]: 'RowLimitError',
  [W.leaseBusy]: 'LeaseBusyError',
  [W.deadline]: 'DeadlineError',
  [W.exportFailed]: 'ExportFailedError',
  [W.storeFailed]: 'StoreFailedError',
  [W.requestRejected]: 'RequestRejectedError',
  [W.spillBudgetExceeded]: 'SpillBudgetExceededError',
  [W.continuationStopped]: 'ContinuationStoppedError',
  [W.tenantConfigInvalid]: 'TenantConfigError',
  [W.tenantDisabled]: 'TenantDisabledError',
  [W.stagedRunInvalid]: 'StagedRunInvalidError',
  [W.tableNotPrepared]: 'TableNotPreparedError',
  [W.directoryRead]: 'DirectoryReadError',
  [W.directoryListingIncomplete]: 'DirectoryListingIncompleteError',
  // The client's names, from its table (the class the client throws).
  [OAUTH_ERROR_CODES.invalidGrant]: API_ERROR_TABLE[OAUTH_ERROR_CODES.invalidGrant].name,
  // Named by the state machine's PollBudgetSpent state (the loop's budget is counted there).
  [API_ERROR_CODES.pollBudgetExhausted]: API_ERROR_TABLE[API_ERROR_CODES.pollBudgetExhausted].name,
} as const satisfies Record<TaskErrorCode, string>;
type TaskErrorName = (typeof TASK_ERROR_NAMES)[TaskErrorCode];

/** What the state machine does with each task error. */
export const TASK_ERROR_OUTCOMES = {
  [W.invalidInput]: 'terminal',
  [W.invalidConfig]: 'terminal',
  [W.serviceUnavailable]: 'transient',
  [W.reportFailed]: 'terminal',
  [W.rowLimit]: 'terminal',
  [W.leaseBusy]: 'lease-wait',
  [W.deadline]: 'split',
  [W.exportFailed]: 'terminal',
  [W.storeFailed]: 'transient',
  [W.requestRejected]: 'terminal',
  // The same rows need the same storage on the next attempt; a day cannot be split across
  // partitions (it is published once), so only more ephemeral storage helps.
  [W.spillBudgetExceeded]: 'terminal',
  // The continuation's name is taken by the stopped execution: only a backfill can redo its days.
  [W.continuationStopped]: 'terminal',
  // An operator corrects the entry, or enables the tenant: a retry reads the same entry.
  [W.tenantConfigInvalid]: 'terminal',
  [W.tenantDisabled]: 'terminal',
  // The staged files are what they are: a retry reads the same ones.
  [W.stagedRunInvalid]: 'terminal',
  // The export reads the same table again: only the committer's PrepareTables changes it.
  [W.tableNotPrepared]: 'terminal',
  [W.directoryRead]: 'directory-retry',
  // The split search found no complete listing: the same service answers the same way.
  [W.directoryListingIncomplete]: 'terminal',
  // Each retry would redeem another refresh token, and fail the same way.
  [OAUTH_ERROR_CODES.invalidGrant]: 'terminal',
  [API_ERROR_CODES.pollBudgetExhausted]: 'terminal',
} as const satisfies Record<TaskErrorCode, ErrorOutcome>;

/** Classify an error by its cause (the export core's "the source failed" wraps the client's error). */
export const BY_CAUSE = 'cause';

/**
 * Which task error each code of the client (lib/api) and the export core (lib/export)
 * becomes when a handler throws it.
 */
export const SOURCE_ERROR_CODES = {
  [API_ERROR_CODES.badRequest]: W.requestRejected,
  // The client already refreshed once and retried: a fresh token refused again will not
  // pass by retrying (each retry would redeem another refresh token).
  [API_ERROR_CODES.unauthorized]: OAUTH_ERROR_CODES.invalidGrant,
  [API_ERROR_CODES.forbidden]: W.requestRejected,
  [API_ERROR_CODES.notFound]: W.requestRejected,
  [API_ERROR_CODES.rateLimited]: W.serviceUnavailable,
  [API_ERROR_CODES.server]: W.serviceUnavailable,
  [API_ERROR_CODES.unexpectedStatus]: W.requestRejected,
  [API_ERROR_CODES.redirect]: W.requestRejected,
  [API_ERROR_CODES.connection]: W.serviceUnavailable,
  [API_ERROR_CODES.timeout]: W.serviceUnavailable,
  [API_ERROR_CODES.aborted]: W.deadline,
  [API_ERROR_CODES.protocol]: W.requestRejected,
  [API_ERROR_CODES.responseTooLarge]: W.requestRejected,
  [API_ERROR_CODES.truncatedBody]: W.serviceUnavailable,
  [API_ERROR_CODES.rowCountMismatch]: W.serviceUnavailable,
  // The service sends the same value, or the same coding, again: a retry fails the same way.
  [API_ERROR_CODES.valueTooDeep]: W.requestRejected,
  [API_ERROR_CODES.unsupportedEncoding]: W.requestRejected,
  [API_ERROR_CODES.validation]: W.requestRejected,
  [API_ERROR_CODES.reportFailed]: W.reportFailed,
  [API_ERROR_CODES.pollBudgetExhausted]: API_ERROR_CODES.pollBudgetExhausted,
  // Other RFC 6749 errors reach a task only through the secret's token source, which has
  // already turned invalid_client/unauthorized_client into invalid_grant: the rest
  // (temporarily_unavailable, server_error) may pass.
  [OAUTH_ERROR_CODES.tokenEndpoint]: W.serviceUnavailable,
  [OAUTH_ERROR_CODES.invalidGrant]: OAUTH_ERROR_CODES.invalidGrant,
  [OAUTH_ERROR_CODES.authorizationResponse]: W.requestRejected,
  [OAUTH_ERROR_CODES.stateMismatch]: W.requestRejected,
  [OAUTH_ERROR_CODES.invalidResponse]: W.requestRejected,
  [OAUTH_ERROR_CODES.noRefreshToken]: OAUTH_ERROR_CODES.invalidGrant,
  // A rotated refresh token may be lost: alarm, do not loop.
  [OAUTH_ERROR_CODES.persistenceFailed]: W.exportFailed,
  [EXPORT_ERROR_CODES.configInvalid]: W.exportFailed,
  [EXPORT_ERROR_CODES.rowInvalid]: W.exportFailed,
  [EXPORT_ERROR_CODES.rowOutsideWindow]: W.exportFailed,
  [EXPORT_ERROR_CODES.unknownMember]: W.exportFailed,
  [EXPORT_ERROR_CODES.timeZoneInvalid]: W.exportFailed,
  [EXPORT_ERROR_CODES.countMismatch]: W.storeFailed,
  [EXPORT_ERROR_CODES.rowLimitExceeded]: W.exportFailed,
  [EXPORT_ERROR_CODES.sourceFailed]: BY_CAUSE,
  [EXPORT_ERROR_CODES.spillFailed]: W.storeFailed,
  [EXPORT_ERROR_CODES.aborted]: W.deadline,
  [EXPORT_ERROR_CODES.stagingFailed]: W.storeFailed,
  [EXPORT_ERROR_CODES.verifyFailed]: W.exportFailed,
  [EXPORT_ERROR_CODES.publishFailed]: W.storeFailed,
  [EXPORT_ERROR_CODES.rollbackFailed]: W.exportFailed,
  [EXPORT_ERROR_CODES.spillBudgetExceeded]: W.spillBudgetExceeded,
  // The task runs a summary day by day: a longer window reaching the core is a defect.
  [EXPORT_ERROR_CODES.summaryWindowInvalid]: W.exportFailed,
  // summaryMismatch=fail: the operator asked for a hard stop.
  [EXPORT_ERROR_CODES.summaryMismatch]: W.exportFailed,
  // A report edited into the other shape: an operator decides (forceReplace), not a retry.
  [EXPORT_ERROR_CODES.reportShapeChanged]: W.exportFailed,
  // Every attempt met another writer's commit: a later attempt of the task may land.
  [EXPORT_ERROR_CODES.tableCommitFailed]: W.storeFailed,
  // A table's metadata this export cannot write onto: an operator looks at the table.
  [EXPORT_ERROR_CODES.tableInvalid]: W.exportFailed,
  [EXPORT_ERROR_CODES.tableNotPrepared]: W.tableNotPrepared,
  // Named in a staged run's outcome (the committer sets the run aside), never thrown; were
  // it thrown, the same files would be refused again.
  [EXPORT_ERROR_CODES.stagedRunInvalid]: W.stagedRunInvalid,
  // The committer could not read a staged run or its files: the store may answer next time.
  [EXPORT_ERROR_CODES.stagedReadFailed]: W.storeFailed,
} as const satisfies Record<ApiErrorCode | OAuthErrorCode | ExportErrorCode, TaskErrorCode | typeof BY_CAUSE>;

function namesWith(...outcomes: ErrorOutcome[]): TaskErrorName[] {
  return (Object.keys(TASK_ERROR_OUTCOMES) as TaskErrorCode[])
    .filter((code) => outcomes.includes(TASK_ERROR_OUTCOMES[code]))
    .map((code) => TASK_ERROR_NAMES[code]);
}

/** Retried with exponential backoff (a split the task could not make is retried too). */
export const RETRIED_ERROR_NAMES: readonly TaskErrorName[] = namesWith('transient', 'split');
/** Retried with waits longer than a lease. */
export const LEASE_WAIT_ERROR_NAMES: readonly TaskErrorName[] = namesWith('lease-wait');
/** Retried by the SyncDirectories task only (DIRECTORY_SYNC_RETRY), then named in its outcome. */
export const DIRECTORY_RETRIED_ERROR_NAMES: readonly TaskErrorName[] = namesWith('directory-retry');
/** Never retried. */
export const TERMINAL_ERROR_NAMES: readonly TaskErrorName[] = namesWith('terminal');

/**
 * The failures that need a person now, notified by the state machine as they happen (every
 * other failure waits for the night's digest, digest.ts): a revoked or spent login
 * (`invalid_grant`, and a secret without a refresh token: only a new login by the tenant's
 * user mends it, and every night until then is lost), a tenant's registry entry that is
 * invalid (every run of the tenant fails until an operator corrects it), and the
 * deployment's own settings refused at a cold start (every tenant's runs fail). None of them
 * passes by retrying or by waiting for tomorrow's run.
 */
export const IMMEDIATE_NOTICE_ERROR_NAMES: readonly TaskErrorName[] = [
  TASK_ERROR_NAMES[OAUTH_ERROR_CODES.invalidGrant],
  TASK_ERROR_NAMES[W.tenantConfigInvalid],
  TASK_ERROR_NAMES[W.invalidConfig],
];

/**
 * Lambda's own errors, which Step Functions reports for a Lambda task: the invoke failed
 * before the handler ran (retried like `transient`).
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html
 */
export const LAMBDA_SERVICE_ERROR_NAMES = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
] as const;

/**
 * The function crashed: out of memory, a hard timeout, the process exited. Step Functions'
 * guide names these `Lambda.Unknown` (the page above); the invoke's own `errorType`, which
 * a Task reports as its error, is `Runtime.OutOfMemory` or `Runtime.ExitError` (signal:
 * killed) for a crash and `Sandbox.Timedout` for a timeout on current runtimes. The same
 * input may crash again: retried once, then the job fails with the crash's name.
 * Deliberately in no list (caught at once, as in AWS with these lists): an unhandled
 * rejection (`Runtime.UnhandledPromiseRejection`, a defect the same input repeats) and a
 * response over Lambda's 6 MB (`Function.ResponseSizeTooLarge`). `States.DataLimitExceeded`
 * is terminal: no Retry or Catch of `States.ALL` sees it.
 */
export const LAMBDA_CRASH_ERROR_NAMES = [
  'Lambda.Unknown',
  'Runtime.OutOfMemory',
  'Runtime.ExitError',
  'Sandbox.Timedout',
] as const;

/**
 * Errors of the optimized SNS integration (sns:publish) worth a retry: throttling and the
 * service's own failures, named as Step Functions reports them (`SNS.` + the SDK's class).
 */
export const SNS_RETRIED_ERROR_NAMES = [
  'SNS.ThrottledException',
  'SNS.InternalErrorException',
  'SNS.AmazonSNSException',
] as const;

/**
 * Errors of the AWS SDK integration with Step Functions (aws-sdk:sfn:*) worth a retry. Step
 * Functions names them `<Service>.<Exception>` in PascalCase: `Sfn.SfnException` is the
 * service's unmodelled errors, throttling and 5xx among them.
 * https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html
 */
export const SFN_RETRIED_ERROR_NAMES = ['Sfn.SfnException'] as const;

/** StartExecution found an execution of that name (a repeated start, or one that closed). */
export const SFN_EXECUTION_EXISTS_ERROR_NAME = 'Sfn.ExecutionAlreadyExistsException';
