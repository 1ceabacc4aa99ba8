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
export { PARQUET_CODECS, type ParquetCodec } from './formats/parquet-encoder';
export { zstdAvailable } from './formats/zstd';
export { MANIFEST_NAME, OUTPUT_FORMATS, type OutputFormat, type OutputLayout } from './layout';
export type { ManifestFile, PartitionManifest } from './publish/publish';
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
  type ExportLogger,
  type PartitionOutput,
  type SpilledFile,
  UNKNOWN_MEMBER_POLICIES,
  type UnknownMemberPolicy,
} from './types';
export { datesOfWindow, type ExportWindow } from './window';
