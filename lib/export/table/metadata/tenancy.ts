import { TableInvalidError } from '../../errors';
import type { PartitionSpec, TableMetadata } from './types';

const SPEC = 'report_id:identity,dt:identity';
const TENANTED_SPEC = `tenant:identity,${SPEC}`;

/**
 * The table's partition spec, refused unless it is ours: identity on report_id, then dt;
 * a multi-tenant lake's table identity on tenant first.
 */
export function ourSpec(metadata: TableMetadata): PartitionSpec {
  const spec = metadata['partition-specs'].find((s) => s['spec-id'] === metadata['default-spec-id']);
  const names = spec?.fields.map((f) => `${f.name}:${f.transform}`).join(',');
  if (spec === undefined || (names !== SPEC && names !== TENANTED_SPEC)) {
    throw new TableInvalidError(
      `Table ${metadata.location}: its partition spec ${metadata['default-spec-id']} is ${names ?? 'missing'}, not identity(report_id), identity(dt) (nor identity(tenant) before them)`,
    );
  }
  return spec;
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
  throw new TableInvalidError(
    tenanted
      ? `Table ${table} is partitioned by tenant (a multi-tenant lake's table) but the export names no tenant: export with the tenant (a multi-tenant deployment's run), or to a lake prefix whose tables have no tenant`
      : `Table ${table} has no tenant partition (a single-tenant lake's table) but the export is tenant '${tenant}'s: export tenants to a lake prefix of their own, whose tables are created for tenants (tenant, report_id, dt); a single-tenant table is not converted`,
  );
}
