import { AvroError, decodeAvroFile, emptyRecord, encodeAvroFile } from '../avro/avro';
import type {
  DataFile,
  EntryStatus,
  FieldSummary,
  IcebergSchema,
  ManifestEntry,
  ManifestFile,
  PartitionSpec,
  PartitionValue,
} from '../metadata/types';
import { MANIFEST_FILE_SCHEMA, manifestEntrySchema, partitionColumns } from './manifest-schemas';

/**
 * Iceberg v2 manifests and manifest lists as Avro files (https://iceberg.apache.org/spec/,
 * "Manifests" and "Manifest Lists"), in the schemas of manifest-schemas.ts. The partition
 * tuple's record is built from the partition spec and the table schema.
 *
 * Decoding resolves fields by name from the file's own schema, so manifests written by other
 * writers (Glue's optimizers, Athena, Spark; codec null or deflate) read too; fields we do not
 * model are skipped. A manifest of delete files, or a data file in another format than
 * Parquet, is refused: our commits would otherwise carry over files they cannot account for.
 */

export { MANIFEST_FILE_SCHEMA, manifestEntrySchema } from './manifest-schemas';
export {
  dateToDays,
  daysToDate,
  partitionKey,
  partitionSummaries,
  singleValueBytes,
  summaryMayHold,
} from './partition-values';

const toPairs = <V>(map: Map<number, V> | null): { key: number; value: V }[] | null =>
  map === null ? null : [...map].map(([key, value]) => ({ key, value }));

/** Encodes a manifest of data files for one partition spec. */
export function encodeManifest(input: {
  schema: IcebergSchema;
  spec: PartitionSpec;
  entries: ManifestEntry[];
}): Uint8Array {
  const { schema, spec, entries } = input;
  const columns = partitionColumns(schema, spec);
  const records = entries.map((e) => {
    const f = e.data_file;
    const partition = emptyRecord();
    for (const c of columns) {
      const value = (f.partition as unknown as Record<string, unknown>)[c.name];
      if (value === undefined || value === null) {
        throw new AvroError(`Data file ${f.file_path} has no value for the partition field ${c.name}`);
      }
      partition[c.name] = value;
    }
    return {
      status: e.status,
      snapshot_id: e.snapshot_id,
      sequence_number: e.sequence_number,
      file_sequence_number: e.file_sequence_number,
      data_file: {
        content: f.content,
        file_path: f.file_path,
        file_format: f.file_format,
        partition,
        record_count: f.record_count,
        file_size_in_bytes: f.file_size_in_bytes,
        column_sizes: toPairs(f.column_sizes),
        value_counts: toPairs(f.value_counts),
        null_value_counts: toPairs(f.null_value_counts),
        nan_value_counts: null,
        lower_bounds: toPairs(f.lower_bounds),
        upper_bounds: toPairs(f.upper_bounds),
        key_metadata: null,
        split_offsets: f.split_offsets,
        equality_ids: null,
        sort_order_id: f.sort_order_id,
      },
    };
  });
  return encodeAvroFile(manifestEntrySchema(schema, spec), records, {
    metadata: {
      schema: JSON.stringify(schema),
      'schema-id': String(schema['schema-id']),
      'partition-spec': JSON.stringify(spec.fields),
      'partition-spec-id': String(spec['spec-id']),
      'format-version': '2',
      content: 'data',
    },
  });
}

type Row = Record<string, unknown>;

/** A field of a decoded record, checked against what we expect (the file's schema decides). */
function get<T>(row: Row, name: string, path: string, is: (v: unknown) => v is T, expected: string): T {
  const v = row[name];
  if (!is(v))
    throw new AvroError(
      `${path}.${name}: expected ${expected}, the file holds ${v === undefined ? 'no such field' : typeof v}`,
    );
  return v;
}

