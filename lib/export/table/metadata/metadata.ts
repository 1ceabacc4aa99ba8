import { randomUUID } from 'node:crypto';
import type { CatalogColumn } from '../../../stores';
import { ExportConfigError, TableInvalidError } from '../../errors';
import { columnName } from '../../schema';
import { RETENTION_PROPERTIES } from './retention';
import {
  GLUE_TYPE_OF,
  initialSchema,
  type LakeTableSchema,
  partitionSpec,
  schemaPartitioning,
  type Tenancy,
  tableColumns,
} from './schema-mapping';
import type { IcebergField, IcebergSchema, Snapshot, TableMetadata } from './types';

/** Table property bounding the metadata-log (Iceberg's name and default). */
export const PREVIOUS_VERSIONS_MAX = 'write.metadata.previous-versions-max';
const DEFAULT_PREVIOUS_VERSIONS_MAX = 100;

/**
 * Properties a new table starts with: Parquet data files (what Athena and Glue's compaction
 * read and write), and a metadata log as long as Iceberg's default.
 */
export const TABLE_PROPERTIES: Readonly<Record<string, string>> = {
  'write.format.default': 'parquet',
  [PREVIOUS_VERSIONS_MAX]: String(DEFAULT_PREVIOUS_VERSIONS_MAX),
  ...RETENTION_PROPERTIES,
};

/**
 * The properties of a new table: {@link TABLE_PROPERTIES}, and for a table every tenant
 * shares, column metrics as counts only. Every tenant's run reads the shared manifests; an
 * Iceberg writer other than ours (Glue's compaction, Athena, Spark) would otherwise record
 * each column's min and max (`truncate(16)` by default) in them: 16 characters of another
 * tenant's values.
 */
export function tableProperties(tenancy: Tenancy = {}): Record<string, string> {
  return tenancy.tenanted === true
    ? { ...TABLE_PROPERTIES, 'write.metadata.metrics.default': 'counts' }
    : { ...TABLE_PROPERTIES };
}

/**
 * The metadata of a new table at `uri`: the dataset's columns (ids 1..n), the (report_id, dt)
 * spec, no snapshot; a tenanted table's `tenant` column first and the (tenant, report_id, dt)
 * spec. A directory table's schema (`contacts`, `contact_phones`): its columns as they are and
 * the (directory_id) spec, (tenant, directory_id) for tenants (partition field ids from 1000).
 */
export function newTableMetadata(
  uri: string,
  schema: LakeTableSchema,
  nowMs: number,
  tenancy: Tenancy = {},
): TableMetadata {
  const current = initialSchema(schema, tenancy);
  const spec = partitionSpec(current, tenancy, schemaPartitioning(schema));
  return {
    'format-version': 2,
    'table-uuid': randomUUID(),
    location: uri,
    'last-sequence-number': 0,
    'last-updated-ms': nowMs,
    'last-column-id': Math.max(...current.fields.map((f) => f.id)),
    'current-schema-id': current['schema-id'],
    schemas: [current],
    'default-spec-id': spec['spec-id'],
    'partition-specs': [spec],
    'last-partition-id': Math.max(...spec.fields.map((f) => f['field-id'])),
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: tableProperties(tenancy),
    'current-snapshot-id': null,
    snapshots: [],
    'snapshot-log': [],
    'metadata-log': [],
    refs: {},
  };
}

/** The table's current schema; `table` names it in the error. */
export function currentSchema(metadata: TableMetadata, table: string): IcebergSchema {
  const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
  if (schema === undefined) {
    throw new TableInvalidError(
      `Table ${table}: its current schema ${metadata['current-schema-id']} is not among its schemas`,
    );
  }
  return schema;
}

/**
 * The schema change `schema` needs, or undefined when the table's current schema already
 * is what the export writes. A field named as a column was before schema version 3 (its
 * `formerName`: the service's camelCase member name, `connId`) is renamed to the column's
 * name (`conn_id`) in place: same field id, so every data file written before reads under the
 * new name (readers map a file's columns by field id), and no data file is rewritten. A field
 * the export no longer writes (a promoted column dropped) whose name is not lower snake_case
 * is renamed the same way, when no other field has that name. A field's doc becomes the
 * column's description (which names the member). A column missing is appended with the next
 * id (last-column-id + 1), as optional (files written before it lack it, so it cannot be
 * required); a required field our schema writes nulls into, or no longer writes, becomes
 * optional. A column whose type differs is refused: Iceberg promotes no type of ours to
 * another, and writing a different type under the field's id would break every reader.
 */
