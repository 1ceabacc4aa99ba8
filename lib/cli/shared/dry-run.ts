import { shiftDate } from '../../calendar';
import { DATASETS, manifestKey, OUTPUT_FORMATS } from '../../export';
import { type ObjectStore, readObjectIfPresent } from '../../stores';
import type { Plan, WorkflowSettings } from '../../workflow';
import { fileLakeTables, livePartitionKey, livePartitions } from './lake-tables';
import { renderTable } from './terminal';

/**
 * `--dry-run` of `run`: the plan the workflow's Plan state would make (its own pure
 * function, on the same settings), every execution of the chain, and the published
 * partitions its jobs would replace, read from the lake. Nothing is requested of the
 * service but its report list, and nothing is written.
 */

/**
 * What a dry run of the deployed state machine (`start`, `backfill`) cannot say, its reports
 * being the deployment's settings, and where to see it.
 */
export const DEPLOYED_PLAN_NOTE =
  "Its Plan state splits each input into jobs over the deployment's configured reports (or the --report ones) and windows; to see them and the partitions they would replace, run the same dates with report-export run --dry-run --out <the deployment's DataLakeUri>.";

/** A published partition a planned job would replace (its manifest's rows). */
interface ReplacedPartition {
  reportId: string;
  reportName: string;
  dataset: string;
  dt: string;
  rows: number;
}

/** What `--dry-run --json` prints. */
interface DryRun {
  dryRun: true;
  executions: {
    runId: string;
    input: unknown;
    mode: Plan['mode'];
    dates: Plan['dates'];
    jobs: { jobId: string; reportId: string; reportName: string; firstDate: string; lastDate: string }[];
  }[];
  replaces: ReplacedPartition[];
}

/** Bound on the executions a dry run plans (the local runner's own bound). */
const MAX_PLANNED_EXECUTIONS = 200;

/** The plans of the chain an input starts (Plan continues a long range in new executions). */
export async function planChain(
  input: unknown,
  settings: WorkflowSettings,
): Promise<{ input: unknown; plan: Plan }[]> {
  // Loaded on use, as the command's other workflow code is.
  const { planExecution } = await import('../../workflow/plan');
  const chain: { input: unknown; plan: Plan }[] = [];
  const now = new Date();
  for (let next: unknown = input; next !== undefined && chain.length < MAX_PLANNED_EXECUTIONS; ) {
    const plan = planExecution(next, settings, { executionName: `dry-run-${chain.length + 1}`, now });
    chain.push({ input: next, plan });
    next = plan.continuation;
  }
  return chain;
}

/**
 * The published partitions of the planned jobs' days, in either dataset (which one a
 * report's rows go to is known only from its result): with the dataset's Iceberg table (the
 * file catalog's, as `run` writes it), the days its CSV manifests name, with the rows of the
 * table's current snapshot; without one, the Hive layout's Parquet manifests.
 */
export async function replacedPartitions(
  chain: readonly { plan: Plan }[],
  lake: { store: ObjectStore; prefix: string },
): Promise<ReplacedPartition[]> {
  const found: ReplacedPartition[] = [];
  const tables = fileLakeTables(lake.store, lake.prefix);
  const live = new Map<string, Awaited<ReturnType<typeof livePartitions>>>();
  for (const dataset of Object.values(DATASETS)) live.set(dataset, await livePartitions(tables, dataset));
  for (const job of chain.flatMap((c) => c.plan.jobs)) {
    const days = job.window === undefined ? [] : daysOf(job.window.firstDate, job.window.lastDate);
    for (const dataset of Object.values(DATASETS)) {
      // A tenant's run replaces its own partitions (tenant=<id>/, the tables' tenant column).
      const tenant = job.tenant ?? undefined;
      const layout = {
        prefix: lake.prefix,
        dataset,
        reportId: job.reportId,
        csvExtension: '.csv' as const,
        tenant,
      };
      const table = live.get(dataset);
      for (const dt of days) {
        const format = table === undefined ? OUTPUT_FORMATS.parquet : OUTPUT_FORMATS.csv;
        const bytes = await readObjectIfPresent(lake.store, manifestKey(layout, format, dt));
        const stated = bytes === undefined ? undefined : manifestRows(bytes);
        const rows =
          stated === undefined || table === undefined
            ? stated
            : (table.get(livePartitionKey(tenant, job.reportId, dt))?.rows ?? 0);
        if (rows !== undefined)
          found.push({ reportId: job.reportId, reportName: job.reportName, dataset, dt, rows });
      }
    }
  }
  return found;
}

function daysOf(first: string, last: string): string[] {
  const days: string[] = [];
  for (let dt = first; dt <= last && days.length < 3660; dt = shiftDate(dt, 1)) days.push(dt);
  return days;
}

/** The rows a manifest states, or undefined for an object that is not one (`_manifest.json` as written by publish). */
function manifestRows(bytes: Uint8Array): number | undefined {
  try {
    const rows = (JSON.parse(new TextDecoder().decode(bytes)) as { rows?: unknown }).rows;
    return typeof rows === 'number' ? rows : undefined;
  } catch {
    return undefined;
  }
}

/** The dry run as `--json` prints it. */
export function dryRunDocument(
  chain: readonly { input: unknown; plan: Plan }[],
  replaces: ReplacedPartition[],
): DryRun {
  return {
    dryRun: true,
    executions: chain.map(({ input, plan }) => ({
      runId: plan.runId,
      input,
      mode: plan.mode,
      dates: plan.dates,
      jobs: plan.jobs.map((j) => ({
        jobId: j.jobId,
        reportId: j.reportId,
        reportName: j.reportName,
        firstDate: j.window?.firstDate ?? plan.dates.from,
        lastDate: j.window?.lastDate ?? plan.dates.to,
      })),
    })),
    replaces,
  };
}

/** The dry run as text: each execution's jobs and windows, then the partitions replaced. */
export function renderDryRun(doc: DryRun): string {
  const lines = [
    `Dry run: ${doc.executions.length} execution(s), ${doc.executions.reduce((n, e) => n + e.jobs.length, 0)} job(s); nothing requested or written`,
  ];
  doc.executions.forEach((e, i) => {
    lines.push(
      '',
      `Execution ${i + 1}: ${JSON.stringify(e.input)}  (${e.mode}, ${e.dates.from} .. ${e.dates.to})`,
    );
    lines.push(
      renderTable(
        e.jobs.map((j) => ({ job: j.jobId, report: j.reportName, from: j.firstDate, to: j.lastDate })),
        ['job', 'report', 'from', 'to'],
      ).trimEnd(),
    );
  });
  lines.push('');
  if (doc.replaces.length === 0) lines.push('Replaces no published partition.');
  else {
    lines.push(
      `Replaces ${doc.replaces.length} published partition(s) (the shrink guard holds one this run has far fewer rows of):`,
    );
    lines.push(
      renderTable(
        doc.replaces.map((p) => ({ date: p.dt, report: p.reportName, dataset: p.dataset, rows: p.rows })),
        ['date', 'report', 'dataset', { key: 'rows', align: 'right' }],
      ).trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}
