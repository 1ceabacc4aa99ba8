import { defineCommand } from '../../../command-line';
import { SIM_COMMAND } from '../../../simulator/cli-options';

/** `sim`: the local service, as `npm run sim` (bin/sim.ts) starts it; same options. */
export const SIM_CLI_COMMAND = defineCommand({
  ...SIM_COMMAND,
  usage: 'Usage: report-export sim [options]        (or: npm run sim -- [options])',
  examples: [
    'report-export sim --port 0 --json --auto-approve',
    'report-export sim --port 8080 --report-latency-ms 0 --data-dir .sim-data',
  ],
});
