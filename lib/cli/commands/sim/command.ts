import { renderHelp } from '../../../command-line';
import { parseSimArgs } from '../../../simulator/cli-options';
import type { IOStreams } from '../../shared/io-streams';
import { SIM_CLI_COMMAND } from './spec';

/**
 * Starts the local service, prints its connection details on `io.stdout`, and serves until
 * SIGINT or SIGTERM; then closes it and resolves 0. `signal` stops it too (tests).
 */
export async function simCommand(
  argv: readonly string[],
  io: IOStreams,
  signal?: AbortSignal,
): Promise<number> {
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
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    // The signals are the process's, whoever's streams the command writes to.
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  await sim.close();
  return 0;
}
