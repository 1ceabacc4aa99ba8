import { defineCommand, withVerb } from '../../../command-line';
import { STORED_LOGIN_OPTIONS } from '../../aws/stored-login-options';

/** `workspaces list`: the workspaces the stored login can see. */
export const WORKSPACES_COMMAND = withVerb(
  defineCommand({
    name: 'workspaces',
    usage: 'Usage: report-export workspaces list [options]',
    summary: 'Lists the workspaces of the stored login (id, name, default).',
    options: STORED_LOGIN_OPTIONS,
    examples: [
      'report-export workspaces list',
      'report-export workspaces list --secret-file ./prod.json --json',
    ],
  }),
  'list',
);
