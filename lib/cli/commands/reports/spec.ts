import { defineCommand, withVerb } from '../../../command-line';
import { STORED_LOGIN_OPTIONS } from '../../aws/stored-login-options';
import { configOptions } from '../../shared/config';

/** `reports list`: the reports of a workspace the stored login can see. */
export const REPORTS_COMMAND = withVerb(
  defineCommand({
    name: 'reports',
    usage: 'Usage: report-export reports list [options]',
    summary: 'Lists the reports of a workspace (id, name); ids and names both work for run --report.',
    options: { ...configOptions(['workspace']), ...STORED_LOGIN_OPTIONS },
    examples: ['report-export reports list', 'report-export reports list --workspace <id> --json'],
  }),
  'list',
);
