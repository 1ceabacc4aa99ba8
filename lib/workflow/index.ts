export {
  LAMBDA_CRASH_ERROR_NAMES,
  LAMBDA_SERVICE_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SFN_EXECUTION_EXISTS_ERROR_NAME,
  SFN_RETRIED_ERROR_NAMES,
  SNS_RETRIED_ERROR_NAMES,
  TASK_ERROR_NAMES,
} from './error-table';
export { InvalidConfigError, InvalidInputError, WORKFLOW_ERROR_CODES } from './errors';
export {
  type FinalizeOutput,
  type HeldReportPartition,
  heldReportPartitions,
  type MetricsSink,
} from './finalize';
export {
  createCheckStatusHandler,
  createExportResultsHandler,
  createFinalizeHandler,
  createPlanHandler,
  createRequestReportHandler,
  type TaskContext,
} from './handlers';
export { type ExecutionInput, parseExecutionInput } from './input';
export { type Job, type Plan, planExecution } from './plan';
export {
  type PartialDay,
  parseRunRecord,
  type RunRecord,
  type RunRecordJob,
  runRecordKey,
} from './run-record';
export {
  createWorkflowRuntime,
  DEFAULT_TABLE_CATALOG,
  type WorkflowLogger,
  type WorkflowRuntime,
} from './runtime';
export { SecretTokenSource, type ServiceSecret, TOKEN_REFRESH_LEASE } from './service-secret';
export {
  type ConfiguredReport,
  jobsWithinBudget,
  PROMOTED_COLUMNS_SCHEMA,
  SETTINGS_DEFAULTS,
  type SettingsEnvironment,
  STATE_DATA_LIMIT_BYTES,
  settingsFromEnvironment,
  type WorkflowSettings,
} from './settings';
