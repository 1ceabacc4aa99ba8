import { UsageError } from '../../../command-line';
import type { TenantEntry } from '../../../workflow';
import {
  openDeployment,
  type TenantsDependencies,
  type TenantsDeployment,
} from '../../aws/tenants-deployment';
import type { IOStreams } from '../../shared/io-streams';
import { registeredEntry } from '../../shared/known-tenants';
import { parseTenantsSubcommand } from '../../shared/tenant-check';
import { colors, renderTable } from '../../shared/terminal';
import { checkedEntry, entryFlagGiven, entryMembers, missingForAdd } from './arguments';
import {
  deleteSchedule,
  intradayScheduleName,
  intradayScheduleRequest,
  putSchedule,
  scheduleRequest,
} from './schedules';
import { TENANTS_ADD_COMMAND, TENANTS_LIST_COMMAND, TENANTS_SET_COMMAND } from './spec';

/** In a stack, the tenant's schedule made to match its entry; locally nothing (no Scheduler). */
async function syncSchedule(d: TenantsDeployment, entry: TenantEntry): Promise<string | undefined> {
  if (d.kind !== 'aws') return undefined;
  const done = await putSchedule(d.scheduler, scheduleRequest(entry, d.outputs));
  const group = d.outputs.TenantScheduleGroup;
  const nightly = `${done} schedule ${group}/${entry.id} (${entry.enabled ? 'ENABLED' : 'DISABLED'}, ${String(entry.hour).padStart(2, '0')}:00 ${entry.timeZone})`;
  // Its refreshes: a second schedule, there exactly while the entry has them.
  const refresh = intradayScheduleRequest(entry, d.outputs);
  if (refresh === undefined) {
    const deleted = await deleteSchedule(d.scheduler, group, intradayScheduleName(entry.id));
    return deleted ? `${nightly}; deleted schedule ${group}/${intradayScheduleName(entry.id)}` : nightly;
  }
  const every = entry.intraday as NonNullable<TenantEntry['intraday']>;
  const refreshed = await putSchedule(d.scheduler, refresh);
  return `${nightly}; ${refreshed} schedule ${group}/${refresh.Name} (every ${every.everyMinutes} min, ${String(every.fromHour).padStart(2, '0')}:00-${String(every.toHour).padStart(2, '0')}:00)`;
}

function report(
  io: IOStreams,
  json: boolean,
  verb: string,
  d: TenantsDeployment,
  entry: TenantEntry,
  schedule?: string,
): void {
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...entry, schedule: schedule ?? null })}\n`);
    return;
  }
  io.stdout.write(`${verb} tenant ${entry.id} (${entry.name}) in the ${d.describe}\n`);
  if (schedule !== undefined) io.stdout.write(`  ${schedule}\n`);
}

export async function tenantsAdd(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_ADD_COMMAND, argv, io, 'one');
  if (parsed === undefined) return 0;
  const { v, id } = parsed;
  const missing = missingForAdd(v);
  if (missing.length > 0) throw new UsageError(`tenants add ${id} needs ${missing.join(', ')}`);
  // Checked whole before the deployment is even opened: nothing is written for a bad value.
  const entry = checkedEntry({ id, ...entryMembers(v), enabled: !v.disabled });
  const d = await openDeployment(v, io, deps);
  await d.registry.put(entry, { create: true }).catch((cause: unknown) => {
    throw alreadyThere(cause, entry.id);
  });
  let schedule: string | undefined;
  try {
    schedule = await syncSchedule(d, entry);
  } catch (error) {
    // No entry without its schedule: a tenant that never runs would look added.
    await d.registry.remove(entry.id).catch(() => {});
    throw error;
  }
  report(io, v.json, 'Added', d, entry, schedule);
  if (!v.json) {
    const where = d.kind === 'aws' ? ` --stack ${d.stack}` : '';
    io.stderr.write(`Next: report-export tenants login ${entry.id} --client-id <id>${where}\n`);
  }
  return 0;
}

/** The registry's refusal of an existing id, as a usage error saying what to run instead. */
function alreadyThere(cause: unknown, id: string): unknown {
  if ((cause as { name?: string }).name !== 'TenantConfigError') return cause;
  return new UsageError(`${(cause as Error).message}: change it with report-export tenants set ${id}`, {
    cause,
  });
}

export async function tenantsSet(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_SET_COMMAND, argv, io, 'one');
  if (parsed === undefined) return 0;
  const { v } = parsed;
  const id = parsed.id as string;
  if (v.enabled && v.disabled) throw new UsageError('give one of --enabled and --disabled');
  if (!entryFlagGiven(v) && !v.enabled && !v.disabled) {
    throw new UsageError(`tenants set ${id}: nothing to change (give --name, --hour, --disabled ...)`);
  }
  const d = await openDeployment(v, io, deps);
  const current = await registeredEntry(d.registry, id, d.describe, null);
  const changes = entryMembers(v, current);
  const entry = checkedEntry({
    ...current,
    ...changes,
    ...(v.enabled ? { enabled: true } : {}),
    ...(v.disabled ? { enabled: false } : {}),
  });
  await d.registry.put(entry);
  const schedule = await syncSchedule(d, entry);
  report(io, v.json, 'Changed', d, entry, schedule);
  return 0;
}

/** An id the registry does not have: a usage error listing how to see the ones it has. */
export function notRegistered(id: string, d: TenantsDeployment): UsageError {
  return new UsageError(`no tenant '${id}' in the ${d.describe} (report-export tenants list shows them)`);
}

export async function tenantsList(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_LIST_COMMAND, argv, io, 'none');
  if (parsed === undefined) return 0;
  const { v } = parsed;
  const d = await openDeployment(v, io, deps);
  const tenants = await d.registry.list({
    onInvalid: (id, error) => io.stderr.write(`warning: skipped tenant ${id}: ${error.message}\n`),
  });
  if (v.json) {
    io.stdout.write(`${JSON.stringify(tenants)}\n`);
    return 0;
  }
  if (tenants.length === 0) {
    io.stderr.write(`no tenants in the ${d.describe} (add one: report-export tenants add <id> ...)\n`);
    return 0;
  }
  const c = colors(io.stdout, io.env);
  io.stdout.write(
    renderTable(
      tenants.map((t) => ({
        id: t.id,
        name: t.name,
        region: t.region,
        zone: t.timeZone,
        hour: String(t.hour).padStart(2, '0'),
        'look-back': t.lookBackDays,
        workspace: t.workspaceId,
        reports: t.reports.map((r) => r.name).join(', '),
        country: t.country ?? 'auto',
        directories: t.directories === undefined ? 'all' : t.directories.join(', '),
        enabled: t.enabled ? 'yes' : 'no',
      })),
      [
        'id',
        'name',
        'region',
        'zone',
        'hour',
        { key: 'look-back', align: 'right' },
        'workspace',
        'reports',
        'country',
        'directories',
        { key: 'enabled', format: (s) => (s === 'yes' ? String(s) : c.yellow(String(s))) },
      ],
      { header: c.bold },
    ),
  );
  return 0;
}
