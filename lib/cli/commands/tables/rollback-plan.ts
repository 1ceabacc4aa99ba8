import { UsageError } from '../../../command-line';
import {
  type IcebergTable,
  isTenantedTable,
  type LakeTablesLocation,
  lakeTable,
  listSnapshots,
  liveFiles,
  loadTable,
  planTenantRollback,
  type Snapshot,
  type TenantRollbackPlan,
} from '../../../export';
import type { LakeTableName } from '../../shared/lake-tables';
import { LAKE_TABLES, tableGroup } from './arguments';

/**
 * The plan of `tables rollback`: the snapshot the id names (of one table) and, per table of
 * that table's group (arguments.ts: the report tables, or the contact tables), what restoring
 * the tenant's partitions to that point does (lib/export's planTenantRollback). The group's
 * other table goes back to its snapshot current at the target's commit time, as `query
 * --as-of <id>` reads the lake then; the other group stays (a run and a directory sync commit
 * apart, and undoing one is no reason to lose the other's history).
 */

/** A table's part of the plan. */
export interface TablePlan {
  dataset: LakeTableName;
  table: IcebergTable;
  plan: TenantRollbackPlan;
}

/** Both tables' plans and where the id was found. */
export interface RollbackPlan {
  /** The table whose snapshot the id is, and that snapshot. */
  dataset: LakeTableName;
  target: Snapshot;
  tenant: string | undefined;
  tables: TablePlan[];
}

/** The tenants whose files a table's current snapshot lists, sorted. */
async function tenantsOf(tables: readonly IcebergTable[]): Promise<string[]> {
  const tenants = new Set<string>();
  for (const t of tables)
    for (const f of (await liveFiles(t)).files) if (f.tenant !== undefined) tenants.add(f.tenant);
  return [...tenants].sort();
}

/**
 * Finds the snapshot `id` (in `only`'s table when given), checks `--tenant` against the lake's
 * tenancy (required in a multi-tenant lake, naming the tenants the tables hold; refused in a
 * single-tenant one), and plans each existing table. `ifCurrent`: the ids the operator
 * confirmed, each checked against the table that has it.
 */
export async function planRollback(
  lake: LakeTablesLocation,
  request: {
    id: string;
    only: LakeTableName | undefined;
    tenant: string | undefined;
    ifCurrent: readonly string[] | undefined;
    listHint: string;
  },
): Promise<RollbackPlan> {
  const existing: {
    dataset: LakeTableName;
    table: IcebergTable;
    tenanted: boolean;
    snapshots: Snapshot[];
  }[] = [];
  for (const dataset of LAKE_TABLES) {
    const table = lakeTable(lake, dataset);
    const loaded = await loadTable(table);
    if (loaded === undefined) continue;
    const { snapshots } = await listSnapshots(table);
    existing.push({ dataset, table, tenanted: isTenantedTable(loaded.metadata), snapshots });
  }
  const owner = existing.find(
    (e) =>
      (request.only === undefined || e.dataset === request.only) &&
      e.snapshots.some((s) => String(s['snapshot-id']) === request.id),
  );
  const target = owner?.snapshots.find((s) => String(s['snapshot-id']) === request.id);
  if (owner === undefined || target === undefined) {
    const counts = existing.map((e) => `${e.dataset} ${e.snapshots.length}`).join(', ');
    throw new UsageError(
      `tables rollback: ${request.only === undefined ? `no table has snapshot '${request.id}'` : `table ${request.only} has no snapshot '${request.id}'`} (snapshots: ${counts || 'no table'}; an expired snapshot is gone); list them: ${request.listHint}`,
    );
  }
  // From here on, the target's group alone: the other group's tables are not planned.
  const group = tableGroup(owner.dataset);
  const planned = existing.filter((e) => group.includes(e.dataset));
  const tenanted = planned.some((e) => e.tenanted);
  if (tenanted && request.tenant === undefined) {
    const tenants = await tenantsOf(planned.map((e) => e.table));
    throw new UsageError(
      `tables rollback: the lake's tables hold several tenants' rows: --tenant <id> names whose partitions go back (the tables hold ${tenants.length === 0 ? 'no tenant now' : tenants.join(', ')}); the others' stay`,
    );
  }
  if (!tenanted && request.tenant !== undefined) {
    throw new UsageError(
      `tables rollback: --tenant ${request.tenant}: the lake's tables have no tenants (a single-tenant lake); roll back without --tenant`,
    );
  }
  const confirmed = request.ifCurrent
    ?.flatMap((ids) => ids.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (confirmed !== undefined) {
    const unknown = confirmed.filter(
      (id) => !planned.some((e) => e.snapshots.some((s) => String(s['snapshot-id']) === id)),
    );
    if (unknown.length > 0) {
      const elsewhere = existing.filter(
        (e) =>
          !group.includes(e.dataset) && e.snapshots.some((s) => unknown.includes(String(s['snapshot-id']))),
      );
      throw new UsageError(
        elsewhere.length > 0
          ? `--if-current: ${unknown.join(', ')} is a snapshot of ${elsewhere.map((e) => e.dataset).join(', ')}, which a rollback to a snapshot of ${owner.dataset} does not change (it moves ${group.join(' and ')})`
          : `--if-current: no table has snapshot ${unknown.join(', ')}; list them: ${request.listHint}`,
      );
    }
  }
  const tables: TablePlan[] = [];
  for (const e of planned) {
    const asOf =
      e === owner ? { snapshotId: target['snapshot-id'] } : { timestampMs: target['timestamp-ms'] };
    const mine = confirmed?.find((id) => e.snapshots.some((s) => String(s['snapshot-id']) === id));
    if (confirmed !== undefined && mine === undefined && e.snapshots.length > 0) {
      throw new UsageError(
        `--if-current names no snapshot of table ${e.dataset}: give each table's current snapshot as the plan showed it (--dry-run prints them)`,
      );
    }
    const plan = await planTenantRollback(e.table, request.tenant, asOf, {
      ...(confirmed === undefined ? {} : { ifCurrent: mine ?? null }),
    });
    tables.push({ dataset: e.dataset, table: e.table, plan });
  }
  // A tenant with no file now nor at the target is none the tables know (a mistyped id).
  if (
    request.tenant !== undefined &&
    tables.every((t) => t.plan.restore.length === 0 && t.plan.partitions.length === 0)
  ) {
    const tenants = await tenantsOf(planned.map((e) => e.table));
    throw new UsageError(
      `tables rollback: --tenant ${request.tenant}: the tables hold no rows of it, now or at snapshot ${request.id} (they hold ${tenants.length === 0 ? 'no tenant now' : tenants.join(', ')})`,
    );
  }
  return { dataset: owner.dataset, target, tenant: request.tenant, tables };
}
