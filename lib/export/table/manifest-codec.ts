import {
  AvroError,
  type AvroField,
  type AvroRecordSchema,
  type AvroSchema,
  decodeAvroFile,
  emptyRecord,
  encodeAvroFile,
} from './avro';
import type {
  DataFile,
  EntryStatus,
  FieldSummary,
  IcebergPrimitive,
  IcebergSchema,
  ManifestEntry,
  ManifestFile,
  PartitionSpec,
  PartitionValue,
} from './types';

/**
 * Iceberg v2 manifests and manifest lists as Avro files (https://iceberg.apache.org/spec/,
 * "Manifests" and "Manifest Lists"): the spec's `manifest_entry` and `manifest_file` schemas
 * with the spec's field ids on every field (readers resolve columns by id), optional fields as
 * unions with null first and default null, maps with int keys as arrays of key/value records
 * (`logicalType: map`), record names as Iceberg's Java writer gives them (r2, r102, k117_v118,
 * r508). The partition tuple's record is built from the partition spec and the table schema.
 *
 * Decoding resolves fields by name from the file's own schema, so manifests written by other
 * writers (Glue's optimizers, Athena, Spark) read too; fields we do not model are skipped. A
 * manifest of delete files, or a data file in another format than Parquet, is refused: our
 * commits would otherwise carry over files they cannot account for.
 */

const nullable = (type: AvroSchema): AvroSchema => ['null', type];

function optional(name: string, id: number, type: AvroSchema): AvroField {
  return { name, type: nullable(type), default: null, 'field-id': id };
}

function required(name: string, id: number, type: AvroSchema): AvroField {
  return { name, type, 'field-id': id };
}

/** A map<int, V> as Iceberg writes it in Avro: an array of key/value records. */
function intMap(name: string, id: number, keyId: number, valueId: number, value: AvroSchema): AvroField {
  return optional(name, id, {
    type: 'array',
    logicalType: 'map',
    items: {
      type: 'record',
      name: `k${keyId}_v${valueId}`,
      fields: [required('key', keyId, 'int'), required('value', valueId, value)],
    },
  });
}

const list = (elementId: number, items: AvroSchema): AvroSchema => ({
  type: 'array',
  items,
  'element-id': elementId,
});

/** The Avro type of a partition value of an identity transform on a source column of this type. */
const AVRO_OF: Record<IcebergPrimitive, AvroSchema> = {
  string: 'string',
  int: 'int',
  long: 'long',
  double: 'double',
  boolean: 'boolean',
  date: { type: 'int', logicalType: 'date' },
  timestamp: { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false } as AvroSchema,
  timestamptz: { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true } as AvroSchema,
};

interface PartitionColumn {
  name: string;
  fieldId: number;
  type: IcebergPrimitive;
}

function partitionColumns(schema: IcebergSchema, spec: PartitionSpec): PartitionColumn[] {
  return spec.fields.map((f) => {
    const source = schema.fields.find((s) => s.id === f['source-id']);
    if (source === undefined) {
      throw new Error(
        `Partition field ${f.name} has source id ${f['source-id']}, which the table schema does not hold`,
      );
    }
    return { name: f.name, fieldId: f['field-id'], type: source.type };
  });
}

/** The `manifest_entry` schema for a partition spec (the partition record r102 follows the spec). */
export function manifestEntrySchema(schema: IcebergSchema, spec: PartitionSpec): AvroRecordSchema {
  const partition: AvroRecordSchema = {
    type: 'record',
    name: 'r102',
    fields: partitionColumns(schema, spec).map((c) => optional(c.name, c.fieldId, AVRO_OF[c.type])),
  };
  const dataFile: AvroRecordSchema = {
    type: 'record',
    name: 'r2',
    fields: [
      required('content', 134, 'int'),
      required('file_path', 100, 'string'),
      required('file_format', 101, 'string'),
      required('partition', 102, partition),
      required('record_count', 103, 'long'),
      required('file_size_in_bytes', 104, 'long'),
      intMap('column_sizes', 108, 117, 118, 'long'),
      intMap('value_counts', 109, 119, 120, 'long'),
      intMap('null_value_counts', 110, 121, 122, 'long'),
      intMap('nan_value_counts', 137, 138, 139, 'long'),
      intMap('lower_bounds', 125, 126, 127, 'bytes'),
      intMap('upper_bounds', 128, 129, 130, 'bytes'),
      optional('key_metadata', 131, 'bytes'),
      optional('split_offsets', 132, list(133, 'long')),
      optional('equality_ids', 135, list(136, 'int')),
      optional('sort_order_id', 140, 'int'),
    ],
  };
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      required('status', 0, 'int'),
      optional('snapshot_id', 1, 'long'),
      optional('sequence_number', 3, 'long'),
      optional('file_sequence_number', 4, 'long'),
      required('data_file', 2, dataFile),
    ],
  };
}

