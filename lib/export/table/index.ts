// The Iceberg tables' surface: locations, loading and creating a table, the overwrite commit,
// history (snapshots, time travel, rollback, retention) and the types of the format.

export {
  type CommitResult,
  commitOverwrite,
  type NewDataFile,
  type OverwriteChange,
  type ReportDays,
  type ReportsOverwrite,
  reportsOf,
  type TableOverwrite,
} from './commit';
export { COMMIT_REQUEST_COUNTS_KEY, COMMIT_REQUESTS_KEY, type SetAsideRequest } from './commit-batch';
export { COMMIT_DEFAULTS, type CommitCounts, type CommitOptions } from './commit-loop';
export {
  COMMIT_REQUESTS_FOLDER,
  type CommitRequest,
  INVALID_REQUESTS_FOLDER,
  MAX_REQUEST_BYTES,
  REQUEST_CLOCK_SKEW_MS,
} from './commit-requests';
export {
  checkDataFile,
  DataFileMismatch,
  footerRows,
  isDataFileKey,
  MAX_FOOTER_BYTES,
  readBounded,
} from './data-file-check';
export {
  commitOverwriteGrouped,
  GROUP_COMMIT_DEFAULTS,
  type GroupCommitOptions,
  type GroupCommitResult,
} from './group-commit';
export { keyOf, type TableLocation, tableLocation, uriOf } from './location';
export {
  catalogColumns,
  fileSchema,
  PREVIOUS_VERSIONS_MAX,
  TABLE_PROPERTIES,
  tableProperties,
} from './metadata';
export { parseMetadata, stringifyMetadata } from './metadata-json';
export {
  expireSnapshots,
  MAX_SNAPSHOT_AGE_MS,
  MIN_SNAPSHOTS_TO_KEEP,
  RETENTION_PROPERTIES,
  TABLE_RETENTION,
  tableRetention,
} from './retention';
export {
  DT_TYPE,
  GLUE_TYPE_OF,
  ICEBERG_TYPES,
  initialSchema,
  partitionSpec,
  type TableColumn,
  type Tenancy,
  tableColumns,
} from './schema-mapping';
export { COMMIT_ID_KEY, checkTenancy, currentSnapshot, isTenantedTable } from './snapshot-builder';
export {
  type AsOf,
  type LiveFile,
  listSnapshots,
  liveFiles,
  resolveSnapshot,
  rollbackTo,
} from './snapshots';
export {
  ensureTable,
  type IcebergTable,
  type LakeTablesLocation,
  type LoadedTable,
  lakeTable,
  loadTable,
  tableName,
} from './table';
export {
  changedSince,
  commitTenantRollback,
  type PartitionRestore,
  partitionName,
  planTenantRollback,
  ROLLBACK_REFUSALS,
  ROLLBACK_TENANT_KEY,
  ROLLBACK_TO_KEY,
  type RollbackRefusal,
  RollbackRefusedError,
  type TenantRollbackPlan,
  type TenantRollbackResult,
} from './tenant-rollback';
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
} from './types';
