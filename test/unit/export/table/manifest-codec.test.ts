import { describe, expect, it } from 'vitest';
import {
  type AvroField,
  type AvroRecordSchema,
  type AvroSchema,
  decodeAvroHeader,
  encodeAvroFile,
} from '../../../../lib/export/table/avro/avro';
import {
  dateToDays,
  daysToDate,
  decodeManifest,
  decodeManifestList,
  encodeManifest,
  encodeManifestList,
  MANIFEST_FILE_SCHEMA,
  manifestEntrySchema,
  partitionSummaries,
} from '../../../../lib/export/table/manifest/manifest-codec';
import type {
  DataFile,
  IcebergSchema,
  ManifestEntry,
  ManifestFile,
  PartitionSpec,
} from '../../../../lib/export/table/metadata/types';
import { icebirdRead } from './icebird-avro';

// The table schema: the partition columns are not the first ones, so their ids differ from the positions.
const SCHEMA: IcebergSchema = {
  type: 'struct',
  'schema-id': 3,
  fields: [
    { id: 1, name: 'conn_id', required: true, type: 'string' },
    { id: 2, name: 'report_id', required: true, type: 'string' },
    { id: 3, name: 'start', required: false, type: 'timestamp' },
    { id: 7, name: 'dt', required: true, type: 'date' },
  ],
};

const SPEC: PartitionSpec = {
  'spec-id': 0,
  fields: [
    { 'source-id': 2, 'field-id': 1000, name: 'report_id', transform: 'identity' },
    { 'source-id': 7, 'field-id': 1001, name: 'dt', transform: 'identity' },
  ],
};

function dataFile(overrides: Partial<DataFile> = {}): DataFile {
  return {
    content: 0,
    file_path: 's3://lake/exports/tables/calls/data/report_id=r1/dt=2026-11-25/run-0a1b2c3d-00000.parquet',
    file_format: 'PARQUET',
    partition: { report_id: 'r1', dt: dateToDays('2026-11-25') },
    record_count: 1234n,
    file_size_in_bytes: 56789n,
    column_sizes: new Map([
      [1, 100n],
      [7, 8n],
    ]),
    value_counts: new Map([[1, 1234n]]),
    null_value_counts: new Map([[3, 0n]]),
    lower_bounds: new Map([[1, new TextEncoder().encode('a')]]),
    upper_bounds: new Map([[1, new Uint8Array([0xf0, 0x9f, 0x90, 0x8e])]]),
    split_offsets: [4n, 2n ** 40n],
    sort_order_id: 0,
    ...overrides,
  };
}

const ENTRIES: ManifestEntry[] = [
  {
    status: 1,
    snapshot_id: 2n ** 53n - 1n,
    sequence_number: null,
    file_sequence_number: null,
    data_file: dataFile(),
  },
  {
    status: 0,
    snapshot_id: 42n,
    sequence_number: 3n,
    file_sequence_number: 2n,
    data_file: dataFile({
      file_path: 'file:///lake/tables/calls/data/report_id=Ř 📞/dt=1969-12-31/x.parquet',
      partition: { report_id: 'Ř 📞', dt: -1 },
      record_count: 0n,
      column_sizes: null,
      value_counts: null,
      null_value_counts: null,
      lower_bounds: null,
      upper_bounds: null,
      split_offsets: null,
      sort_order_id: null,
    }),
  },
  {
    status: 2,
    snapshot_id: 43n,
    sequence_number: 4n,
    file_sequence_number: 4n,
    data_file: dataFile({ partition: { report_id: '', dt: 0 }, column_sizes: new Map(), split_offsets: [] }),
  },
];

function manifestFile(overrides: Partial<ManifestFile> = {}): ManifestFile {
  return {
    manifest_path: 's3://lake/exports/tables/calls/metadata/5d3c-m0.avro',
    manifest_length: 6789n,
    partition_spec_id: 0,
    content: 0,
    sequence_number: 5n,
    min_sequence_number: 2n,
    added_snapshot_id: 2n ** 62n,
    added_files_count: 1,
    existing_files_count: 1,
    deleted_files_count: 1,
    added_rows_count: 1234n,
    existing_rows_count: 0n,
    deleted_rows_count: 1234n,
    partitions: partitionSummaries(SPEC, ENTRIES),
    key_metadata: null,
    ...overrides,
  };
}

