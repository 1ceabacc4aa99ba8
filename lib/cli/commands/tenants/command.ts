import type { IOStreams } from '../../shared/io-streams';
import { runSubcommand, type Subcommand } from '../../shared/subcommands';
import { TENANTS_LOGIN_COMMAND } from '../../shared/tenants-spec';
import { tenantsAdd, tenantsList, tenantsSet } from './edit';
import { tenantsRemove } from './remove';
import {
  TENANTS_ADD_COMMAND,
  TENANTS_COMMAND,
  TENANTS_LIST_COMMAND,
  TENANTS_REMOVE_COMMAND,
  TENANTS_SET_COMMAND,
  TENANTS_STATUS_COMMAND,
} from './spec';
import { tenantsStatus } from './status';

/**
 * `tenants`: runs its subcommands. `login` is the login command's flow (commands/login/
 * tenant-login.ts), which the program hands in: a command folder never imports another.
 */
export async function tenantsCommand(
  argv: readonly string[],
  io: IOStreams,
  login: Subcommand['run'],
): Promise<number> {
  const subcommands: readonly Subcommand[] = [
    { spec: TENANTS_ADD_COMMAND, run: tenantsAdd },
    { spec: TENANTS_SET_COMMAND, run: tenantsSet },
    { spec: TENANTS_LIST_COMMAND, run: tenantsList },
    { spec: TENANTS_LOGIN_COMMAND, run: login },
    { spec: TENANTS_REMOVE_COMMAND, run: tenantsRemove },
    { spec: TENANTS_STATUS_COMMAND, run: tenantsStatus },
  ];
  return runSubcommand(TENANTS_COMMAND, subcommands, argv, io);
}
