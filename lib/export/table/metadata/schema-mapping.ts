import { ExportConfigError } from '../../errors';
import {
  type ColumnKind,
  type ColumnSet,
  PARTITION_COLUMN,
  type TableSchema,
  TENANT_COLUMN,
} from '../../schema';
import type { TablePartitioning } from './tenancy';
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

/** The contact directories' tables (lib/export/contacts names the same two). */
export const DIRECTORY_DATASETS = { contacts: 'contacts', contactPhones: 'contact_phones' } as const;
export type DirectoryDataset = (typeof DIRECTORY_DATASETS)[keyof typeof DIRECTORY_DATASETS];

/** The column a directory table is partitioned by (after `tenant` in a multi-tenant lake). */
export const DIRECTORY_COLUMN = 'directory_id';

/**
 * The columns of a contact directory's table (structurally lib/export/contacts'
 * `ContactColumns`): every column of its files, in order, the `tenant` column first in a
 * multi-tenant lake (the table adds none), a required `directory_id`, and no `dt`.
 */
export interface DirectoryTableSchema extends ColumnSet {
  readonly dataset: DirectoryDataset;
}

/** What a table of the lake is made for: a report dataset's schema, or a directory table's. */
export type LakeTableSchema = TableSchema | DirectoryTableSchema;

/** Whether the schema is a directory table's (`contacts`, `contact_phones`): its dataset says. */
export function isDirectorySchema(schema: LakeTableSchema): schema is DirectoryTableSchema {
  return Object.values(DIRECTORY_DATASETS).includes(schema.dataset as DirectoryDataset);
}

/** What a table made for `schema` is partitioned by. */
export function schemaPartitioning(schema: LakeTableSchema): TablePartitioning {
  return isDirectorySchema(schema) ? 'directory' : 'report';
}

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
 * `tenant` column first (a single-tenant table's column ids stay as they were). A directory
 * table's are its schema's columns as they are (its `tenant` column its own, no `dt`).
 */
export function tableColumns(schema: LakeTableSchema, tenancy: Tenancy = {}): TableColumn[] {
  if (isDirectorySchema(schema)) return directoryColumns(schema, tenancy);
  return [
    ...(tenancy.tenanted === true ? [TENANT] : []),
    ...schema.columns.map(asTableColumn),
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

function asTableColumn(c: ColumnSet['columns'][number]): TableColumn {
  return {
    name: c.name,
    type: ICEBERG_TYPES[c.kind],
    required: !c.nullable,
    doc: c.description,
    ...(c.formerName === undefined ? {} : { formerName: c.formerName }),
  };
}

/**
 * A directory table's columns, checked against the lake's tenancy: a required `tenant` column
 * first in a multi-tenant lake and none in a single-tenant one, and a required `directory_id`
 * (the partition's source columns; ExportConfigError saying what is wrong).
 */
function directoryColumns(schema: DirectoryTableSchema, tenancy: Tenancy): TableColumn[] {
  const columns = schema.columns.map(asTableColumn);
  const where = `The ${schema.dataset} table's columns`;
  const tenantAt = columns.findIndex((c) => c.name === TENANT_COLUMN);
  if (tenancy.tenanted === true && (tenantAt !== 0 || columns[0]?.required !== true)) {
    throw new ExportConfigError(
      `${where} have no required ${TENANT_COLUMN} column first, but the lake is a multi-tenant one: make them for tenants`,
    );
  }
  if (tenancy.tenanted !== true && tenantAt !== -1) {
    throw new ExportConfigError(
      `${where} have a ${TENANT_COLUMN} column, but the lake is a single-tenant one (no tenant named): make them without it`,
    );
  }
  if (columns.find((c) => c.name === DIRECTORY_COLUMN)?.required !== true) {
    throw new ExportConfigError(`${where} have no required ${DIRECTORY_COLUMN} column to partition by`);
  }
  return columns;
}

/**
 * The schema a new table starts with: field ids 1..n in column order (what Glue and
 * Iceberg's own `newTableMetadata` assign to a flat schema). Ids of an existing table always
 * come from its metadata, never from this order.
 */
export function initialSchema(schema: LakeTableSchema, tenancy: Tenancy = {}): IcebergSchema {
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
 * which `day()` of the UTC instant would not be. A directory table's (`partitioning`
 * `directory`): identity on `directory_id`, a tenanted one's identity on `tenant` first
 * (1000, 1001): a directory sync replaces its partition whole.
 */
export function partitionSpec(
  schema: IcebergSchema,
  tenancy: Tenancy = {},
  partitioning: TablePartitioning = 'report',
): PartitionSpec {
  const idOf = (name: string): number => {
    const field = schema.fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`The table schema has no ${name} column to partition by`);
    return field.id;
  };
  const names = [
    ...(tenancy.tenanted === true ? [TENANT_COLUMN] : []),
    ...(partitioning === 'directory' ? [DIRECTORY_COLUMN] : ['report_id', PARTITION_COLUMN]),
  ];
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