/** icebird's view of a manifest entry in our types: undefined is null, a date is its day, maps are Maps. */
function fromIcebird(record: Record<string, unknown>): ManifestEntry {
  const f = record.data_file as Record<string, unknown>;
  const partition = f.partition as { report_id: string; dt: Date };
  const map = (v: unknown) =>
    v === undefined ? null : new Map((v as { key: number; value: unknown }[]).map((p) => [p.key, p.value]));
  return {
    status: record.status as ManifestEntry['status'],
    snapshot_id: (record.snapshot_id ?? null) as bigint | null,
    sequence_number: (record.sequence_number ?? null) as bigint | null,
    file_sequence_number: (record.file_sequence_number ?? null) as bigint | null,
    data_file: {
      content: f.content as 0,
      file_path: f.file_path as string,
      file_format: f.file_format as 'PARQUET',
      partition: { report_id: partition.report_id, dt: partition.dt.getTime() / 86_400_000 },
      record_count: f.record_count as bigint,
      file_size_in_bytes: f.file_size_in_bytes as bigint,
      column_sizes: map(f.column_sizes) as Map<number, bigint> | null,
      value_counts: map(f.value_counts) as Map<number, bigint> | null,
      null_value_counts: map(f.null_value_counts) as Map<number, bigint> | null,
      lower_bounds: map(f.lower_bounds) as Map<number, Uint8Array> | null,
      upper_bounds: map(f.upper_bounds) as Map<number, Uint8Array> | null,
      split_offsets: (f.split_offsets ?? null) as bigint[] | null,
      sort_order_id: (f.sort_order_id ?? null) as number | null,
    },
  };
}

const pairs = <V>(map: Map<number, V> | null) =>
  map === null ? null : [...map].map(([key, value]) => ({ key, value }));

/** Every field's id by its path in an Avro schema (records, unions, arrays walked). */
function fieldIds(schema: AvroSchema, path = ''): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  const visit = (type: AvroSchema, at: string): void => {
    if (Array.isArray(type)) for (const branch of type) visit(branch, at);
    else if (typeof type === 'object' && type.type === 'record' && 'fields' in type) {
      for (const field of type.fields as AvroField[]) {
        out[`${at}${field.name}`] = field['field-id'];
        visit(field.type, `${at}${field.name}.`);
      }
    } else if (typeof type === 'object' && type.type === 'array' && 'items' in type) visit(type.items, at);
  };
  visit(schema, path);
  return out;
}

