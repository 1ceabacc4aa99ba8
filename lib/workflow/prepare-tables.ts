import type { ExportLogger, ensureTable, LakeTables, PromotedColumn } from '../export';
import { DATASETS, type Dataset, lakeTable, tableName, tableSchema } from '../export';
import type { ObjectStore } from '../stores';
import { executionTenant } from './commit-task';

/** The PrepareTables task's event: the Commit function's `prepare` action, before the jobs run. */
export interface PrepareTablesInput {
  action: 'prepare';
  runId: string;
  /** The plan's tenant; null in a single-tenant deployment. */
  tenant: string | null;
  /** The plan's jobs: none, no report table to prepare. */
  jobCount: number;
  /** The execution syncs the contact directories: their two tables are prepared too. */
  contacts?: boolean;
}

/** Makes the contact tables ready for a tenant (created, evolved: the core's ensureTable); their names. */
export type PrepareContactTables = (target: {
  store: ObjectStore;
  prefix: string;
  tables: LakeTables;
  tenant?: string;
  omitFields: readonly string[];
  signal?: AbortSignal;
}) => Promise<string[]>;

/** What PrepareTables returns to the state machine: the tables made ready, by name. */
export interface PrepareTablesOutput {
  status: 'PREPARED' | 'NOTHING';
  tables: string[];
}

export interface PrepareTablesDeps {
  /** The core's ensureTable (a port: tests give their own). */
  ensure: typeof ensureTable;
  /** The committer's own store: the function's role, never a tenant's session. */
  store: ObjectStore;
  prefix: string;
  tables: LakeTables | undefined;
  /** The deployment's promoted columns, per dataset (what every tenant's export writes). */
  promotedColumns: Partial<Record<Dataset, readonly PromotedColumn[] | undefined>>;
  /** The contact tables' preparation (absent: none); with the deployment's omitted fields. */
  prepareContacts?: PrepareContactTables;
  contactOmitFields?: readonly string[];
  logger?: ExportLogger;
  signal?: AbortSignal;
}

/**
 * PrepareTables, the committer before the jobs: every table a job of the plan may write (a
 * report's result is a call list or a summary, known only once it is read: both datasets) is
 * created when missing, its columns renamed and the deployment's promoted columns added
 * (ensureTable), for the execution's tenant. The jobs' exports, in the tenant's session, then
 * only read the tables. A table already current costs a read and writes nothing. No table
 * (the Hive layout) or no job: nothing.
 */
export async function prepareTables(
  input: PrepareTablesInput,
  deps: PrepareTablesDeps,
): Promise<PrepareTablesOutput> {
  const tenant = executionTenant(input.tenant);
  const lake = deps.tables;
  const contacts = input.contacts === true && deps.prepareContacts !== undefined;
  if (lake === undefined || (input.jobCount === 0 && !contacts)) return { status: 'NOTHING', tables: [] };
  const prepared: string[] = [];
  if (contacts && deps.prepareContacts !== undefined) {
    // The contacts never fail the run: without their tables, the branch's sync fails by name
    // (the table not prepared) and the record says so; the calls go on.
    try {
      prepared.push(
        ...(await deps.prepareContacts({
          store: deps.store,
          prefix: deps.prefix,
          tables: lake,
          ...(tenant === undefined ? {} : { tenant }),
          omitFields: deps.contactOmitFields ?? [],
          ...(deps.signal === undefined ? {} : { signal: deps.signal }),
        })),
      );
    } catch (error) {
      deps.logger?.warn('the contact tables could not be prepared: the directories are not synced', {
        error: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  for (const dataset of input.jobCount === 0 ? [] : Object.values(DATASETS)) {
    const table = lakeTable({ store: deps.store, prefix: deps.prefix, ...lake }, dataset);
    const schema = tableSchema({ dataset, promoted: deps.promotedColumns[dataset] ?? [] });
    await deps.ensure(table, schema, {
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      ...(tenant === undefined ? {} : { tenant }),
    });
    prepared.push(tableName(table));
  }
  return { status: 'PREPARED', tables: prepared };
}
