import { type ColumnKind, PARTITION_COLUMN, type TableSchema, TENANT_COLUMN } from '../../schema';
import type { IcebergField, IcebergPrimitive, IcebergSchema, PartitionSpec } from './types';

/**
 * Our columns as Iceberg fields. Every column of the dataset's TableSchema keeps its kind's
 * type (`start` a `timestamp`: wall time without zone; `start_utc` a `timestamptz`; `extra`
 * a `string`), and the tables add the partition day `dt` as a `date` column written into
 * every data file (a constant per file), so that a query filters and prunes by
 * `dt = DATE '2026-11-25'` in both datasets (a summary has no `start` a transform could derive
 * the day from).
 */
export const ICEBERG_TYPES: Record<ColumnKind, IcebergPrimitive> = {
  string: 'string',
  int32: 'int',
  double: 'double',
  boolean: 'boolean',
  localTimestamp: 'timestamp',
  utcTimestamp: 'timestamptz',
};

/** The Iceberg type of the partition day column. */
export const DT_TYPE: IcebergPrimitive = 'date';

/** The Hive type Glue lists for an Iceberg type. */
export const GLUE_TYPE_OF: Record<IcebergPrimitive, string> = {
  string: 'string',
  int: 'int',
  long: 'bigint',
  double: 'double',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamp',
};

/** A table column before ids are given. */
export interface TableColumn {
  name: string;
  type: IcebergPrimitive;
  required: boolean;
  doc: string;
  /** The field's name before schema version 3, when it differs: renamed in place (ids kept). */
  formerName?: string;
}

/**
 * Whether a table is a multi-tenant lake's: a required `tenant` column, first (where a
 * query's reader looks for a partition column), and identity(tenant) the first partition field.
 */
export interface Tenancy {
  tenanted?: boolean | undefined;
}

/** The `tenant` column of a multi-tenant lake's tables. */
const TENANT: TableColumn = {
  name: TENANT_COLUMN,
  type: 'string',
  required: true,
  doc: 'The tenant whose data the row is (the first partition).',
};

/**
 * The table's columns in order: the dataset's columns, then `dt`; a tenanted table's
 * `tenant` column first (a single-tenant table's column ids stay as they were).
 */
export function tableColumns(schema: TableSchema, tenancy: Tenancy = {}): TableColumn[] {
  return [
    ...(tenancy.tenanted === true ? [TENANT] : []),
    ...schema.columns.map((c) => ({
      name: c.name,
      type: ICEBERG_TYPES[c.kind],
      required: !c.nullable,
      doc: c.description,
      ...(c.formerName === undefined ? {} : { formerName: c.formerName }),
    })),
    {
      name: PARTITION_COLUMN,
      type: DT_TYPE,
      required: true,
      doc:
        schema.dataset === 'calls'
          ? "Local calendar date of `start` in the report's time zone (the partition day)."
          : "The local calendar day the summary covers, in the report's time zone (the partition day).",
    },
  ];
}

/**
 * The schema a new table starts with: field ids 1..n in column order (what Glue and
 * Iceberg's own `newTableMetadata` assign to a flat schema). Ids of an existing table always
 * come from its metadata, never from this order.
 */
export function initialSchema(schema: TableSchema, tenancy: Tenancy = {}): IcebergSchema {
  const fields: IcebergField[] = tableColumns(schema, tenancy).map(({ formerName: _, ...c }, i) => ({
    id: i + 1,
    ...c,
  }));
  return { type: 'struct', 'schema-id': 0, fields };
}

/** First partition field id (the spec: partition field ids start at 1000). */
const FIRST_PARTITION_FIELD_ID = 1000;

/**
 * The partition spec: identity on `report_id`, identity on `dt`; a tenanted table's
 * identity on `tenant` first (field ids 1000, 1001, 1002), so a tenant's query prunes to
 * its own files. A query by report and day prunes to that report's day from the manifest
 * list and manifests alone; identity (rather than a `day(start)` transform) because a
 * summary has no `start`, and because `dt` is the local day the service's window is cut by,
 * which `day()` of the UTC instant would not be.
 */
export function partitionSpec(schema: IcebergSchema, tenancy: Tenancy = {}): PartitionSpec {
  const idOf = (name: string): number => {
    const field = schema.fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`The table schema has no ${name} column to partition by`);
    return field.id;
  };
  const names = [...(tenancy.tenanted === true ? [TENANT_COLUMN] : []), 'report_id', PARTITION_COLUMN];
  return {
    'spec-id': 0,
    fields: names.map((name, i) => ({
      'source-id': idOf(name),
      'field-id': FIRST_PARTITION_FIELD_ID + i,
      name,
      transform: 'identity',
    })),
  };
}