describe('manifest codec', () => {
  it('round-trips manifest entries of every status, with and without metrics', () => {
    // Act
    const entries = decodeManifest(encodeManifest({ schema: SCHEMA, spec: SPEC, entries: ENTRIES }));

    // Assess
    expect(entries).toEqual(ENTRIES);
  });

  it('writes the manifest metadata the spec requires for a v2 data manifest', () => {
    // Act
    const { metadata } = decodeAvroHeader(encodeManifest({ schema: SCHEMA, spec: SPEC, entries: ENTRIES }));

    // Assess
    expect(JSON.parse(metadata.get('schema') ?? '')).toEqual(SCHEMA);
    expect(metadata.get('schema-id')).toBe('3');
    expect(JSON.parse(metadata.get('partition-spec') ?? '')).toEqual(SPEC.fields);
    expect(metadata.get('partition-spec-id')).toBe('0');
    expect(metadata.get('format-version')).toBe('2');
    expect(metadata.get('content')).toBe('data');
    expect(metadata.get('avro.codec')).toBe('null');
  });

  it('is read by icebird to the same entries, with the spec field id on every field of its avro.schema', () => {
    // Act
    const { metadata, records } = icebirdRead(
      encodeManifest({ schema: SCHEMA, spec: SPEC, entries: ENTRIES }),
    );

    // Assess
    expect(records.map(fromIcebird)).toEqual(ENTRIES);
    expect(metadata.schema).toEqual(SCHEMA);
    expect(fieldIds(metadata['avro.schema'] as AvroSchema)).toEqual({
      status: 0,
      snapshot_id: 1,
      sequence_number: 3,
      file_sequence_number: 4,
      data_file: 2,
      'data_file.content': 134,
      'data_file.file_path': 100,
      'data_file.file_format': 101,
      'data_file.partition': 102,
      'data_file.partition.report_id': 1000,
      'data_file.partition.dt': 1001,
      'data_file.record_count': 103,
      'data_file.file_size_in_bytes': 104,
      'data_file.column_sizes': 108,
      'data_file.column_sizes.key': 117,
      'data_file.column_sizes.value': 118,
      'data_file.value_counts': 109,
      'data_file.value_counts.key': 119,
      'data_file.value_counts.value': 120,
      'data_file.null_value_counts': 110,
      'data_file.null_value_counts.key': 121,
      'data_file.null_value_counts.value': 122,
      'data_file.nan_value_counts': 137,
      'data_file.nan_value_counts.key': 138,
      'data_file.nan_value_counts.value': 139,
      'data_file.lower_bounds': 125,
      'data_file.lower_bounds.key': 126,
      'data_file.lower_bounds.value': 127,
      'data_file.upper_bounds': 128,
      'data_file.upper_bounds.key': 129,
      'data_file.upper_bounds.value': 130,
      'data_file.key_metadata': 131,
      'data_file.split_offsets': 132,
      'data_file.equality_ids': 135,
      'data_file.sort_order_id': 140,
    });
  });

  it('types the partition record from the spec and the table schema: the string, and the day as an int date', () => {
    // Act
    const dataFileSchema = manifestEntrySchema(SCHEMA, SPEC).fields.find((f) => f.name === 'data_file')?.type;
    const partition = (dataFileSchema as { fields: AvroField[] }).fields.find(
      (f) => f.name === 'partition',
    )?.type;

    // Assess
    expect(partition).toEqual({
      type: 'record',
      name: 'r102',
      fields: [
        { name: 'report_id', type: ['null', 'string'], default: null, 'field-id': 1000 },
        { name: 'dt', type: ['null', { type: 'int', logicalType: 'date' }], default: null, 'field-id': 1001 },
      ],
    });
  });

  it('round-trips a manifest of 10,000 entries', () => {
    // Arrange
    const entries: ManifestEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      status: 1,
      snapshot_id: BigInt(i),
      sequence_number: null,
      file_sequence_number: null,
      data_file: dataFile({
        file_path: `file:///lake/f-${i}.parquet`,
        partition: { report_id: `r${i % 7}`, dt: 20_000 + (i % 31) },
      }),
    }));

    // Act
    const decoded = decodeManifest(encodeManifest({ schema: SCHEMA, spec: SPEC, entries }));

    // Assess
    expect(decoded).toEqual(entries);
  });

  it('round-trips a manifest list, and icebird reads the same manifests with the spec field ids', () => {
    // Arrange
    const manifests = [
      manifestFile(),
      manifestFile({ manifest_path: 'file:///m2.avro', partitions: null, key_metadata: Uint8Array.of(1, 2) }),
    ];

    // Act
    const bytes = encodeManifestList({
      snapshotId: 2n ** 62n,
      parentSnapshotId: 7,
      sequenceNumber: 5n,
      manifests,
    });
    const ours = decodeManifestList(bytes);
    const theirs = icebirdRead(bytes);

    // Assess
    expect(ours).toEqual(manifests);
    expect(
      theirs.records.map((r) => ({
        ...r,
        partitions: r.partitions ?? null,
        key_metadata: r.key_metadata ?? null,
      })),
    ).toEqual(manifests.map((m) => ({ ...m, partitions: m.partitions?.map((p) => ({ ...p })) ?? null })));
    expect(theirs.metadata).toMatchObject({
      'snapshot-id': String(2n ** 62n),
      'parent-snapshot-id': '7',
      'sequence-number': '5',
      'format-version': '2',
    });
    expect(fieldIds(theirs.metadata['avro.schema'] as AvroSchema)).toEqual({
      manifest_path: 500,
      manifest_length: 501,
      partition_spec_id: 502,
      content: 517,
      sequence_number: 515,
      min_sequence_number: 516,
      added_snapshot_id: 503,
      added_files_count: 504,
      existing_files_count: 505,
      deleted_files_count: 506,
      added_rows_count: 512,
      existing_rows_count: 513,
      deleted_rows_count: 514,
      partitions: 507,
      'partitions.contains_null': 509,
      'partitions.contains_nan': 518,
      'partitions.lower_bound': 510,
      'partitions.upper_bound': 511,
      key_metadata: 519,
    });
  });

  it('writes parent-snapshot-id "null" for a first snapshot', () => {
    // Act
    const { metadata } = decodeAvroHeader(
      encodeManifestList({ snapshotId: 1, parentSnapshotId: null, sequenceNumber: 1, manifests: [] }),
    );

    // Assess
    expect(metadata.get('parent-snapshot-id')).toBe('null');
  });

  it('reads the v1 names of the manifest list counts (added_data_files_count ...)', () => {
    // Arrange
    const v1Names = {
      ...MANIFEST_FILE_SCHEMA,
      fields: MANIFEST_FILE_SCHEMA.fields.map((f) => ({
        ...f,
        name: f.name.replace('_files_', '_data_files_'),
      })),
    };
    const record = Object.fromEntries(
      Object.entries(manifestFile()).map(([k, v]) => [k.replace('_files_', '_data_files_'), v]),
    );

    // Act
    const [decoded] = decodeManifestList(encodeAvroFile(v1Names, [record]));

    // Assess
    expect(decoded).toEqual(manifestFile());
  });

  describe('partition summaries', () => {
    it('bounds the report ids by UTF-8 bytes and the days as 4-byte little-endian ints', () => {
      // Act
      const [reportId, dt] = partitionSummaries(SPEC, ENTRIES);

      // Assess
      expect(reportId).toEqual({
        contains_null: false,
        contains_nan: false,
        lower_bound: new Uint8Array(),
        upper_bound: new TextEncoder().encode('Ř 📞'),
      });
      expect(dt).toEqual({
        contains_null: false,
        contains_nan: false,
        lower_bound: Uint8Array.of(0xff, 0xff, 0xff, 0xff),
        upper_bound: Uint8Array.of(0x2e, 0x51, 0, 0),
      });
    });

    it('orders strings by code point when UTF-16 order differs (U+FF61 below U+1F4DE)', () => {
      // Arrange
      const entries = ['\uFF61', '📞'].map(
        (report_id) =>
          ({ ...ENTRIES[0], data_file: dataFile({ partition: { report_id, dt: 1 } }) }) as ManifestEntry,
      );

      // Act
      const [reportId] = partitionSummaries(SPEC, entries);

      // Assess
      expect(reportId?.lower_bound).toEqual(new TextEncoder().encode('\uFF61'));
      expect(reportId?.upper_bound).toEqual(new TextEncoder().encode('📞'));
    });

    it('gives no bounds when the manifest has no entry', () => {
      // Act / Assess
      expect(partitionSummaries(SPEC, [])).toEqual([
        { contains_null: false, contains_nan: false, lower_bound: null, upper_bound: null },
        { contains_null: false, contains_nan: false, lower_bound: null, upper_bound: null },
      ]);
    });
  });

  it('reads a manifest laid out as other writers do: deflate, another field order, fields we do not model', () => {
    // Arrange: the entry schema with data_file's fields reversed and two more of the spec's fields.
    const entrySchema = manifestEntrySchema(SCHEMA, SPEC);
    const dataFileField = entrySchema.fields.find((f) => f.name === 'data_file') as AvroField;
    const dataFileSchema = dataFileField.type as AvroRecordSchema;
    const foreign: AvroRecordSchema = {
      ...entrySchema,
      fields: [
        ...entrySchema.fields.filter((f) => f !== dataFileField).reverse(),
        {
          ...dataFileField,
          type: {
            ...dataFileSchema,
            fields: [
              { name: 'referenced_data_file', type: ['null', 'string'], default: null, 'field-id': 143 },
              ...[...dataFileSchema.fields].reverse(),
              {
                name: 'distinct_counts',
                type: ['null', { type: 'array', items: 'long' }],
                default: null,
                'field-id': 111,
              },
            ],
          },
        },
      ],
    };
    const records = ENTRIES.map((e) => ({
      ...e,
      data_file: {
        ...e.data_file,
        column_sizes: pairs(e.data_file.column_sizes),
        value_counts: pairs(e.data_file.value_counts),
        null_value_counts: pairs(e.data_file.null_value_counts),
        lower_bounds: pairs(e.data_file.lower_bounds),
        upper_bounds: pairs(e.data_file.upper_bounds),
        referenced_data_file: 'file:///elsewhere.parquet',
        distinct_counts: [1n],
      },
    }));

    // Act
    const entries = decodeManifest(
      encodeAvroFile(foreign, records, { codec: 'deflate', metadata: { content: 'data' } }),
    );

    // Assess
    expect(entries).toEqual(ENTRIES);
  });

  it('refuses to encode a data file without a value for a partition field', () => {
    // Arrange
    const entry = {
      ...ENTRIES[0],
      data_file: dataFile({ partition: { report_id: 'r1' } as never }),
    } as ManifestEntry;

    // Act / Assess
    expect(() => encodeManifest({ schema: SCHEMA, spec: SPEC, entries: [entry] })).toThrow(
      /run-0a1b2c3d-00000\.parquet has no value for the partition field dt/,
    );
  });

  describe('strict decoding', () => {
    const entrySchema = manifestEntrySchema(SCHEMA, SPEC);
    const raw = (dataFileOverrides: Record<string, unknown>) => ({
      ...ENTRIES[0],
      data_file: {
        ...dataFile(),
        column_sizes: null,
        value_counts: null,
        null_value_counts: null,
        lower_bounds: null,
        upper_bounds: null,
        ...dataFileOverrides,
      },
    });

    it.each([
      [
        'a delete manifest',
        encodeAvroFile(entrySchema, [], { metadata: { content: 'deletes' } }),
        /holds deletes, not data files/,
      ],
      ['a delete file', encodeAvroFile(entrySchema, [raw({ content: 1 })]), /is a delete file \(content 1\)/],
      ['an ORC file', encodeAvroFile(entrySchema, [raw({ file_format: 'ORC' })]), /is ORC, not Parquet/],
      ['an unknown status', encodeAvroFile(entrySchema, [{ ...raw({}), status: 3 }]), /status: 3 is not/],
      [
        'a missing partition value',
        encodeAvroFile(entrySchema, [raw({ partition: { report_id: 'r1', dt: null } })]),
        /partition\.dt: expected an int/,
      ],
      ['a file that is not Avro', new TextEncoder().encode('{"not":"avro"}'), /wrong magic/],
    ])('refuses %s', (_name, bytes, message) => {
      // Act / Assess
      expect(() => decodeManifest(bytes)).toThrow(message);
    });
  });

  describe('days', () => {
    it.each([
      ['1970-01-01', 0],
      ['1969-12-31', -1],
      ['2026-11-25', 20_782],
      ['2024-02-29', 19_782],
    ])('maps %s to day %i and back', (date, days) => {
      // Act / Assess
      expect(dateToDays(date)).toBe(days);
      expect(daysToDate(days)).toBe(date);
    });

    it.each(['2026-02-29', '2026-13-01', '2026-1-01', '2026-11-25T00:00:00Z', ''])(
      'refuses %j as a date',
      (date) => {
        // Act / Assess
        expect(() => dateToDays(date)).toThrow(/Not a calendar date/);
      },
    );
  });
});
