export type { CommitOutput, CommitTaskInput, JobCommit } from './commit-task';
export {
  buildDigest,
  type DigestTenant,
  digestTenant,
  FAILING_NIGHTS_THRESHOLD,
  MAX_STREAK_NIGHTS,
  type NightDigest,
} from './digest';
export { type DigestMessage, digestMessage, MAX_BODY_BYTES, MAX_SUBJECT_CHARS } from './digest-message';
export {
  type DigestOutput,
  type DigestSettings,
  digestSettingsFromEnvironment,
  publishDigest,
} from './digest-task';
export {
  DIRECTORY_SYNC_RETRY,
  type DirectorySyncSummary,
  directorySyncReportKey,
  type SyncDirectoriesInput,
} from './directory-sync-task';
export {
  DIRECTORY_RETRIED_ERROR_NAMES,
  IMMEDIATE_NOTICE_ERROR_NAMES,
  LAMBDA_CRASH_ERROR_NAMES,
  LAMBDA_SERVICE_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SFN_EXECUTION_EXISTS_ERROR_NAME,
  SFN_RETRIED_ERROR_NAMES,
  SNS_RETRIED_ERROR_NAMES,
  TASK_ERROR_NAMES,
} from './error-table';
export {
  InvalidConfigError,
  InvalidInputError,
  TenantConfigError,
  TenantDisabledError,
  WORKFLOW_ERROR_CODES,
} from './errors';
export {
  type FinalizeOutput,
  type HeldReportPartition,
  heldReportPartitions,
  type MetricsSink,
} from './finalize';
export {
  type AppliedGoals,
  type DayPartition,
  dataInstantOf,
  FRESHNESS_VERDICTS,
  type FreshnessSchedule,
  type FreshnessVerdict,
  goalsAt,
  intradayGoals,
  judgeFreshness,
  LONGEST_EXECUTION_MS,
  NIGHTLY_GRACE_MINUTES,
  nightlyGoals,
  type ReportFreshness,
  recordDatesToRead,
  worstVerdict,
} from './freshness';
export {
  createCheckStatusHandler,
  createCommitHandler,
  createCommitterHandler,
  createDigestHandler,
  createExportResultsHandler,
  createFinalizeHandler,
  createPlanHandler,
  createPrepareTablesHandler,
  createRequestReportHandler,
  createSyncDirectoriesHandler,
  type TaskContext,
} from './handlers';
export { CONTACTS_MODES, type ExecutionInput, INPUT_TOO_LARGE_PHRASE, parseExecutionInput } from './input';
export { type Job, type Plan, planExecution } from './plan';
export type { PrepareTablesInput, PrepareTablesOutput } from './prepare-tables';
export { type HeldDay, type ReportPartitions, type ReportRun, reportPartitions } from './report-partitions';
export {
  type PartialDay,
  parseRunRecord,
  parseRunRecordKey,
  type RunRecord,
  type RunRecordContacts,
  type RunRecordJob,
  type RunRecordKeyParts,
  runRecordKey,
  runRecordsPrefix,
} from './run-record';
export { createWorkflowRuntime, DEFAULT_TABLE_CATALOG } from './runtime';
export type {
  RuntimeOptions,
  RuntimeStores,
  TenantRuntime,
  WorkflowLogger,
  WorkflowRuntime,
} from './runtime-types';
export {
  SecretTokenSource,
  type ServiceSecret,
  TOKEN_REFRESH_LEASE,
  tenantLeaseKey,
  tokenRefreshLease,
} from './service-secret';
export {
  type ConfiguredReport,
  type DeploymentSettings,
  deploymentSettingsFromEnvironment,
  jobsWithinBudget,
  PROMOTED_COLUMNS_SCHEMA,
  SETTINGS_DEFAULTS,
  type SettingsEnvironment,
  STATE_DATA_LIMIT_BYTES,
  settingsFromEnvironment,
  type TenantSettings,
  type WorkflowSettings,
} from './settings';
export {
  type JudgedSchedule,
  type ReportStatus,
  type TenantFreshness,
  type TenantRun,
  tenantFreshness,
} from './tenant-freshness';
export {
  DEFAULT_MAX_TENANT_REPORTS,
  type FreshnessGoals,
  INTRADAY_INTERVALS,
  INTRADAY_SCHEDULE_SCHEMA,
  type IntradaySchedule,
  intradayCron,
  intradayMinute,
  MAX_FRESHNESS_MINUTES,
  parseTenantEntry,
  TENANT_REGIONS,
  type TenantEntry,
  TenantRegistry,
  type TenantRegistryOptions,
  tenantEntryKey,
  tenantRegistryFromUri,
} from './tenant-registry';
export { MAX_CACHED_TENANTS, TENANT_ENTRY_TTL_MS } from './tenant-runtimes';
