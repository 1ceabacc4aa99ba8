export {
  EXPORT_ERROR_CODES,
  ExportConfigError,
  ExportError,
  type ExportErrorCode,
  PublishError,
  RowConversionError,
  VerificationError,
} from './errors';
export { type ExportOptions, exportReportResult } from './export-report-result';
export type { ExportSummary, PartitionSummary } from './export-summary';
export { MANIFEST_NAME, OUTPUT_FORMATS, type OutputFormat, type OutputLayout } from './layout';
export { PARQUET_CODECS, type ParquetCodec } from './parquet-encoder';
export type { ManifestFile, PartitionManifest } from './publish';
export { type ExportLogger, UNKNOWN_MEMBER_POLICIES, type UnknownMemberPolicy } from './row-mapper';
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
export { datesOfWindow, type ExportWindow } from './window';
export { zstdAvailable } from './zstd';
