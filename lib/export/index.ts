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
  VerificationError,
} from './errors';
export { EXPORT_DEFAULTS, type ExportOptions } from './export-options';
export { exportReportResult } from './export-report-result';
export type { ExportSummary, PartitionSummary } from './export-summary';
export { PARQUET_CODECS, type ParquetCodec } from './formats/parquet-encoder';
export { zstdAvailable } from './formats/zstd';
export { MANIFEST_NAME, OUTPUT_FORMATS, type OutputFormat, type OutputLayout } from './layout';
export type { ManifestFile, PartitionManifest } from './publish/publish';
export { removeStaleSpill } from './read-partitions';
export {
  COLUMN_KINDS,
  COLUMNS,
  type ColumnDefinition,
  csvHeader,
  type GlueColumn,
  glueColumns,
  gluePartitionKeys,
  PARTITION_COLUMN,
  PARTITION_KEYS,
  parquetSchema,
  SCHEMA_VERSION,
} from './schema';
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
  type SpilledFile,
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
