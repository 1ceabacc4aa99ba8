#!/usr/bin/env node
import { BACKFILL_COMMAND, backfillCommand } from '../lib/cli/backfill-command';
import { CONFIG_COMMAND, configCommand } from '../lib/cli/config-command';
import { DIRECTORY_COMMAND, directoryCommand } from '../lib/cli/directory-command';
import { exitAfterOutput } from '../lib/cli/exit-after-output';
import {
  LOCAL_EXPORT_COMMAND,
  LOCAL_EXPORT_USAGE,
  localExportCommand,
} from '../lib/cli/local-export-command';
import { LOGIN_COMMAND, loginCommand } from '../lib/cli/login-command';
import {
  type CommandSpec,
  describeFailure,
  exitCodeOf,
  renderCommandList,
  UsageError,
} from '../lib/cli/options';
import { QUERY_COMMAND, queryCommand } from '../lib/cli/query-command';
import { RUN_COMMAND, runCommand } from '../lib/cli/run-command';
import { RUNS_COMMAND, runsCommand } from '../lib/cli/runs-command';
import {
  REPORTS_COMMAND,
  reportsCommand,
  WORKSPACES_COMMAND,
  workspacesCommand,
} from '../lib/cli/service-commands';
import { SIM_CLI_COMMAND, simCommand } from '../lib/cli/sim-command';
import { SFN_START_COMMAND, sfnStartCommand } from '../lib/cli/start-command';

/** Every command: its spec (name, summary, options) and what runs it. */
const COMMANDS: readonly { spec: CommandSpec; run: (argv: readonly string[]) => Promise<number> }[] = [
  { spec: LOCAL_EXPORT_COMMAND, run: localExportCommand },
  { spec: QUERY_COMMAND, run: queryCommand },
  { spec: RUNS_COMMAND, run: runsCommand },
  { spec: SIM_CLI_COMMAND, run: (argv) => simCommand(argv) },
  { spec: LOGIN_COMMAND, run: (argv) => loginCommand(argv) },
  { spec: WORKSPACES_COMMAND, run: (argv) => workspacesCommand(argv) },
  { spec: REPORTS_COMMAND, run: (argv) => reportsCommand(argv) },
  { spec: RUN_COMMAND, run: (argv) => runCommand(argv) },
  { spec: SFN_START_COMMAND, run: (argv) => sfnStartCommand(argv) },
  { spec: BACKFILL_COMMAND, run: (argv) => backfillCommand(argv) },
  { spec: CONFIG_COMMAND, run: configCommand },
  { spec: DIRECTORY_COMMAND, run: directoryCommand },
];
const DEFAULT_COMMAND = 'local';

const [command = DEFAULT_COMMAND, ...rest] = process.argv.slice(2);

async function main(): Promise<number> {
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${renderCommandList(COMMANDS.map((c) => c.spec))}\n${LOCAL_EXPORT_USAGE}`);
    return 0;
  }
  // A leading option belongs to the default command: `npm start -- --from ...`.
  const name = command.startsWith('-') ? DEFAULT_COMMAND : command;
  const entry = COMMANDS.find((c) => c.spec.name === name);
  if (entry === undefined) throw new UsageError(`unknown command '${command}' (try --help)`);
  return entry.run(command.startsWith('-') ? [command, ...rest] : rest);
}

main().then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('report-export', error));
    exitAfterOutput(exitCodeOf(error));
  },
);
