export {
  EXPORT_ERROR_CODES,
  ExportConfigError,
  ExportError,
  type ExportErrorCode,
  PublishError,
  ReportShapeChangedError,
  RowConversionError,
  RowOutsideWindowError,
  SpillBudgetError,
  type SpillShortage,
  TableCommitFailedError,
  TableInvalidError,
  VerificationError,
} from './errors';
export { EXPORT_DEFAULTS, type ExportOptions, type LakeTables } from './export-options';
export { exportReportResult } from './export-report-result';
export type { ExportSummary, PartitionSummary, StagedRunRef, TableCommitSummary } from './export-summary';
export type { IcebergFileSchema } from './formats/iceberg-file';
export { PARQUET_CODECS, type ParquetCodec } from './formats/parquet-encoder';
export { zstdAvailable } from './formats/zstd';
export {
  backupKey,
  checkLayout,
  MANIFEST_NAME,
  manifestKey,
  OUTPUT_FORMATS,
  type OutputFormat,
  type OutputLayout,
  partitionPrefix,
  partKey,
  type StagingLayout,
  stagedKey,
  stagingArea,
  stagingRoot,
  TENANT_SEGMENT,
  tenantPrefix,
  tenantSegment,
} from './layout';
export {
  type CommitStagedOptions,
  type CommitTarget,
  commitStagedRuns,
  STAGED_COMMIT_KEY,
  type StagedCommitResult,
  type StagedRunOutcome,
} from './publish/commit-staged';
export {
  type CommitStagedOptions,
  type CommitTarget,
  commitStagedRuns,
  STAGED_COMMIT_KEY,
  type StagedCommitResult,
  type StagedRunOutcome,
} from './publish/commit-staged';
export type { ManifestFile, PartitionManifest } from './publish/publish';
export { recoverDeadStaging, type StagingRecovery } from './publish/recover-staging';
export { dataFileKey, tableDataPrefix } from './publish/table-publish';
export {
  MAX_STAGED_RUN_BYTES,
  STAGED_RUN_NAME,
  STAGED_RUN_TTL_MS,
  stagedRunKey,
} from './publish/staged-run';
export {
  MAX_STAGED_RUN_BYTES,
  STAGED_RUN_NAME,
  STAGED_RUN_TTL_MS,
  stagedRunKey,
} from './publish/staged-run';
export { TEST_PAUSE_VARIABLE } from './publish/test-pause';
export { publishTenantRollback, type TableRollbackOutcome } from './publish/tenant-rollback-publish';
export { removeStaleSpill } from './read-partitions';
export { isSummaryResult } from './resolve-export-options';
export { emptyQuality } from './rows/quality';
export {
  CALLS_SCHEMA,
  COLUMN_KINDS,
  COLUMNS,
  type ColumnDefinition,
  type ColumnKind,
  csvHeader,
  DATASETS,
  type Dataset,
  type GlueColumn,
  glueColumns,
  gluePartitionKeys,
  PARTITION_COLUMN,
  PARTITION_KEYS,
  PROMOTED_TYPES,
  type PromotedColumn,
  type PromotedType,
  parquetSchema,
  SCHEMA_VERSION,
  type TableSchema,
  TENANT_COLUMN,
  tableSchema,
} from './schema';
export {
  type AsOf,
  COMMIT_DEFAULTS,
  COMMIT_ID_KEY,
  COMMIT_REQUESTS_FOLDER,
  COMMIT_REQUESTS_KEY,
  type CommitCounts,
  type CommitOptions,
  type CommitResult,
  catalogColumns,
  commitOverwrite,
  ensureTable,
  expireSnapshots,
  fileSchema,
  type IcebergSchema,
  type IcebergTable,
  initialSchema,
  isTenantedTable,
  keyOf,
  type LakeTablesLocation,
  type LiveFile,
  type LoadedTable,
  lakeTable,
  listSnapshots,
  liveFiles,
  loadTable,
  type NewDataFile,
  type OverwriteChange,
  type PartitionRestore,
  partitionName,
  partitionSpec,
  planTenantRollback,
  ROLLBACK_REFUSALS,
  ROLLBACK_TENANT_KEY,
  ROLLBACK_TO_KEY,
  RollbackRefusedError,
  resolveSnapshot,
  rollbackTo,
  type Snapshot,
  TABLE_PROPERTIES,
  TABLE_RETENTION,
  type TableLocation,
  type TableMetadata,
  type TenantRollbackPlan,
  type TenantRollbackResult,
  tableLocation,
  tableName,
  tableProperties,
} from './table';
export { checkTenantId, TENANT_ID_PATTERN, TENANT_ID_RULE } from './tenant';
export { ZoneConverter } from './time-zone';
export {
  type CallTotals,
  type ExportLogger,
  HELD_BASES,
  type HeldBasis,
  type HeldCallsPartition,
  type HeldPartition,
  type HeldRowsPartition,
  OUTSIDE_WINDOW_POLICIES,
  type OutsideWindowPolicy,
  type PartitionOutput,
  type QualityCounts,
  type SpilledFile,
  type SummaryMismatchPolicy,
  UNKNOWN_MEMBER_POLICIES,
  type UnknownMemberPolicy,
} from './types';
export {
  checkWindowDates,
  dateInZone,
  datesInRange,
  datesOfWindow,
  dayBefore,
  dayWindow,
  parseCalendarDate,
  type ReportWindow,
  shiftDate,
  toReportPeriod,
  windowForDates,
} from './window';
