#!/usr/bin/env node
import { CliUsageError, parseSimArgs, SIM_USAGE } from '../lib/simulator/cli-options';
import { connectionDetails, formatDetailsJson, formatDetailsText } from '../lib/simulator/connection-details';
import { startSimulator } from '../lib/simulator/index';

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseSimArgs>;
  try {
    cli = parseSimArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`sim: ${error.message}\n\n${SIM_USAGE}`);
      process.exit(2);
    }
    throw error;
  }
  if (cli.help) {
    process.stdout.write(SIM_USAGE);
    return;
  }
  const sim = await startSimulator(cli.options);
  const details = connectionDetails(sim);
  process.stdout.write(cli.json ? formatDetailsJson(details) : formatDetailsText(details));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
