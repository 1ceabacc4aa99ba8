#!/usr/bin/env node
import { describeFailure, exitCodeOf, UsageError } from '../lib/cli/options';
import { parseSimArgs, SIM_USAGE } from '../lib/simulator/cli-options';
import { connectionDetails, formatDetailsJson, formatDetailsText } from '../lib/simulator/connection-details';
import { startSimulator } from '../lib/simulator/index';

async function main(): Promise<void> {
  const cli = parseSimArgs(process.argv.slice(2));
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
  process.stderr.write(describeFailure('sim', error));
  if (error instanceof UsageError) process.stderr.write(`\n${SIM_USAGE}`);
  process.exit(exitCodeOf(error));
});
