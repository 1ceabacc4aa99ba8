import type { SchemaElement } from 'hyparquet';
import { ExportConfigError } from '../errors';
import { type ColumnSet, PARTITION_COLUMN, parquetSchema, TENANT_COLUMN } from '../schema';

/** What an Iceberg table's data file carries beyond the Hive-layout file (lib/export/formats). */
export interface IcebergFileSchema {
  /** Field id of every column by name: the TableSchema's columns and `dt`. */
  fieldIds: Readonly<Record<string, number>>;
  /** The table's current schema JSON (an entry of its metadata's `schemas`): footer key `iceberg.schema`. */
  schemaJson: string;
  /**
   * The tenant of a multi-tenant lake's table: its constant `tenant` column (STRING,
   * required) leads every file, one dictionary value as `dt` is.
   */
  tenant?: string | undefined;
}

/** Footer key-value key of the table's schema JSON (what Iceberg writers put there). */
export const ICEBERG_SCHEMA_KEY = 'iceberg.schema';

/** Microseconds per millisecond: Iceberg's timestamps are micros, the buffers hold epoch ms. */
export const MICROS_PER_MILLI = 1_000;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date: Iceberg's (and Parquet's) DATE value. */
export function epochDay(dt: string): number {
  return Date.UTC(Number(dt.slice(0, 4)), Number(dt.slice(5, 7)) - 1, Number(dt.slice(8, 10))) / DAY_MS;
}

/** The file schema of each (table schema, Iceberg schema), made once per thread (read only). */
const ELEMENTS = new WeakMap<IcebergFileSchema, { schema: ColumnSet; elements: SchemaElement[] }>();

/**
 * The Parquet schema (root first) of an Iceberg data file of the table: the Hive-layout
 * file's elements with each column's `field_id`, timestamps in MICROS
 * (TIMESTAMP_MICROS converted type, as Iceberg's spec maps `timestamp`/`timestamptz`),
 * `extra` a plain STRING (Iceberg has no JSON type), then `dt` (INT32 DATE, required); a
 * tenant's file has its `tenant` (a required STRING) first, as the table's schema does.
 * A column without a field id is an ExportConfigError naming it.
 */
export function icebergElements(schema: ColumnSet, iceberg: IcebergFileSchema): SchemaElement[] {
  const cached = ELEMENTS.get(iceberg);
  if (cached?.schema === schema) return cached.elements;
  const [root, ...columns] = parquetSchema(schema);
  const tenant: SchemaElement[] =
    iceberg.tenant === undefined
      ? []
      : [
          {
            name: TENANT_COLUMN,
            type: 'BYTE_ARRAY',
            repetition_type: 'REQUIRED',
            converted_type: 'UTF8',
            logical_type: { type: 'STRING' },
            field_id: fieldId(iceberg, TENANT_COLUMN),
          },
        ];
  const elements: SchemaElement[] = [
    { ...(root as SchemaElement), num_children: tenant.length + columns.length + 1 },
    ...tenant,
    ...columns.map((e) => icebergElement(e, fieldId(iceberg, e.name))),
    {
      name: PARTITION_COLUMN,
      type: 'INT32',
      repetition_type: 'REQUIRED',
      converted_type: 'DATE',
      logical_type: { type: 'DATE' },
      field_id: fieldId(iceberg, PARTITION_COLUMN),
    },
  ];
  ELEMENTS.set(iceberg, { schema, elements });
  return elements;
}

function fieldId(iceberg: IcebergFileSchema, name: string): number {
  const id = Object.hasOwn(iceberg.fieldIds, name) ? iceberg.fieldIds[name] : undefined;
  if (!Number.isInteger(id)) {
    throw new ExportConfigError(`The Iceberg table's schema has no field id for column ${name}`);
  }
  return id as number;
}

function icebergElement(e: SchemaElement, field_id: number): SchemaElement {
  const logical = e.logical_type;
  if (logical?.type === 'TIMESTAMP') {
    return {
      ...e,
      converted_type: 'TIMESTAMP_MICROS',
      logical_type: { ...logical, unit: 'MICROS' },
      field_id,
    };
  }
  if (logical?.type === 'JSON')
    return { ...e, converted_type: 'UTF8', logical_type: { type: 'STRING' }, field_id };
  return { ...e, field_id };
}
