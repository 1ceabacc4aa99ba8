import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ObjectStore } from '../../stores/object-store';
import { type OutputLayout, tenantPrefix } from '../layout';
import { DATASETS, type Dataset, tableSchema } from '../schema';
import {
  type CommitOptions,
  commitTenantRollback,
  type DirectoryDataset,
  type PartitionRestore,
  type TenantRollbackPlan,
  type TenantRollbackResult,
} from '../table';
import type { PartitionOutput } from '../types';
import { writeCsvFromDataFiles } from './csv-from-table';
import { cleanStaging, type PublishContext, promote, stage } from './publish';

/**
 * A tenant rollback as the lake publishes it: the table's commit (lib/export/table's
 * commitTenantRollback) and the CSV of the partitions it changes, moved together as an
 * export moves them. Each changed partition's CSV is written again from the restored rows
 * (csv-from-table.ts), or emptied (a 0-row manifest, no parts) where the target has no
 * files, staged, and promoted with the export's own protocol (publish.ts: backups, journal,
 * manifests); the table's commit runs inside the promotion, so a refused or failed commit
 * puts every CSV partition back as it was. A lake without CSV for the dataset and tenant
 * (a Parquet-only export), and a directory table (contacts, contact_phones: no CSV), only commits.
 */

/** What a rollback of one table did. */
export interface TableRollbackOutcome {
  /** The commit; undefined when the scope's partitions already were as at the target. */
  result: TenantRollbackResult | undefined;
  /** CSV partitions written again from the restored rows and emptied (undefined: the lake has no CSV of them). */
  csv: { rewritten: number; emptied: number } | undefined;
}

/**
 * The CSV layout of the scope's partitions, or undefined when the lake writes no CSV of the
 * dataset (no part of any tenant: a Parquet-only export). Any tenant's part counts: a removed
 * tenant brought back has none of its own left.
 */
async function csvLayout(
  store: ObjectStore,
  prefix: string,
  dataset: Dataset,
  tenant: string | undefined,
): Promise<Omit<OutputLayout, 'reportId'> | undefined> {
  for await (const info of store.list(`${tenantPrefix({ prefix, dataset }, 'csv')}/`)) {
    const gz = info.key.endsWith('.csv.gz');
    if (gz || info.key.endsWith('.csv')) {
      return { prefix, dataset, tenant, csvExtension: gz ? '.csv.gz' : '.csv' };
    }
  }
  return undefined;
}

const isReportDataset = (dataset: string): dataset is Dataset =>
  (Object.values(DATASETS) as string[]).includes(dataset);

/**
 * Rolls `plan`'s table back (its scope: a tenant's partitions, or a single-tenant table),
 * its CSV with it. `summary` names who rolled back (the snapshot's summary).
 */
export async function publishTenantRollback(
  lake: { store: ObjectStore; prefix: string },
  dataset: Dataset | DirectoryDataset,
  plan: TenantRollbackPlan,
  summary: Record<string, string>,
  options: CommitOptions = {},
): Promise<TableRollbackOutcome> {
  if (plan.partitions.length === 0) return { result: undefined, csv: undefined };
  const commit = () =>
    commitTenantRollback(plan, summary, {
      ...options,
      // No optimizer maintains a file catalog's table (as commitRun does for a run).
      expire: options.expire ?? plan.table.catalog.kind === 'file',
    });
  // A directory table has no CSV (its partitions are directories, not report days).
  const base = isReportDataset(dataset)
    ? await csvLayout(lake.store, lake.prefix, dataset, plan.tenant)
    : undefined;
  if (base === undefined || !isReportDataset(dataset)) return { result: await commit(), csv: undefined };

  const runId = `rollback-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'report-export-rollback-'));
  const contexts: PublishContext[] = [];
  try {
    const byReport = new Map<string, PartitionRestore[]>();
    for (const p of plan.partitions) byReport.set(p.reportId, [...(byReport.get(p.reportId) ?? []), p]);
    const steps: { context: PublishContext; partitions: PartitionOutput[] }[] = [];
    for (const [reportId, partitions] of byReport) {
      const layout: OutputLayout = { ...base, reportId };
      const outputs: PartitionOutput[] = [];
      let schema: PublishContext['schema'] | undefined;
      for (const p of partitions) {
        if (p.target.length === 0) {
          outputs.push({ dt: p.dt, rows: 0, files: [] });
          continue;
        }
        const csv = await writeCsvFromDataFiles(lake.store, dataset, p.target, plan.fieldNames, {
          path: path.join(dir, `${steps.length}-${p.dt}${base.csvExtension}`),
          part: 0,
          gzip: base.csvExtension === '.csv.gz',
        });
        schema ??= csv.schema;
        outputs.push({
          dt: p.dt,
          rows: csv.file.rows,
          files: [csv.file],
          ...(csv.callTotals === undefined ? {} : { callTotals: csv.callTotals }),
        });
      }
      const context: PublishContext = {
        store: lake.store,
        layout,
        schema: schema ?? tableSchema({ dataset }),
        // One staging root per report: each promotion keeps its own journal and backups.
        runId: `${runId}-${steps.length}`,
        requestId: runId,
        window: { from: null, to: null },
        // The restored rows are as old as the target (its commit, at the latest): an export
        // committing after this rollback, of rows exported since, is newer than them.
        exportedAt: new Date(plan.target?.['timestamp-ms'] ?? 0).toISOString(),
        reconciliation: null,
      };
      contexts.push(context);
      steps.push({ context, partitions: outputs });
    }
    for (const s of steps) await stage(s.context, s.partitions);
    let result: TenantRollbackResult | undefined;
    // Nested: the commit runs inside every report's promotion, so its failure rolls all back.
    const promoteFrom = async (i: number): Promise<void> => {
      const step = steps[i];
      if (step === undefined) {
        result = await commit();
        return;
      }
      await promote(step.context, step.partitions, { formats: ['csv'], finish: () => promoteFrom(i + 1) });
    };
    await promoteFrom(0);
    const emptied = plan.partitions.filter((p) => p.target.length === 0).length;
    return { result, csv: { rewritten: plan.partitions.length - emptied, emptied } };
  } finally {
    for (const c of contexts) await cleanStaging(c.store, c.layout, c.runId);
    await rm(dir, { recursive: true, force: true });
  }
}
