'use strict';
/**
 * The handler of a create-only table (lib/infra/create-only-table.ts), run by the CDK's
 * custom resource entrypoint: Create makes the table with one glue:CreateTable (the input
 * the resource carries as JSON) and adopts a table of that name that exists already;
 * Update and Delete call nothing, so no stack update rewrites a table the committer owns
 * and no stack deletion removes it. Plain CommonJS on the runtime's own AWS SDK: no bundle.
 */

/** Glue's error when the table is there already: an existing deployment's table, kept as it is. */
const ALREADY_EXISTS = 'AlreadyExistsException';

/**
 * @param {{ RequestType: 'Create' | 'Update' | 'Delete', PhysicalResourceId?: string,
 *   ResourceProperties: { CreateTableInput: string } }} event
 * @param {{ createTable(input: Record<string, unknown>): Promise<unknown>,
 *   getTable(input: Record<string, unknown>): Promise<{ Table?: { Parameters?: Record<string, string> } }> }} glue
 */
async function createOnlyTable(event, glue) {
  const input = JSON.parse(event.ResourceProperties.CreateTableInput);
  const id = `${input.DatabaseName}/${input.Name}`;
  if (event.RequestType !== 'Create') return { PhysicalResourceId: event.PhysicalResourceId ?? id };
  try {
    await glue.createTable(input);
    return { PhysicalResourceId: id, Data: { Adopted: 'false' } };
  } catch (e) {
    if (!(e instanceof Error) || e.name !== ALREADY_EXISTS) throw e;
  }
  const { Table } = await glue.getTable({
    CatalogId: input.CatalogId,
    DatabaseName: input.DatabaseName,
    Name: input.Name,
  });
  const type = Table?.Parameters?.table_type ?? 'none';
  if (type.toUpperCase() !== 'ICEBERG') {
    throw new Error(
      `Table ${id} exists and is not an Iceberg table (table_type ${type}): delete it (the move from the Hive layout, docs/aws-tables.md) and deploy again`,
    );
  }
  return { PhysicalResourceId: id, Data: { Adopted: 'true' } };
}

/** Glue through the runtime's own SDK, loaded when a table is created. */
const runtimeGlue = {
  createTable(input) {
    const { GlueClient, CreateTableCommand } = require('@aws-sdk/client-glue');
    return new GlueClient({}).send(new CreateTableCommand(input));
  },
  getTable(input) {
    const { GlueClient, GetTableCommand } = require('@aws-sdk/client-glue');
    return new GlueClient({}).send(new GetTableCommand(input));
  },
};

exports.createOnlyTable = createOnlyTable;
exports.handler = (event) => createOnlyTable(event, runtimeGlue);
