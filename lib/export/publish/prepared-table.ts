import { EXPORT_ERROR_CODES, ExportError } from '../errors';
import type { TableSchema } from '../schema';
import {
  checkTenancy,
  fileSchema,
  type IcebergSchema,
  type IcebergTable,
  type LoadedTable,
  loadTable,
  tableColumns,
  tableName,
} from '../table';

/**
 * The table a deferred export (`commit: 'defer'`, a tenant's session) writes data files for,
 * as it is: loaded, never created or evolved. Only the committer writes a table's metadata;
 * it prepares the tables (ensureTable) before the jobs run. Refuses (EXPORT_TABLE_NOT_PREPARED,
 * naming the table and the columns) a table that is missing, that lacks a column `schema`
 * writes, whose column has another type, or that requires a column the export may leave null;
 * refuses (TableInvalidError) a tenant's export to a table without the tenant partition and back.
 *
 * @example
 * const loaded = await preparedTable(table, tableSchema({ dataset: 'calls' }), 'acme');
 * const { fieldIds, schemaJson } = fileSchema(loaded); // for the encoder
 */
export async function preparedTable(
  t: IcebergTable,
  schema: TableSchema,
  tenant: string | undefined,
): Promise<LoadedTable> {
  const name = tableName(t);
  const loaded = await loadTable(t);
  if (loaded === undefined) throw notPrepared(name, 'does not exist');
  checkTenancy(loaded.metadata, tenant, name);
  const current = JSON.parse(fileSchema(loaded).schemaJson) as IcebergSchema;
  const fields = new Map(current.fields.map((f) => [f.name, f]));
  const missing: string[] = [];
  const differing: string[] = [];
  for (const column of tableColumns(schema, { tenanted: tenant !== undefined })) {
    const field = fields.get(column.name);
    if (field === undefined) missing.push(column.name);
    else if (field.type !== column.type) differing.push(`${column.name} (${field.type}, not ${column.type})`);
    else if (field.required && !column.required) differing.push(`${column.name} (required, may be null)`);
  }
  if (missing.length === 0 && differing.length === 0) return loaded;
  const what = [
    ...(missing.length === 0 ? [] : [`lacks column ${missing.join(', ')}`]),
    ...(differing.length === 0 ? [] : [`differs in column ${differing.join(', ')}`]),
  ];
  throw notPrepared(name, what.join(' and '));
}

function notPrepared(table: string, what: string): ExportError {
  return new ExportError(
    EXPORT_ERROR_CODES.tableNotPrepared,
    `Table ${table} ${what}: a deferred export writes no table metadata; the committer prepares the tables (the PrepareTables state) before the jobs run, so run the execution again from its start`,
  );
}
