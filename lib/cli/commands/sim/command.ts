import { renderHelp } from '../../../command-line';
import { parseSimArgs } from '../../../simulator/cli-options';
import type { IOStreams } from '../../shared/io-streams';
import { SIM_CLI_COMMAND } from './spec';

/**
 * Starts the local service, prints its connection details on `io.stdout`, and serves until
 * the program's interrupt (`io.signal`: SIGINT or SIGTERM) or `signal` (tests); then closes
 * it and resolves 0.
 */
export async function simCommand(
  argv: readonly string[],
  io: IOStreams,
  signal?: AbortSignal,
): Promise<number> {
  const stopped = [io.signal, signal].filter((s) => s !== undefined);
  const cli = parseSimArgs(argv);
  if (cli.help) {
    io.stdout.write(renderHelp(SIM_CLI_COMMAND));
    return 0;
  }
  const { startSimulator } = await import('../../../simulator');
  const { connectionDetails, formatDetailsJson, formatDetailsText } = await import(
    '../../../simulator/connection-details'
  );
  const sim = await startSimulator(cli.options);
  const details = connectionDetails(sim);
  io.stdout.write(cli.json ? formatDetailsJson(details) : formatDetailsText(details));
  const until = AbortSignal.any(stopped);
  if (!until.aborted)
    await new Promise((resolve) => until.addEventListener('abort', resolve, { once: true }));
  await sim.close();
  return 0;
}
