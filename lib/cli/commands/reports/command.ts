import { argsOfVerb, parseOrHelp } from '../../../command-line';
import { type AwsClients, resolveWorkspace } from '../../aws/secret-access';
import { storedLoginClient } from '../../aws/stored-login';
import { resolveConfig } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { colors, renderTable } from '../../shared/terminal';
import { REPORTS_COMMAND } from './spec';

export async function reportsCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: AwsClients = {},
): Promise<number> {
  const v = parseOrHelp(REPORTS_COMMAND, argsOfVerb(REPORTS_COMMAND, argv), io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  const { client, explain } = await storedLoginClient('reports', config, io, deps);
  const rows: { id: string; name: string }[] = [];
  let workspaceId: string;
  try {
    workspaceId = await resolveWorkspace(config, client);
    for await (const r of client.reporting.listReports({ workspaceId }))
      rows.push({ id: r.id, name: r.name });
  } catch (error) {
    throw explain(error);
  }
  if (v.json) io.stdout.write(`${JSON.stringify(rows)}\n`);
  else {
    io.stderr.write(`workspace ${workspaceId}\n`);
    io.stdout.write(renderTable(rows, ['id', 'name'], { header: colors(io.stdout, io.env).bold }));
  }
  return 0;
}