const isBigint = (v: unknown): v is bigint => typeof v === 'bigint';
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const orNull =
  <T>(is: (v: unknown) => v is T) =>
  (v: unknown): v is T | null =>
    v === null || v === undefined || is(v);
const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const maybeNumber = orNull(isNumber);
const maybeArray = orNull(isArray);
const maybeBigint = orNull(isBigint);
const maybeBoolean = orNull(isBoolean);
const maybeBytes = orNull(isBytes);

function fromPairs<V>(
  row: Row,
  name: string,
  path: string,
  is: (v: unknown) => v is V,
): Map<number, V> | null {
  const pairs = get(row, name, path, maybeArray, 'a map (array of key/value records)');
  if (pairs === null || pairs === undefined) return null;
  const map = new Map<number, V>();
  const where = `${path}.${name}`;
  for (const pair of pairs) {
    if (!isRow(pair)) throw new AvroError(`${where}: an entry is not a key/value record`);
    map.set(get(pair, 'key', where, isNumber, 'an int'), get(pair, 'value', where, is, 'a value'));
  }
  return map;
}

function decodeDataFile(row: Row, path: string): DataFile {
  const content = get(row, 'content', path, maybeNumber, 'an int') ?? 0;
  const filePath = get(row, 'file_path', path, isString, 'a string');
  if (content !== 0)
    throw new AvroError(
      `${path}: ${filePath} is a delete file (content ${content}); delete files are not supported`,
    );
  const format = get(row, 'file_format', path, isString, 'a string');
  if (format.toUpperCase() !== 'PARQUET')
    throw new AvroError(`${path}: ${filePath} is ${format}, not Parquet`);
  const partitionRow = get(row, 'partition', path, isRow, 'a partition record');
  const tenant = partitionRow.tenant;
  const where = `${path}.partition`;
  const ofTenant =
    tenant === undefined || tenant === null
      ? {}
      : { tenant: get(partitionRow, 'tenant', where, isString, 'a string') };
  // A directory table's tuple (tenant, directory_id); a report table's (tenant, report_id, dt).
  const partition: PartitionValue =
    partitionRow.directory_id === undefined
      ? {
          ...ofTenant,
          report_id: get(partitionRow, 'report_id', where, isString, 'a string'),
          dt: get(partitionRow, 'dt', where, isNumber, 'an int (days)'),
        }
      : { ...ofTenant, directory_id: get(partitionRow, 'directory_id', where, isString, 'a string') };
  const offsets = get(row, 'split_offsets', path, maybeArray, 'a list of longs');
  return {
    content: 0,
    file_path: filePath,
    file_format: 'PARQUET',
    partition,
    record_count: get(row, 'record_count', path, isBigint, 'a long'),
    file_size_in_bytes: get(row, 'file_size_in_bytes', path, isBigint, 'a long'),
    column_sizes: fromPairs(row, 'column_sizes', path, isBigint),
    value_counts: fromPairs(row, 'value_counts', path, isBigint),
    null_value_counts: fromPairs(row, 'null_value_counts', path, isBigint),
    lower_bounds: fromPairs(row, 'lower_bounds', path, isBytes),
    upper_bounds: fromPairs(row, 'upper_bounds', path, isBytes),
    split_offsets:
      offsets === null || offsets === undefined
        ? null
        : offsets.map((o) => (isBigint(o) ? o : BigInt(o as number))),
    sort_order_id: get(row, 'sort_order_id', path, maybeNumber, 'an int') ?? null,
  };
}

function asStatus(v: number, path: string): EntryStatus {
  if (v === 0 || v === 1 || v === 2) return v;
  throw new AvroError(`${path}.status: ${v} is not 0 (existing), 1 (added) or 2 (deleted)`);
}

