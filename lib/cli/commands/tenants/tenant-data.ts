import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CONTACT_DATASETS,
  commitTenantRollback,
  DATASETS,
  isTenantedTable,
  lakeTable,
  loadTable,
  planTenantRollback,
  TENANT_SEGMENT,
} from '../../../export';
import type { ObjectStore } from '../../../stores';
import { catalogFromUri, DEFAULT_LEASE_PREFIX, objectStoreFromUri } from '../../../stores/aws';
import type { TenantsDeployment } from '../../aws/tenants-deployment';

/**
 * A tenant's data in the lake, found and deleted for `tenants remove --delete-data`. Its rows
 * leave the Iceberg tables first, in ONE overwrite snapshot per table that empties every
 * partition of the tenant (lib/export's tenant rollback to before any snapshot): readers of
 * the current snapshot no longer see them, and the history stays readable until it expires.
 * Then every key of the lake with a `tenant=<id>` level goes (its CSV, staging, run records)
 * EXCEPT the tables' data files: earlier snapshots still list them, and a reader of one
 * (`query --as-of`, a rollback to before the removal, Athena's time travel) would fail on a
 * missing file. They are orphans once those snapshots expire, and go with the orphan-file
 * deletion (Glue's in AWS, the local run's maintenance). Its leases go too.
 */

/** What deleting a tenant's data did. */
export interface DeletedData {
  /** Overwrite commits (one per table) that took its partitions out of the tables. */
  commits: number;
  /** Objects deleted (the lake's and the lease store's). */
  objects: number;
  /** Table data files kept for the snapshots that still list them. */
  keptTableFiles: number;
}

const level = (id: string) => `${TENANT_SEGMENT}${id}`;

/** Whether a key is a table's data file (`<prefix>/tables/<dataset>/data/...`): kept for the history. */
function isTableDataFile(key: string, prefix: string): boolean {
  const rest = (prefix === '' ? key : key.slice(prefix.length + 1)).split('/');
  return rest[0] === 'tables' && rest[2] === 'data';
}

/** Keys under `start` with a `tenant=<id>` level. */
async function keysWithLevel(store: ObjectStore, start: string, id: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of store.list(start)) {
    if (info.key.slice(start.length).split('/').includes(level(id))) keys.push(info.key);
  }
  return keys;
}

/** Keys of the lake with a `tenant=<id>` level, split into those deleted and the tables' data files kept. */
export async function tenantKeys(
  d: TenantsDeployment,
  id: string,
): Promise<{ deleted: string[]; kept: string[] }> {
  const { store, prefix } = d.lake;
  const all = await keysWithLevel(store, prefix === '' ? '' : `${prefix}/`, id);
  return {
    deleted: all.filter((k) => !isTableDataFile(k, prefix)),
    kept: all.filter((k) => isTableDataFile(k, prefix)),
  };
}

/**
 * The deployment's lease store as an object store (its leases are `<key>.lease` objects): the
 * location openDeployment gives its lease store (`<dir>/leases`, the bucket's `_leases`).
 */
function leaseObjects(d: TenantsDeployment): { store: ObjectStore; prefix: string } {
  const uri =
    d.kind === 'local'
      ? pathToFileURL(path.join(d.workDir, 'leases')).href
      : `s3://${d.outputs.BucketName}/${DEFAULT_LEASE_PREFIX}`;
  return objectStoreFromUri('leases', uri, d.kind === 'aws' ? { s3: d.s3 } : {});
}

/** The tenant's rows out of every table (one snapshot each), then its objects deleted but the tables' data files. */
export async function deleteTenantData(d: TenantsDeployment, id: string): Promise<DeletedData> {
  const { store, prefix } = d.lake;
  const catalogUri = d.kind === 'aws' ? `glue:${d.outputs.GlueDatabase}` : 'file';
  const catalog = catalogFromUri(
    '--catalog',
    catalogUri,
    { store, prefix },
    d.kind === 'aws' ? { s3: d.s3 } : {},
  );
  let commits = 0;
  if (catalog !== undefined) {
    const namespace = d.kind === 'aws' ? d.outputs.GlueDatabase : '';
    // The report tables and the contact tables (personal data: the removal's first purpose).
    for (const dataset of [...Object.values(DATASETS), ...Object.values(CONTACT_DATASETS)]) {
      const table = lakeTable({ store, prefix, catalog, namespace }, dataset);
      const loaded = await loadTable(table);
      // A single-tenant lake's table holds no tenant's partitions.
      if (loaded === undefined || !isTenantedTable(loaded.metadata)) continue;
      const plan = await planTenantRollback(table, id, undefined);
      if (plan.partitions.length === 0) continue;
      await commitTenantRollback(
        plan,
        { 'report-export.operation': `tenant ${id} removed` },
        { expire: catalog.kind === 'file' },
      );
      commits++;
    }
  }
  const { deleted, kept } = await tenantKeys(d, id);
  for (let i = 0; i < deleted.length; i += 1000) await store.deleteMany(deleted.slice(i, i + 1000));
  const leases = leaseObjects(d);
  const leaseKeys: string[] = [];
  const under = `${leases.prefix === '' ? '' : `${leases.prefix}/`}${level(id)}/`;
  for await (const info of leases.store.list(under)) leaseKeys.push(info.key);
  if (leaseKeys.length > 0) await leases.store.deleteMany(leaseKeys);
  return { commits, objects: deleted.length + leaseKeys.length, keptTableFiles: kept.length };
}
