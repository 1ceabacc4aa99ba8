// No CDK import here: the local runner reads these names without loading aws-cdk-lib.

/** State names: the contract with lib/local, which maps each Task to its handler by name. */
export const STATE_NAMES = {
  start: 'Start',
  plan: 'Plan',
  exportJobs: 'ExportJobs',
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
  finalize: 'Finalize',
  runOutcome: 'RunOutcome',
  failedJobs: 'AnyJobFailed',
  notifyFailure: 'NotifyFailure',
  exportFailed: 'ExportFailed',
  continueAsNew: 'ContinueAsNew',
  continuationExists: 'ContinuationExists',
  continuationRunning: 'ContinuationRunning',
  continuationStopped: 'ContinuationStopped',
  succeeded: 'Succeeded',
  recordFailure: 'RecordFailure',
  notifyCaughtFailure: 'NotifyCaughtFailure',
  runFailed: 'RunFailed',
} as const;

/** Every Task state: the Lambda tasks, the SNS notifications and the continuation. */
export const TASK_STATES = [
  STATE_NAMES.plan,
  STATE_NAMES.requestReport,
  STATE_NAMES.checkStatus,
  STATE_NAMES.exportResults,
  STATE_NAMES.finalize,
  STATE_NAMES.recordFailure,
  STATE_NAMES.notifyFailure,
  STATE_NAMES.notifyCaughtFailure,
  STATE_NAMES.continueAsNew,
  STATE_NAMES.continuationExists,
] as const;
