import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { parseCommandLine, renderHelp, UsageError } from '../../../command-line';
import {
  partitionName,
  publishTenantRollback,
  type Snapshot,
  type TableRollbackOutcome,
} from '../../../export';
import type { IOStreams } from '../../shared/io-streams';
import type { LakeTableName } from '../../shared/lake-tables';
import { acquireOutDirLock } from '../../shared/out-dir-lock';
import { splitPositionals } from '../../shared/positionals';
import { promptLine } from '../../shared/prompt';
import { checkedTenant } from '../../shared/tenant-check';
import { colors, formatCount } from '../../shared/terminal';
import { lakeArguments, tableArgument } from './arguments';
import { tablesLocation } from './location';
import { planRollback, type RollbackPlan, type TablePlan } from './rollback-plan';
import { TABLES_ROLLBACK_COMMAND } from './spec';

/** Who made a rollback snapshot, in its summary (besides the target and the tenant). */
const ROLLBACK_FROM_KEY = 'report-export.rollback-from';

/**
 * `tables rollback [<table>] <snapshot-id> [--tenant <id>]`: the tenant's partitions of both
 * tables back to that point, one new snapshot per table, their CSV rewritten. Plan, then
 * confirm, as `terraform apply` does: the plan is printed, a terminal is asked, a script
 * confirms with `--if-current` (the current snapshots it saw: refused when one of the
 * tenant's landed since) or skips it with `--force`; without either and without a terminal
 * nothing changes (exit 2).
 */
export async function tablesRollback(argv: readonly string[], io: IOStreams): Promise<number> {
  const { flags, positionals: args } = splitPositionals(TABLES_ROLLBACK_COMMAND, argv);
  const v = parseCommandLine(TABLES_ROLLBACK_COMMAND, flags);
  if (v.help) {
    io.stdout.write(renderHelp(TABLES_ROLLBACK_COMMAND));
    return 0;
  }
  if (args.length === 0 || args.length > 2) {
    throw new UsageError(
      `tables rollback takes a snapshot id, optionally after its table (tables rollback [calls] <snapshot-id> --tenant <id>), got ${args.length} arguments`,
    );
  }
  const only = args.length === 2 ? tableArgument(args[0] as string, 'tables rollback') : undefined;
  const id = args[args.length - 1] as string;
  const tenant = checkedTenant(v.tenant);
  const confirms = [v.force, v['if-current'] !== undefined, v['dry-run']].filter(Boolean).length;
  if (confirms > 1) throw new UsageError('tables rollback: give one of --dry-run, --if-current and --force');
  const lake = await tablesLocation('tables rollback', v, io);
  // A local lake: held as npm start, run and workflow hold it, so no export promotes a
  // partition's CSV while this rewrites it (the table's own commit is compare-and-swap).
  const local = v['dry-run'] || v.dir.startsWith('s3://') ? undefined : path.resolve(io.cwd, v.dir);
  const lock = local !== undefined && (await isDirectory(local)) ? await acquireOutDirLock(local) : undefined;
  try {
    const where = lakeArguments(v);
    const tenantFlag = tenant === undefined ? '' : ` --tenant ${tenant}`;
    const plan = await planRollback(lake, {
      id,
      only,
      tenant,
      ifCurrent: v['if-current'],
      listHint: `report-export tables snapshots ${where}`,
    });
    const changing = plan.tables.filter((t) => t.plan.partitions.length > 0);
    const confirmCommand = `report-export tables rollback ${id}${tenantFlag} --if-current ${plan.tables
      .map((t) => t.plan.currentSnapshotId)
      .filter((s) => s !== null)
      .join(',')} ${where}`;
    if (changing.length === 0 || v['dry-run']) {
      writePlan(io, v.json, plan, {
        rolledBack: false,
        confirmCommand: changing.length === 0 ? undefined : confirmCommand,
      });
      return 0;
    }
    if (!v.force && v['if-current'] === undefined) {
      writePlan(io, v.json, plan, { rolledBack: false, confirmCommand });
      if (io.stdin.isTTY !== true) {
        throw new UsageError(
          `tables rollback: nothing rolled back; confirm the plan above with --if-current (${confirmCommand}), or --force (no terminal to ask on)`,
        );
      }
      const answer = await promptLine(io, 'Roll back as planned? Type yes to confirm: ');
      if (answer !== 'yes') {
        io.stderr.write('Not confirmed: nothing rolled back\n');
        return 1;
      }
    }
    const outcomes = new Map<LakeTableName, TableRollbackOutcome>();
    for (const t of changing) {
      try {
        outcomes.set(
          t.dataset,
          await publishTenantRollback(lake, t.dataset, t.plan, {
            [ROLLBACK_FROM_KEY]: String(t.plan.currentSnapshotId),
          }),
        );
      } catch (error) {
        // The tables commit one after the other: say which one went back before this one failed.
        for (const [dataset, o] of outcomes) {
          io.stderr.write(
            `${dataset} was rolled back (new snapshot ${o.result?.snapshotId}); ${t.dataset} was not:\n`,
          );
        }
        throw error;
      }
    }
    const owner = plan.tables.find((t) => t.dataset === plan.dataset);
    const undo = `report-export tables rollback ${plan.dataset} ${owner?.plan.currentSnapshotId}${tenantFlag} --force ${where}`;
    writeResult(io, v.json, plan, outcomes, undo);
    return 0;
  } finally {
    await lock?.release();
  }
}

