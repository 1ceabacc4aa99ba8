import type { AvroField, AvroRecordSchema, AvroSchema } from '../avro/avro';
import type { IcebergPrimitive, IcebergSchema, PartitionSpec } from '../metadata/types';

/**
 * The Avro schemas of Iceberg v2 manifests and manifest lists (https://iceberg.apache.org/spec/,
 * "Manifests" and "Manifest Lists"), with the spec's field id on every field, optional fields
 * as unions with null first and default null, maps with int keys as arrays of key/value records
 * (`logicalType: map`), and record names as Iceberg's Java writer gives them (r2, r102,
 * k117_v118, r508). Every record is written out in place (no named references): icebird's
 * decoder, like some others, does not resolve them.
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

export interface PartitionColumn {
  name: string;
  fieldId: number;
  type: IcebergPrimitive;
}

export function partitionColumns(schema: IcebergSchema, spec: PartitionSpec): PartitionColumn[] {
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
