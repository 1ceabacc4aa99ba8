import { defineCommand, HELP_OPTION, parseOrHelp, UsageError, withVerb } from '../../../command-line/options';
import {
  type AwsClients,
  checkAwsForSecret,
  resolveWorkspace,
  serviceClientFromSecret,
} from '../../aws/secret-access';
import { CONFIG_FILE_OPTION, configOptions, resolveConfig, secretLocation } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { colors, renderTable } from '../../shared/terminal';

/**
 * `workspaces list` and `reports list`: what the stored login can see, read with the
 * secret's tokens (refreshed under the lease when due; a rotated refresh token is stored
 * back before use).
 */

const COMMON_OPTIONS = {
  ...configOptions(['secretFile', 'secretId', 'baseUrl', 'region', 'leaseStore']),
  ...CONFIG_FILE_OPTION,
  json: { type: 'boolean', help: 'print a JSON array instead of a table' },
  ...HELP_OPTION,
} as const;

export const WORKSPACES_COMMAND = withVerb(
  defineCommand({
    name: 'workspaces',
    usage: 'Usage: report-export workspaces list [options]',
    summary: 'Lists the workspaces of the stored login (id, name, default).',
    options: COMMON_OPTIONS,
    examples: [
      'report-export workspaces list',
      'report-export workspaces list --secret-file ./prod.json --json',
    ],
  }),
  'list',
);

export const REPORTS_COMMAND = withVerb(
  defineCommand({
    name: 'reports',
    usage: 'Usage: report-export reports list [options]',
    summary: 'Lists the reports of a workspace (id, name); ids and names both work for run --report.',
    options: { ...configOptions(['workspace']), ...COMMON_OPTIONS },
    examples: ['report-export reports list', 'report-export reports list --workspace <id> --json'],
  }),
  'list',
);

/** Takes `list` off argv (a help flag in its place stays); anything else is a usage error naming the command. */
function listArgs(command: string, argv: readonly string[]): readonly string[] {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h') return [sub];
  if (sub !== 'list') {
    throw new UsageError(
      sub === undefined
        ? `${command} needs a subcommand: ${command} list`
        : `unknown subcommand '${command} ${sub}' (try: ${command} list)`,
    );
  }
  return rest;
}

export async function workspacesCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: AwsClients = {},
): Promise<number> {
  const v = parseOrHelp(WORKSPACES_COMMAND, listArgs('workspaces', argv), io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  const location = secretLocation(config, io.cwd);
  const aws = await checkAwsForSecret('workspaces', 'read', config, location, deps, io.env);
  const { client } = await serviceClientFromSecret(config, io, aws);
  const rows: { id: string; name: string; default: boolean }[] = [];
  for await (const w of client.reporting.listWorkspaces())
    rows.push({ id: w.id, name: w.name, default: w.default });
  if (v.json) io.stdout.write(`${JSON.stringify(rows)}\n`);
  else {
    const table = rows.map((r) => ({ ...r, default: r.default ? 'yes' : '' }));
    io.stdout.write(
      renderTable(table, ['id', 'name', 'default'], { header: colors(io.stdout, io.env).bold }),
    );
  }
  return 0;
}

export async function reportsCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: AwsClients = {},
): Promise<number> {
  const v = parseOrHelp(REPORTS_COMMAND, listArgs('reports', argv), io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  const location = secretLocation(config, io.cwd);
  const aws = await checkAwsForSecret('reports', 'read', config, location, deps, io.env);
  const { client } = await serviceClientFromSecret(config, io, aws);
  const workspaceId = await resolveWorkspace(config, client);
  const rows: { id: string; name: string }[] = [];
  for await (const r of client.reporting.listReports({ workspaceId })) rows.push({ id: r.id, name: r.name });
  if (v.json) io.stdout.write(`${JSON.stringify(rows)}\n`);
  else {
    io.stderr.write(`workspace ${workspaceId}\n`);
    io.stdout.write(renderTable(rows, ['id', 'name'], { header: colors(io.stdout, io.env).bold }));
  }
  return 0;
}