const isDirectory = (dir: string) =>
  stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

function snapshotWords(s: Snapshot): string {
  const run = s.summary['report-export.run-id'];
  const rollback = s.summary['report-export.rollback-to'];
  return `${s['snapshot-id']} (${new Date(s['timestamp-ms']).toISOString()}${run === undefined ? '' : `, run ${run}`}${rollback === undefined ? '' : `, a rollback to ${rollback}`})`;
}

const rowsOf = (files: readonly { rows: number }[]) => files.reduce((n, f) => n + f.rows, 0);

/** A table's plan as JSON. */
function tableJson(t: TablePlan) {
  const { plan } = t;
  return {
    table: t.dataset,
    currentSnapshotId: plan.currentSnapshotId,
    targetSnapshotId: plan.target?.['snapshot-id'] ?? null,
    discarded: plan.discarded.map((s) => ({
      snapshotId: s['snapshot-id'],
      committedAt: new Date(s['timestamp-ms']).toISOString(),
      runId: s.summary['report-export.run-id'] ?? null,
    })),
    partitions: plan.partitions.map((p) => ({
      reportId: p.reportId,
      dt: p.dt,
      // A directory table's partition: its directory (reportId and dt are '').
      ...(p.directoryId === undefined ? {} : { directoryId: p.directoryId }),
      rowsNow: rowsOf(p.now),
      rowsAfter: rowsOf(p.target),
    })),
  };
}

function writePlan(
  io: IOStreams,
  json: boolean,
  plan: RollbackPlan,
  extra: { rolledBack: false; confirmCommand: string | undefined },
): void {
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        tenant: plan.tenant ?? null,
        target: { table: plan.dataset, snapshotId: plan.target['snapshot-id'] },
        rolledBack: false,
        tables: plan.tables.map(tableJson),
        confirm: extra.confirmCommand ?? null,
      })}\n`,
    );
    return;
  }
  const c = colors(io.stdout, io.env);
  const whose = plan.tenant === undefined ? 'the tables' : `tenant ${plan.tenant}'s partitions`;
  const lines = [
    `${c.bold('Plan')}: ${whose} back to ${plan.dataset} snapshot ${snapshotWords(plan.target)}`,
  ];
  for (const t of plan.tables) {
    const { plan: p } = t;
    const to =
      p.target === undefined
        ? 'no snapshot then (emptied)'
        : t.dataset === plan.dataset
          ? `snapshot ${p.target['snapshot-id']}`
          : `snapshot ${p.target['snapshot-id']} (current then)`;
    if (p.partitions.length === 0) {
      lines.push(`  ${t.dataset}: at ${to} already for ${whose}: nothing changes`);
      continue;
    }
    const before = p.partitions.reduce((n, x) => n + rowsOf(x.now), 0);
    const after = p.partitions.reduce((n, x) => n + rowsOf(x.target), 0);
    lines.push(
      `  ${t.dataset}: current ${p.currentSnapshotId} -> ${to}: ${formatCount(p.partitions.length)} partitions change, ${formatCount(before)} rows -> ${formatCount(after)}`,
    );
    lines.push(
      p.discarded.length === 0
        ? '    discards no snapshot'
        : `    ${c.bold(`discards ${p.discarded.length} snapshot${p.discarded.length === 1 ? '' : 's'}`)}${plan.tenant === undefined ? '' : ` of ${plan.tenant}`}: ${p.discarded.map(snapshotWords).join(', ')}`,
    );
    for (const x of p.partitions.slice(0, 10)) {
      lines.push(
        `    ${partitionName(plan.tenant, x)}: ${formatCount(rowsOf(x.now))} rows -> ${formatCount(rowsOf(x.target))}`,
      );
    }
    if (p.partitions.length > 10)
      lines.push(`    ... and ${p.partitions.length - 10} more (--json lists them)`);
  }
  if (plan.tenant !== undefined) lines.push("  other tenants' partitions and commits stay as they are");
  if (extra.confirmCommand !== undefined) lines.push(`  confirm: ${extra.confirmCommand}`);
  io.stdout.write(`${lines.join('\n')}\n`);
}

