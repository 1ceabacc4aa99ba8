import { HELP_OPTION } from '../../command-line';
import { CONFIG_FILE_OPTION, configOptions } from '../shared/config';

/**
 * The options of a command that reads the service with the stored login (`workspaces
 * list`, `reports list`): where the secret is, which service, and `--json`. Apart from
 * stored-login.ts (which loads the client and the AWS SDK) so that the commands' specs stay
 * light for help and completion.
 */
export const STORED_LOGIN_OPTIONS = {
  ...configOptions(['secretFile', 'secretId', 'baseUrl', 'region', 'leaseStore']),
  ...CONFIG_FILE_OPTION,
  json: { type: 'boolean', help: 'print a JSON array instead of a table' },
  ...HELP_OPTION,
} as const;
