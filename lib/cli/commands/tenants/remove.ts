import { rm } from 'node:fs/promises';
import { DeleteSecretCommand } from '@aws-sdk/client-secrets-manager';
import { UsageError } from '../../../command-line';
import {
  openDeployment,
  type TenantsDependencies,
  type TenantsDeployment,
} from '../../aws/tenants-deployment';
import type { IOStreams } from '../../shared/io-streams';
import { promptLine } from '../../shared/prompt';
import { parseTenantsSubcommand } from '../../shared/tenant-check';
import { notRegistered } from './edit';
import { deleteSchedule, intradayScheduleName } from './schedules';
import { TENANTS_REMOVE_COMMAND } from './spec';
import { deleteTenantData, tenantKeys } from './tenant-data';

/** Days Secrets Manager keeps a removed tenant's secret before deleting it (restore-secret undoes it). */
export const SECRET_RECOVERY_DAYS = 30;

/** Deletes the tenant's secret: scheduled for deletion in a stack, the file locally. False when it had none. */
async function deleteSecret(d: TenantsDeployment, id: string): Promise<boolean> {
  const secret = d.secretOf(id);
  if (secret.kind === 'file') {
    const existed = await rm(secret.file).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    return existed;
  }
  if (d.kind !== 'aws') return false;
  try {
    await d.secretsManager.send(
      new DeleteSecretCommand({ SecretId: secret.secretId, RecoveryWindowInDays: SECRET_RECOVERY_DAYS }),
    );
    return true;
  } catch (error) {
    const { name, message } = error as { name?: string; message?: string };
    if (name === 'ResourceNotFoundException') return false;
    // Removed before (a remove that stopped half way, run again): the recovery window runs on.
    if (name === 'InvalidRequestException' && /scheduled for deletion/i.test(message ?? '')) return false;
    throw error;
  }
}

/** Asks before deleting data on a terminal; without one --yes is required. */
async function confirmDataDeletion(
  io: IOStreams,
  id: string,
  objects: number,
  where: string,
): Promise<boolean> {
  if (io.stdin.isTTY !== true) {
    throw new UsageError(
      `tenants remove ${id} --delete-data deletes ${objects} objects of ${where}: confirm with --yes (no terminal to ask on)`,
    );
  }
  const answer = await promptLine(
    io,
    `Delete tenant ${id}'s data (${objects} objects of ${where}, and its rows from the tables)? Type the tenant id to confirm: `,
  );
  return answer.trim() === id;
}

export async function tenantsRemove(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const parsed = parseTenantsSubcommand(TENANTS_REMOVE_COMMAND, argv, io, 'one');
  if (parsed === undefined) return 0;
  const { v } = parsed;
  const id = parsed.id as string;
  const d = await openDeployment(v, io, deps);
  // A tenant whose entry is gone (a remove that stopped half way) still has its schedule and
  // secret removed; an id that has no entry and nothing else is a mistyped one.
  const entry = await d.registry.get(id).catch(() => undefined);
  if (v['delete-data']) {
    const objects = (await tenantKeys(d, id)).deleted.length;
    if (!v.yes && !(await confirmDataDeletion(io, id, objects, d.lake.uri))) {
      io.stderr.write('Not confirmed: nothing removed\n');
      return 1;
    }
  }
  // The schedule first: no run starts for a tenant whose secret or entry is gone.
  const schedule =
    d.kind === 'aws'
      ? // Its refreshes' schedule too (absent for most tenants); both, whichever is there.
        (
          await Promise.all([
            deleteSchedule(d.scheduler, d.outputs.TenantScheduleGroup, intradayScheduleName(id)),
            deleteSchedule(d.scheduler, d.outputs.TenantScheduleGroup, id),
          ])
        ).includes(true)
      : false;
  const secret = await deleteSecret(d, id);
  const registered = await d.registry.remove(id);
  if (entry === undefined && !registered && !schedule && !secret && !v['delete-data'])
    throw notRegistered(id, d);
  const data = v['delete-data'] ? await deleteTenantData(d, id) : undefined;
  const secretName = d.secretOf(id);
  const secretWhere = secretName.kind === 'file' ? secretName.file : secretName.secretId;
  if (v.json) {
    io.stdout.write(
      `${JSON.stringify({
        tenant: id,
        registryEntry: registered,
        schedule,
        secret: secret
          ? { name: secretWhere, recoveryWindowDays: secretName.kind === 'file' ? 0 : SECRET_RECOVERY_DAYS }
          : null,
        data: data ?? null,
      })}\n`,
    );
    return 0;
  }
  io.stdout.write(`Removed tenant ${id} from the ${d.describe}\n`);
  io.stdout.write(`  registry entry ${registered ? 'removed' : 'was not there'}\n`);
  if (d.kind === 'aws') io.stdout.write(`  schedule ${schedule ? 'deleted' : 'was not there'}\n`);
  io.stdout.write(
    `  secret ${secretWhere} ${
      !secret
        ? 'was not there'
        : secretName.kind === 'file'
          ? 'deleted'
          : `scheduled for deletion in ${SECRET_RECOVERY_DAYS} days (aws secretsmanager restore-secret --secret-id ${secretWhere} undoes it)`
    }\n`,
  );
  io.stdout.write(
    data === undefined
      ? `  data kept in ${d.lake.uri} (tenant=${id}/); --delete-data deletes it\n`
      : `  data deleted: ${data.objects} objects, ${data.commits} table commits taking its partitions out (one snapshot per table); its ${data.keptTableFiles} table data files stay while earlier snapshots list them (query --as-of and tables rollback read them; orphan-file deletion removes them once those snapshots expire)\n`,
  );
  return 0;
}
