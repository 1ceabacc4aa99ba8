/**
 * The Iceberg v2 table format as this project writes and reads it: the subset of the spec
 * (https://iceberg.apache.org/spec/, format version 2) our tables use. Metadata JSON member
 * names are the spec's (kebab-case); manifest and manifest-list records are the spec's Avro
 * field names (snake_case). 64-bit values of Avro records are bigint.
 */

/** A primitive Iceberg type our columns map to (the spec's "Primitive Types"). */
export type IcebergPrimitive =
  | 'string'
  | 'int'
  | 'long'
  | 'double'
  | 'boolean'
  | 'date'
  | 'timestamp'
  | 'timestamptz';

/** A field of a (flat) table schema. */
export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergPrimitive;
  doc?: string;
}

/** A schema as the metadata JSON holds it. */
export interface IcebergSchema {
  type: 'struct';
  'schema-id': number;
  fields: IcebergField[];
}

/** A partition field: identity transforms only (see PARTITION_SPEC in schema-mapping). */
export interface PartitionField {
  'source-id': number;
  'field-id': number;
  name: string;
  transform: 'identity';
}

export interface PartitionSpec {
  'spec-id': number;
  fields: PartitionField[];
}

/** A snapshot as the metadata JSON holds it. */
export interface Snapshot {
  'snapshot-id': number;
  'parent-snapshot-id'?: number;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  /** `operation` plus the spec's summary metrics and ours (`report-export.*`). */
  summary: { operation: 'append' | 'overwrite' | 'replace' | 'delete' } & Record<string, string>;
  'schema-id': number;
}

/** Table metadata (format version 2), as written to `*.metadata.json`. */
export interface TableMetadata {
  'format-version': 2;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: IcebergSchema[];
  'default-spec-id': number;
  'partition-specs': PartitionSpec[];
  'last-partition-id': number;
  'default-sort-order-id': number;
  'sort-orders': { 'order-id': number; fields: unknown[] }[];
  properties: Record<string, string>;
  'current-snapshot-id': number | null;
  snapshots: Snapshot[];
  'snapshot-log': { 'snapshot-id': number; 'timestamp-ms': number }[];
  'metadata-log': { 'metadata-file': string; 'timestamp-ms': number }[];
  refs: Record<string, { 'snapshot-id': number; type: 'branch' | 'tag' }>;
}

/**
 * A partition tuple of a report table (`calls`, `summaries`): the tenant (a multi-tenant
 * lake's tables only), the report id, and the local day as days since 1970-01-01.
 */
export interface ReportPartitionValue {
  tenant?: string;
  report_id: string;
  dt: number;
}

/**
 * A partition tuple of a directory table (`contacts`, `contact_phones`): the tenant (a
 * multi-tenant lake's tables only) and the directory id.
 */
export interface DirectoryPartitionValue {
  tenant?: string;
  directory_id: string;
}

/** A partition tuple of one of our specs (see tenancy.ts): a report's day, or a directory. */
export type PartitionValue = ReportPartitionValue | DirectoryPartitionValue;

/** Whether the tuple is a directory table's (`directory_id`), not a report table's. */
export function isDirectoryPartition(p: PartitionValue): p is DirectoryPartitionValue {
  return 'directory_id' in p;
}

/** `data_file` of a manifest entry (field ids 100-146 of the spec); only data files (content 0). */
export interface DataFile {
  content: 0;
  file_path: string;
  file_format: 'PARQUET';
  partition: PartitionValue;
  record_count: bigint;
  file_size_in_bytes: bigint;
  /** Optional column metrics keyed by field id (null when not written). */
  column_sizes: Map<number, bigint> | null;
  value_counts: Map<number, bigint> | null;
  null_value_counts: Map<number, bigint> | null;
  lower_bounds: Map<number, Uint8Array> | null;
  upper_bounds: Map<number, Uint8Array> | null;
  split_offsets: bigint[] | null;
  sort_order_id: number | null;
}

/** Manifest entry status (spec: 0 EXISTING, 1 ADDED, 2 DELETED). */
export const ENTRY_STATUS = { existing: 0, added: 1, deleted: 2 } as const;
export type EntryStatus = (typeof ENTRY_STATUS)[keyof typeof ENTRY_STATUS];

/**
 * `manifest_entry` (field ids 0, 1, 3, 4, 2). An ADDED entry may leave the sequence numbers
 * null (inherited from the manifest list); EXISTING and DELETED entries carry them.
 */
export interface ManifestEntry {
  status: EntryStatus;
  snapshot_id: bigint | null;
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: DataFile;
}

/** `field_summary` of a manifest list entry (ids 509, 518, 510, 511). */
export interface FieldSummary {
  contains_null: boolean;
  contains_nan: boolean | null;
  lower_bound: Uint8Array | null;
  upper_bound: Uint8Array | null;
}

/** `manifest_file`, one record of a manifest list (field ids 500-519). */
export interface ManifestFile {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  /** 0 data, 1 deletes. */
  content: 0;
  sequence_number: bigint;
  min_sequence_number: bigint;
  added_snapshot_id: bigint;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: bigint;
  existing_rows_count: bigint;
  deleted_rows_count: bigint;
  partitions: FieldSummary[] | null;
  key_metadata: Uint8Array | null;
}
