#!/usr/bin/env node
import { DIRECTORY_COMMAND, directoryCommand } from '../lib/cli/directory-command';
import {
  LOCAL_EXPORT_COMMAND,
  LOCAL_EXPORT_USAGE,
  localExportCommand,
} from '../lib/cli/local-export-command';
import {
  type CommandSpec,
  describeFailure,
  exitCodeOf,
  renderCommandList,
  UsageError,
} from '../lib/cli/options';
import { QUERY_COMMAND, queryCommand } from '../lib/cli/query-command';
import { RUNS_COMMAND, runsCommand } from '../lib/cli/runs-command';
import { SIM_CLI_COMMAND, simCommand } from '../lib/cli/sim-command';

/** Every command: its spec (name, summary, options) and what runs it. */
const COMMANDS: readonly { spec: CommandSpec; run: (argv: readonly string[]) => Promise<number> }[] = [
  { spec: LOCAL_EXPORT_COMMAND, run: localExportCommand },
  { spec: QUERY_COMMAND, run: queryCommand },
  { spec: RUNS_COMMAND, run: runsCommand },
  { spec: SIM_CLI_COMMAND, run: (argv) => simCommand(argv) },
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
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('report-export', error));
    process.exit(exitCodeOf(error));
  },
);
