import type { Catalog, ObjectStore } from '../../../stores';
import { type TableIo, tableIo } from '../manifest/manifest-io';
import { tableLocation } from '../metadata/location';
import { evolvedSchema, newTableMetadata, nextMetadata, withSchema } from '../metadata/metadata';
import { parseMetadata } from '../metadata/metadata-json';
import { type LakeTableSchema, schemaPartitioning } from '../metadata/schema-mapping';
import type { IcebergTable, LoadedTable } from '../metadata/table-ref';
import { checkPartitioning, checkTenancy } from '../metadata/tenancy';
import { type CommitOptions, commitWithRetry } from './commit-loop';

export type { IcebergTable, LoadedTable } from '../metadata/table-ref';

/** Where a lake's tables are: its store and key prefix, and the catalog they are registered in. */
export interface LakeTablesLocation {
  store: ObjectStore;
  prefix: string;
  catalog: Catalog;
  /** The catalog's namespace: the Glue database; `''` for the file catalog (or Glue's own database). */
  namespace: string;
}

/** The table of `dataset` in the lake (`<prefix>/tables/<dataset>`). */
export function lakeTable(lake: LakeTablesLocation, dataset: string): IcebergTable {
  return {
    catalog: lake.catalog,
    id: { namespace: lake.namespace, name: dataset },
    location: tableLocation(lake.store, lake.prefix, dataset),
  };
}

/** `namespace.name` (the file catalog's namespace may be empty), for messages. */
export function tableName(t: IcebergTable): string {
  return t.id.namespace === '' ? t.id.name : `${t.id.namespace}.${t.id.name}`;
}

/** The table's current state, or undefined when the catalog has no such table. */
export async function loadTable(
  t: IcebergTable,
  io: TableIo = tableIo(t.location),
): Promise<LoadedTable | undefined> {
  io.requests++;
  const base = await t.catalog.load(t.id);
  if (base === undefined) return undefined;
  io.requests++;
  const text = await t.catalog.readMetadata(base.metadataLocation);
  return {
    base,
    metadata: parseMetadata(text, `of table ${tableName(t)} (${base.metadataLocation})`),
    table: t,
  };
}

/**
 * The table, made ready for `schema`'s data files: created when the catalog has none (a new
 * table: the columns with ids 1..n, the (report_id, dt) spec, no snapshot; with
 * `options.tenant` the `tenant` column first and the (tenant, report_id, dt) spec; a
 * directory table's schema, `contacts` or `contact_phones` by its dataset: its columns as
 * they are, the (directory_id) spec, (tenant, directory_id) with `options.tenant`), and its
 * schema evolved by a schema-only commit when it differs from the export's (`evolvedSchema`):
 * a column missing is appended with the next field id, a field of a column's former name
 * (`connId`, before schema version 3) is renamed to it (`conn_id`) with its id kept, and no
 * data file is rewritten. Refuses (TableInvalidError) a tenant's export to a table without the tenant
 * partition and an export without a tenant to a table with it (checkTenancy), and a table of
 * the other partitioning (a directory schema for a report table, or the reverse:
 * checkPartitioning). Refuses (ExportConfigError naming the column) a column whose type differs. Racing
 * writers are fine: a conflict reloads and re-checks, bounded as commits are.
 *
 * @example
 * const loaded = await ensureTable(table, tableSchema({ dataset: 'calls' }));
 * const { fieldIds, schemaJson } = fileSchema(loaded); // for the encoder
 */
export async function ensureTable(
  t: IcebergTable,
  schema: LakeTableSchema,
  options: CommitOptions & { tenant?: string | undefined } = {},
): Promise<LoadedTable> {
  const tenancy = { tenanted: options.tenant !== undefined };
  const now = options.now ?? Date.now;
  return await commitWithRetry(
    t,
    tableIo(t.location),
    {
      what: `creating or evolving the schema of table ${tableName(t)}`,
      load: (io) => loadTable(t, io),
      async prepare(current) {
        if (current === undefined)
          return { metadata: newTableMetadata(t.location.uri, schema, now(), tenancy) };
        checkPartitioning(current.metadata, schemaPartitioning(schema), tableName(t));
        checkTenancy(current.metadata, options.tenant, tableName(t));
        const evolved = evolvedSchema(current.metadata, schema, tableName(t), tenancy);
        if (evolved === undefined) return { unchanged: current };
        return {
          metadata: nextMetadata(current.metadata, current.base.metadataLocation, now(), (next) =>
            withSchema(next, evolved),
          ),
        };
      },
      landed: () => undefined,
      done: (committed) => committed,
    },
    options,
  );
}
