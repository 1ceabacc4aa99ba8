import { TableInvalidError } from '../../errors';
import type { PartitionSpec, TableMetadata } from './types';

/** How a table of ours is partitioned: a report's days (`calls`, `summaries`) or directories (`contacts`, `contact_phones`). */
export type TablePartitioning = 'report' | 'directory';

/** Our specs by their fields' `name:transform` list, and what each partitions by. */
const SPECS: ReadonlyMap<string, TablePartitioning> = new Map([
  ['report_id:identity,dt:identity', 'report'],
  ['tenant:identity,report_id:identity,dt:identity', 'report'],
  ['directory_id:identity', 'directory'],
  ['tenant:identity,directory_id:identity', 'directory'],
]);

/**
 * The table's partition spec, refused unless it is one of ours: identity on report_id, then
 * dt (a report table), or identity on directory_id (a directory table); a multi-tenant lake's
 * table identity on tenant first.
 */
export function ourSpec(metadata: TableMetadata): PartitionSpec {
  const spec = metadata['partition-specs'].find((s) => s['spec-id'] === metadata['default-spec-id']);
  const names = spec?.fields.map((f) => `${f.name}:${f.transform}`).join(',');
  if (spec === undefined || names === undefined || !SPECS.has(names)) {
    throw new TableInvalidError(
      `Table ${metadata.location}: its partition spec ${metadata['default-spec-id']} is ${names ?? 'missing'}, not identity(report_id), identity(dt) nor identity(directory_id) (each with identity(tenant) before it in a multi-tenant lake)`,
    );
  }
  return spec;
}

/** What the table's spec (one of ours) partitions by: a report's days, or directories. */
export function tablePartitioning(metadata: TableMetadata): TablePartitioning {
  const spec = ourSpec(metadata);
  return SPECS.get(spec.fields.map((f) => `${f.name}:${f.transform}`).join(',')) as TablePartitioning;
}

/**
 * Refuses (EXPORT_TABLE_INVALID) a change of the other partitioning: a report's days written
 * to a directory table, or a directory's partition to a report table (`table` names it).
 */
export function checkPartitioning(metadata: TableMetadata, want: TablePartitioning, table: string): void {
  const has = tablePartitioning(metadata);
  if (has === want) return;
  throw new TableInvalidError(
    has === 'directory'
      ? `Table ${table} is partitioned by directory_id (a contact directory's table), not by report_id and dt: a report's days cannot be written to it`
      : `Table ${table} is partitioned by report_id and dt (a report's table), not by directory_id: a directory's partition cannot be written to it`,
  );
}

/** Whether the table is a multi-tenant lake's: its spec partitions by identity(tenant) first. */
export function isTenantedTable(metadata: TableMetadata): boolean {
  return ourSpec(metadata).fields[0]?.name === 'tenant';
}

/**
 * Refuses (EXPORT_TABLE_INVALID) a tenant's export to a table without the tenant partition,
 * and an export without a tenant to a table with it: the one would mix tenants' rows in
 * partitions no tenant owns, the other would write files of no tenant.
 */
export function checkTenancy(metadata: TableMetadata, tenant: string | undefined, table: string): void {
  const tenanted = isTenantedTable(metadata);
  if (tenanted === (tenant !== undefined)) return;
  const keys = tablePartitioning(metadata) === 'directory' ? 'tenant, directory_id' : 'tenant, report_id, dt';
  throw new TableInvalidError(
    tenanted
      ? `Table ${table} is partitioned by tenant (a multi-tenant lake's table) but the export names no tenant: export with the tenant (a multi-tenant deployment's run), or to a lake prefix whose tables have no tenant`
      : `Table ${table} has no tenant partition (a single-tenant lake's table) but the export is tenant '${tenant}'s: export tenants to a lake prefix of their own, whose tables are created for tenants (${keys}); a single-tenant table is not converted`,
  );
}
