import { argsOfVerb, parseOrHelp } from '../../../command-line';
import type { AwsClients } from '../../aws/secret-access';
import { storedLoginClient } from '../../aws/stored-login';
import { resolveConfig } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { colors, renderTable } from '../../shared/terminal';
import { WORKSPACES_COMMAND } from './spec';

export async function workspacesCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: AwsClients = {},
): Promise<number> {
  const v = parseOrHelp(WORKSPACES_COMMAND, argsOfVerb(WORKSPACES_COMMAND, argv), io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  const { client, explain } = await storedLoginClient('workspaces', config, io, deps);
  const rows: { id: string; name: string; default: boolean }[] = [];
  try {
    for await (const w of client.reporting.listWorkspaces())
      rows.push({ id: w.id, name: w.name, default: w.default });
  } catch (error) {
    throw explain(error);
  }
  if (v.json) io.stdout.write(`${JSON.stringify(rows)}\n`);
  else {
    const table = rows.map((r) => ({ ...r, default: r.default ? 'yes' : '' }));
    io.stdout.write(
      renderTable(table, ['id', 'name', 'default'], { header: colors(io.stdout, io.env).bold }),
    );
  }
  return 0;
}
