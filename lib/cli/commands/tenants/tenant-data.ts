import { commitOverwrite, DATASETS, lakeTable, liveFiles } from '../../../export';
import { catalogFromUri } from '../../../stores/aws';
import type { TenantsDeployment } from '../../aws/tenants-deployment';

/**
 * A tenant's objects in the lake, found and deleted for `tenants remove --delete-data`: every
 * key with a `tenant=<id>` level (its CSV and Parquet partitions, its tables' data files, its
 * staging, its run records). Its rows leave the Iceberg tables first, by one overwrite commit
 * per table and report that replaces its days with nothing: deleting files a current snapshot
 * lists would break every reader of the table.
 */

/** What deleting a tenant's data did. */
export interface DeletedData {
  /** Overwrite commits that took its partitions out of the tables. */
  commits: number;
  /** Objects deleted. */
  objects: number;
}

/** Keys of the lake with a `tenant=<id>` level. */
export async function tenantKeys(d: TenantsDeployment, id: string): Promise<string[]> {
  const level = `tenant=${id}`;
  const start = d.lake.prefix === '' ? '' : `${d.lake.prefix}/`;
  const keys: string[] = [];
  for await (const info of d.lake.store.list(start)) {
    if (info.key.slice(start.length).split('/').includes(level)) keys.push(info.key);
  }
  return keys;
}

/** The tenant's rows out of both tables (its live partitions, per report), then its objects deleted. */
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
    for (const dataset of Object.values(DATASETS)) {
      const table = lakeTable({ store, prefix, catalog, namespace }, dataset);
      const { files } = await liveFiles(table);
      const daysByReport = new Map<string, Set<string>>();
      for (const f of files) {
        if (f.tenant !== id) continue;
        const days = daysByReport.get(f.reportId) ?? new Set<string>();
        days.add(f.dt);
        daysByReport.set(f.reportId, days);
      }
      for (const [reportId, days] of daysByReport) {
        await commitOverwrite(table, {
          tenant: id,
          reportId,
          dts: [...days].sort(),
          files: [],
          summary: { 'report-export.operation': `tenant ${id} removed` },
        });
        commits++;
      }
    }
  }
  const keys = await tenantKeys(d, id);
  for (let i = 0; i < keys.length; i += 1000) await store.deleteMany(keys.slice(i, i + 1000));
  return { commits, objects: keys.length };
}
