import type { ServiceClient } from '../../api';
import { HELP_OPTION } from '../../command-line/options';
import { CONFIG_FILE_OPTION, configOptions, type ResolvedConfig, secretLocation } from '../shared/config';
import type { IOStreams } from '../shared/io-streams';
import { type AwsClients, checkAwsForSecret, serviceClientFromSecret } from './secret-access';

/**
 * The options of a command that reads the service with the stored login (`workspaces
 * list`, `reports list`): where the secret is, which service, and `--json`.
 */
export const STORED_LOGIN_OPTIONS = {
  ...configOptions(['secretFile', 'secretId', 'baseUrl', 'region', 'leaseStore']),
  ...CONFIG_FILE_OPTION,
  json: { type: 'boolean', help: 'print a JSON array instead of a table' },
  ...HELP_OPTION,
} as const;

/**
 * A client of the service on the stored login, for `command`: what AWS the secret needs is
 * checked first (exit 2 naming it); tokens are refreshed under the secret's lease when due,
 * and a rotated refresh token is stored back before use.
 */
export async function storedLoginClient(
  command: string,
  config: ResolvedConfig,
  io: IOStreams,
  deps: AwsClients,
): Promise<ServiceClient> {
  const location = secretLocation(config, io.cwd);
  const aws = await checkAwsForSecret(command, 'read', config, location, deps, io.env);
  return (await serviceClientFromSecret(config, io, aws)).client;
}