function writeResult(
  io: IOStreams,
  json: boolean,
  plan: RollbackPlan,
  outcomes: ReadonlyMap<LakeTableName, TableRollbackOutcome>,
  undo: string,
): void {
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        tenant: plan.tenant ?? null,
        target: { table: plan.dataset, snapshotId: plan.target['snapshot-id'] },
        rolledBack: true,
        tables: plan.tables.map((t) => {
          const o = outcomes.get(t.dataset);
          const r = o?.result;
          return {
            ...tableJson(t),
            discarded: (r?.discarded ?? []).map((s) => ({
              snapshotId: s['snapshot-id'],
              committedAt: new Date(s['timestamp-ms']).toISOString(),
              runId: s.summary['report-export.run-id'] ?? null,
            })),
            rolledBack: r !== undefined,
            snapshotId: r?.snapshotId ?? null,
            addedFiles: r?.addedFiles ?? 0,
            deletedFiles: r?.deletedFiles ?? 0,
            addedRows: r?.addedRows ?? 0,
            deletedRows: r?.deletedRows ?? 0,
            attempts: r?.attempts ?? 0,
            conflicts: r?.conflicts ?? 0,
            csv: o?.csv ?? null,
          };
        }),
        undo,
      })}\n`,
    );
    return;
  }
  const c = colors(io.stdout, io.env);
  const whose = plan.tenant === undefined ? '' : ` tenant ${plan.tenant}'s partitions of`;
  const lines: string[] = [];
  for (const t of plan.tables) {
    const r = outcomes.get(t.dataset)?.result;
    if (r === undefined) {
      lines.push(`${t.dataset}: nothing to roll back`);
      continue;
    }
    const csv = outcomes.get(t.dataset)?.csv;
    lines.push(
      `${c.green('Rolled back')}${whose} ${t.dataset} to ${t.plan.target === undefined ? 'no snapshot (emptied)' : `snapshot ${t.plan.target['snapshot-id']}`}: new snapshot ${c.bold(String(r.snapshotId))}, data files +${formatCount(r.addedFiles)} -${formatCount(r.deletedFiles)}, rows +${formatCount(r.addedRows)} -${formatCount(r.deletedRows)}`,
      `  discarded: ${r.discarded.length === 0 ? 'no snapshot' : r.discarded.map(snapshotWords).join(', ')}; the previous snapshot ${t.plan.currentSnapshotId} stays readable (query --as-of ${t.plan.currentSnapshotId})`,
      `  CSV: ${csv === undefined ? 'none in the lake' : `${formatCount(csv.rewritten)} partitions rewritten from the restored rows, ${formatCount(csv.emptied)} emptied`}`,
    );
  }
  lines.push(`undo: ${undo}`, '');
  io.stdout.write(lines.join('\n'));
}