/** Decodes a manifest's entries (any writer's, by field name); refuses a delete manifest. */
export function decodeManifest(bytes: Uint8Array): ManifestEntry[] {
  const file = decodeAvroFile(bytes);
  const content = file.metadata.get('content') ?? 'data';
  if (content !== 'data')
    throw new AvroError(`The manifest holds ${content}, not data files; delete files are not supported`);
  return file.records.map((record, i) => {
    const path = `manifest entry ${i}`;
    if (!isRow(record)) throw new AvroError(`${path} is not a record`);
    const long = (name: string): bigint | null => get(record, name, path, maybeBigint, 'a long') ?? null;
    return {
      status: asStatus(get(record, 'status', path, isNumber, 'an int'), path),
      snapshot_id: long('snapshot_id'),
      sequence_number: long('sequence_number'),
      file_sequence_number: long('file_sequence_number'),
      data_file: decodeDataFile(
        get(record, 'data_file', path, isRow, 'a data_file record'),
        `${path}.data_file`,
      ),
    };
  });
}

/** Encodes a snapshot's manifest list. */
export function encodeManifestList(input: {
  snapshotId: bigint | number;
  parentSnapshotId: bigint | number | null | undefined;
  sequenceNumber: bigint | number;
  manifests: ManifestFile[];
}): Uint8Array {
  return encodeAvroFile(MANIFEST_FILE_SCHEMA, input.manifests, {
    metadata: {
      'snapshot-id': String(input.snapshotId),
      'parent-snapshot-id':
        input.parentSnapshotId === null || input.parentSnapshotId === undefined
          ? 'null'
          : String(input.parentSnapshotId),
      'sequence-number': String(input.sequenceNumber),
      'format-version': '2',
    },
  });
}

function decodeSummary(v: unknown, path: string): FieldSummary {
  if (!isRow(v)) throw new AvroError(`${path} is not a field_summary record`);
  return {
    contains_null: get(v, 'contains_null', path, isBoolean, 'a boolean'),
    contains_nan: get(v, 'contains_nan', path, maybeBoolean, 'a boolean') ?? null,
    lower_bound: get(v, 'lower_bound', path, maybeBytes, 'bytes') ?? null,
    upper_bound: get(v, 'upper_bound', path, maybeBytes, 'bytes') ?? null,
  };
}

/** Decodes a manifest list; reads the v1 names of the file counts (`added_data_files_count` ...) too. */
export function decodeManifestList(bytes: Uint8Array): ManifestFile[] {
  return decodeAvroFile(bytes).records.map((record, i) => {
    const path = `manifest list entry ${i}`;
    if (!isRow(record)) throw new AvroError(`${path} is not a record`);
    const long = (name: string): bigint => get(record, name, path, isBigint, 'a long');
    const count = (name: string): number =>
      get(record, name in record ? name : name.replace('_files_', '_data_files_'), path, isNumber, 'an int');
    const content = get(record, 'content', path, maybeNumber, 'an int') ?? 0;
    if (content !== 0)
      throw new AvroError(`${path}: a delete manifest (content ${content}); delete files are not supported`);
    const partitions = get(record, 'partitions', path, maybeArray, 'a list of field summaries') ?? null;
    return {
      manifest_path: get(record, 'manifest_path', path, isString, 'a string'),
      manifest_length: long('manifest_length'),
      partition_spec_id: get(record, 'partition_spec_id', path, isNumber, 'an int'),
      content: 0,
      sequence_number: long('sequence_number'),
      min_sequence_number: long('min_sequence_number'),
      added_snapshot_id: long('added_snapshot_id'),
      added_files_count: count('added_files_count'),
      existing_files_count: count('existing_files_count'),
      deleted_files_count: count('deleted_files_count'),
      added_rows_count: long('added_rows_count'),
      existing_rows_count: long('existing_rows_count'),
      deleted_rows_count: long('deleted_rows_count'),
      partitions:
        partitions === null ? null : partitions.map((s, j) => decodeSummary(s, `${path}.partitions[${j}]`)),
      key_metadata: get(record, 'key_metadata', path, maybeBytes, 'bytes') ?? null,
    };
  });
}