export function evolvedSchema(
  metadata: TableMetadata,
  schema: LakeTableSchema,
  table: string,
  tenancy: Tenancy = {},
): { schema: IcebergSchema; lastColumnId: number } | undefined {
  const current = currentSchema(metadata, table);
  const columns = tableColumns(schema, tenancy);
  const fields: IcebergField[] = current.fields.map((f) => ({ ...f }));
  const named = (name: string): number => fields.findIndex((f) => f.name === name);
  let lastColumnId = metadata['last-column-id'];
  let changed = false;
  const update = (index: number, field: IcebergField): void => {
    fields[index] = field;
    changed = true;
  };
  for (const column of columns) {
    let index = named(column.name);
    if (index === -1 && column.formerName !== undefined) index = named(column.formerName);
    const field = fields[index];
    if (field === undefined) {
      lastColumnId += 1;
      fields.push({
        id: lastColumnId,
        name: column.name,
        required: false,
        type: column.type,
        doc: column.doc,
      });
      changed = true;
      continue;
    }
    if (field.type !== column.type) {
      throw new ExportConfigError(
        `Table ${table}: column ${column.name} is ${column.type} in the export but ${field.type} in the table (field ${field.name}, id ${field.id}); an Iceberg column's type cannot change. Rename the promoted column, or drop the column from the table first`,
      );
    }
    if (field.name !== column.name) update(index, { ...field, name: column.name });
    if (field.doc !== column.doc) update(index, { ...(fields[index] as IcebergField), doc: column.doc });
    if (field.required && !column.required)
      update(index, { ...(fields[index] as IcebergField), required: false });
  }
  // A field the export no longer writes (a promoted column dropped) is null in new files.
  const written = new Set(columns.map((c) => c.name));
  for (const [i, field] of fields.entries()) {
    if (written.has(field.name)) continue;
    if (field.required) update(i, { ...field, required: false });
    const name = columnName(field.name);
    if (name !== field.name && named(name) === -1) update(i, { ...(fields[i] as IcebergField), name });
  }
  if (!changed) return undefined;
  const schemaId = Math.max(...metadata.schemas.map((s) => s['schema-id'])) + 1;
  return { schema: { type: 'struct', 'schema-id': schemaId, fields }, lastColumnId };
}

/**
 * The metadata that follows `base` (read from `baseLocation`): `change` applied, the time
 * stamped, and the base's file added to the metadata log (bounded by the table's
 * `write.metadata.previous-versions-max`, oldest dropped first).
 */
export function nextMetadata(
  base: TableMetadata,
  baseLocation: string,
  nowMs: number,
  change: (next: TableMetadata) => void,
): TableMetadata {
  const next: TableMetadata = structuredClone(base);
  change(next);
  // Timestamps of a table only move forward (a reader resolving "as of" relies on it).
  next['last-updated-ms'] = Math.max(nowMs, base['last-updated-ms'] + 1);
  const max = Number(base.properties[PREVIOUS_VERSIONS_MAX] ?? DEFAULT_PREVIOUS_VERSIONS_MAX);
  const log = [
    ...base['metadata-log'],
    { 'metadata-file': baseLocation, 'timestamp-ms': base['last-updated-ms'] },
  ];
  next['metadata-log'] = log.slice(Math.max(0, log.length - (Number.isInteger(max) && max >= 0 ? max : 0)));
  return next;
}

/** Makes `schema` the current schema (a schema-only commit). */
export function withSchema(
  next: TableMetadata,
  evolved: { schema: IcebergSchema; lastColumnId: number },
): void {
  next.schemas.push(evolved.schema);
  next['current-schema-id'] = evolved.schema['schema-id'];
  next['last-column-id'] = evolved.lastColumnId;
}

/** Appends `snapshot` and makes it current: the main branch, the snapshot log, the sequence number. */
export function withSnapshot(next: TableMetadata, snapshot: Snapshot): void {
  next.snapshots.push(snapshot);
  next['current-snapshot-id'] = snapshot['snapshot-id'];
  next['last-sequence-number'] = snapshot['sequence-number'];
  next['snapshot-log'].push({
    'snapshot-id': snapshot['snapshot-id'],
    'timestamp-ms': snapshot['timestamp-ms'],
  });
  next.refs.main = { 'snapshot-id': snapshot['snapshot-id'], type: 'branch' };
}

/**
 * What the Parquet encoder writes into a data file of the table: each column's field id by
 * name, and the current schema's JSON for the footer's `iceberg.schema`.
 */
export function fileSchema(loaded: { metadata: TableMetadata }): {
  fieldIds: Record<string, number>;
  schemaJson: string;
} {
  const schema = currentSchema(loaded.metadata, loaded.metadata.location);
  const fieldIds: Record<string, number> = Object.create(null);
  for (const field of schema.fields) fieldIds[field.name] = field.id;
  return { fieldIds, schemaJson: JSON.stringify(schema) };
}

/** The current schema's columns as a catalog lists them (Glue's StorageDescriptor). */
export function catalogColumns(metadata: TableMetadata, table: string): CatalogColumn[] {
  return currentSchema(metadata, table).fields.map((f) => ({
    name: f.name,
    type: GLUE_TYPE_OF[f.type],
    ...(f.doc === undefined ? {} : { comment: f.doc }),
    fieldId: f.id,
    required: f.required,
  }));
}

/** The snapshot current in `metadata`, undefined before the first. */
export function currentSnapshot(metadata: TableMetadata): Snapshot | undefined {
  const id = metadata['current-snapshot-id'];
  if (id === null) return undefined;
  const snapshot = metadata.snapshots.find((s) => s['snapshot-id'] === id);
  if (snapshot === undefined) {
    throw new TableInvalidError(
      `Table ${metadata.location}: its current snapshot ${id} is not among its snapshots`,
    );
  }
  return snapshot;
}