/** The `manifest_file` schema of a manifest list (v2). */
export const MANIFEST_FILE_SCHEMA: AvroRecordSchema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    required('manifest_path', 500, 'string'),
    required('manifest_length', 501, 'long'),
    required('partition_spec_id', 502, 'int'),
    required('content', 517, 'int'),
    required('sequence_number', 515, 'long'),
    required('min_sequence_number', 516, 'long'),
    required('added_snapshot_id', 503, 'long'),
    required('added_files_count', 504, 'int'),
    required('existing_files_count', 505, 'int'),
    required('deleted_files_count', 506, 'int'),
    required('added_rows_count', 512, 'long'),
    required('existing_rows_count', 513, 'long'),
    required('deleted_rows_count', 514, 'long'),
    optional(
      'partitions',
      507,
      list(508, {
        type: 'record',
        name: 'r508',
        fields: [
          required('contains_null', 509, 'boolean'),
          optional('contains_nan', 518, 'boolean'),
          optional('lower_bound', 510, 'bytes'),
          optional('upper_bound', 511, 'bytes'),
        ],
      }),
    ),
    optional('key_metadata', 519, 'bytes'),
  ],
};

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
    for (const c of columns)
      partition[c.name] = (f.partition as unknown as Record<string, unknown>)[c.name] ?? null;
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
  const partition: PartitionValue = {
    report_id: get(partitionRow, 'report_id', `${path}.partition`, isString, 'a string'),
    dt: get(partitionRow, 'dt', `${path}.partition`, isNumber, 'an int (days)'),
  };
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

const utf8 = new TextEncoder();

/** Iceberg's single-value binary serialization of a partition value (the spec's Appendix D). */
export function singleValueBytes(type: IcebergPrimitive, value: unknown): Uint8Array {
  if (type === 'string' && typeof value === 'string') return utf8.encode(value);
  const out = new Uint8Array(type === 'int' || type === 'date' ? 4 : 8);
  const view = new DataView(out.buffer);
  if ((type === 'int' || type === 'date') && typeof value === 'number') view.setInt32(0, value, true);
  else if (
    (type === 'long' || type === 'timestamp' || type === 'timestamptz') &&
    (typeof value === 'bigint' || typeof value === 'number')
  )
    view.setBigInt64(0, BigInt(value), true);
  else if (type === 'double' && typeof value === 'number') view.setFloat64(0, value, true);
  else if (type === 'boolean' && typeof value === 'boolean') return Uint8Array.of(value ? 1 : 0);
  else throw new Error(`No single-value serialization of ${typeof value} as ${type}`);
  return out;
}

/** Orders partition values as Iceberg does: numbers by value, strings by code point (UTF-8 bytes). */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareBytes(utf8.encode(a), utf8.encode(b));
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return a.length - b.length;
}

/**
 * The manifest list's partition field summaries of a manifest's entries (all statuses, as
 * Iceberg's writer counts them): whether a value is null, and the lower and upper bounds.
 */
export function partitionSummaries(
  spec: PartitionSpec,
  entries: ManifestEntry[],
  schema?: IcebergSchema,
): FieldSummary[] {
  return spec.fields.map((field) => {
    const type = partitionTypeOf(field.name, field['source-id'], schema);
    let containsNull = false;
    let lower: unknown;
    let upper: unknown;
    for (const e of entries) {
      const value = (e.data_file.partition as unknown as Record<string, unknown>)[field.name];
      if (value === null || value === undefined) {
        containsNull = true;
        continue;
      }
      if (lower === undefined || compareValues(value, lower) < 0) lower = value;
      if (upper === undefined || compareValues(value, upper) > 0) upper = value;
    }
    return {
      contains_null: containsNull,
      contains_nan: false,
      lower_bound: lower === undefined ? null : singleValueBytes(type, lower),
      upper_bound: upper === undefined ? null : singleValueBytes(type, upper),
    };
  });
}

/** Our spec's partition types when no schema is given: `report_id` a string, `dt` a date. */
function partitionTypeOf(
  name: string,
  sourceId: number,
  schema: IcebergSchema | undefined,
): IcebergPrimitive {
  const source = schema?.fields.find((f) => f.id === sourceId);
  if (source !== undefined) return source.type;
  if (name === 'report_id') return 'string';
  if (name === 'dt') return 'date';
  throw new Error(`The type of partition field ${name} needs the table schema`);
}

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a calendar date `YYYY-MM-DD` (an Iceberg `date`). */
export function dateToDays(date: string): number {
  const m = DATE_PATTERN.exec(date);
  const ms = m === null ? Number.NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(ms) || daysToDate(ms / DAY_MS) !== date)
    throw new Error(`Not a calendar date YYYY-MM-DD: ${JSON.stringify(date)}`);
  return ms / DAY_MS;
}

/** The calendar date `YYYY-MM-DD` of days since 1970-01-01. */
export function daysToDate(days: number): string {
  if (!Number.isInteger(days)) throw new Error(`Not a day number: ${days}`);
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}
