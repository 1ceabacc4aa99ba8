// No CDK import here: the local runner reads these names without loading aws-cdk-lib.

/** State names: the contract with lib/local, which maps each Task to its handler by name. */
export const STATE_NAMES = {
  start: 'Start',
  plan: 'Plan',
  prepareTables: 'PrepareTables',
  exportAndSync: 'ExportAndSync',
  exportJobs: 'ExportJobs',
  syncContacts: 'SyncContacts',
  syncDirectories: 'SyncDirectories',
  contactsSkipped: 'ContactsSkipped',
  contactsFailed: 'ContactsFailed',
  requestReport: 'RequestReport',
  waitForReport: 'WaitForReport',
  checkStatus: 'CheckStatus',
  reportDone: 'ReportDone',
  reportFailed: 'ReportFailed',
  pollBudgetSpent: 'PollBudgetSpent',
  exportResults: 'ExportResults',
  jobDone: 'JobDone',
  jobSucceeded: 'JobSucceeded',
  jobFailed: 'JobFailed',
  commit: 'Commit',
  commitFailed: 'CommitFailed',
  finalize: 'Finalize',
  runOutcome: 'RunOutcome',
  failedJobs: 'AnyJobFailed',
  failureNeedsPerson: 'FailureNeedsPerson',
  notifyFailure: 'NotifyFailure',
  exportFailed: 'ExportFailed',
  continueAsNew: 'ContinueAsNew',
  continuationExists: 'ContinuationExists',
  continuationRunning: 'ContinuationRunning',
  continuationStopped: 'ContinuationStopped',
  succeeded: 'Succeeded',
  planFailed: 'PlanFailed',
  planFailureTenant: 'PlanFailureTenant',
  recordFailure: 'RecordFailure',
  caughtFailureNeedsPerson: 'CaughtFailureNeedsPerson',
  notifyCaughtFailure: 'NotifyCaughtFailure',
  runFailed: 'RunFailed',
} as const;

/** Every Task state: the Lambda tasks, the SNS notifications and the continuation. */
export const TASK_STATES = [
  STATE_NAMES.plan,
  STATE_NAMES.prepareTables,
  STATE_NAMES.requestReport,
  STATE_NAMES.checkStatus,
  STATE_NAMES.exportResults,
  STATE_NAMES.syncDirectories,
  STATE_NAMES.commit,
  STATE_NAMES.finalize,
  STATE_NAMES.recordFailure,
  STATE_NAMES.notifyFailure,
  STATE_NAMES.notifyCaughtFailure,
  STATE_NAMES.continueAsNew,
  STATE_NAMES.continuationExists,
] as const;

/**
 * The logical id's start of the Digest function (the stack's `NightDigest` construct, its
 * `Function`): no Task invokes it, so lib/local finds it by this name.
 */
export const DIGEST_FUNCTION_ID = 'NightDigestFunction';
