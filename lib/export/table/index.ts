// The Iceberg tables' surface: locations, loading and creating a table, the overwrite commits
// (a report's days; a directory table's directories), history (snapshots, time travel,
// rollback, retention) and the types of the format.

export { COMMIT_ID_KEY, type CommitResult, commitOverwrite, type OverwriteResult } from './commit/commit';
export { COMMIT_REQUEST_COUNTS_KEY, COMMIT_REQUESTS_KEY, type SetAsideRequest } from './commit/commit-batch';
export { COMMIT_DEFAULTS, type CommitCounts, type CommitOptions } from './commit/commit-loop';
export {
  COMMIT_REQUESTS_FOLDER,
  type CommitRequest,
  INVALID_REQUESTS_FOLDER,
  MAX_REQUEST_BYTES,
  REQUEST_CLOCK_SKEW_MS,
} from './commit/commit-requests';
export {
  checkDataFile,
  DataFileMismatch,
  dataFileExpectation,
  footerRows,
  isDataFileKey,
  MAX_FOOTER_BYTES,
  readBounded,
} from './commit/data-file-check';
export { commitDirectoriesOverwrite, directoryLiveFiles } from './commit/directories-commit';
export {
  commitOverwriteGrouped,
  GROUP_COMMIT_DEFAULTS,
  type GroupCommitOptions,
  type GroupCommitResult,
} from './commit/group-commit';
export { listSnapshots, liveFiles, rollbackTo } from './commit/snapshots';
export {
  ensureTable,
  type IcebergTable,
  type LakeTablesLocation,
  type LoadedTable,
  lakeTable,
  loadTable,
  tableName,
} from './commit/table';
export {
  commitTenantRollback,
  type PartitionRestore,
  partitionName,
  planTenantRollback,
  ROLLBACK_REFUSALS,
  ROLLBACK_TENANT_KEY,
  type RollbackRefusal,
  RollbackRefusedError,
  type TenantRollbackPlan,
  type TenantRollbackResult,
} from './commit/tenant-rollback';
export { keyOf, type TableLocation, tableLocation, uriOf } from './metadata/location';
export {
  catalogColumns,
  currentSnapshot,
  fileSchema,
  PREVIOUS_VERSIONS_MAX,
  TABLE_PROPERTIES,
  tableProperties,
} from './metadata/metadata';
export { parseMetadata, stringifyMetadata } from './metadata/metadata-json';
export {
  expireSnapshots,
  MAX_SNAPSHOT_AGE_MS,
  MIN_SNAPSHOTS_TO_KEEP,
  RETENTION_PROPERTIES,
  TABLE_RETENTION,
  tableRetention,
} from './metadata/retention';
export {
  DIRECTORY_COLUMN,
  DIRECTORY_DATASETS,
  type DirectoryDataset,
  type DirectoryTableSchema,
  DT_TYPE,
  GLUE_TYPE_OF,
  ICEBERG_TYPES,
  initialSchema,
  isDirectorySchema,
  type LakeTableSchema,
  partitionSpec,
  type TableColumn,
  type Tenancy,
  tableColumns,
} from './metadata/schema-mapping';
export {
  checkPartitioning,
  checkTenancy,
  isTenantedTable,
  type TablePartitioning,
  tablePartitioning,
} from './metadata/tenancy';
export type {
  DataFile,
  IcebergField,
  IcebergPrimitive,
  IcebergSchema,
  ManifestEntry,
  ManifestFile,
  PartitionField,
  PartitionSpec,
  PartitionValue,
  Snapshot,
  TableMetadata,
} from './metadata/types';
export {
  type DirectoryPartitionValue,
  isDirectoryPartition,
  type ReportPartitionValue,
} from './metadata/types';
export { type AsOf, changedSince, type LiveFile, resolveSnapshot } from './snapshot/history';
export {
  checkDirectoryId,
  type DirectoriesOverwrite,
  type DirectoryDataFile,
  type DirectoryFiles,
  directoryDataPrefix,
} from './snapshot/replace-directories';
export {
  type NewDataFile,
  type OverwriteChange,
  type ReportDays,
  type ReportsOverwrite,
  reportsOf,
  type TableOverwrite,
} from './snapshot/replace-partitions';
export { ROLLBACK_TO_KEY } from './snapshot/restore';
