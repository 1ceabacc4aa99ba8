import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type CommandSpec,
  describeFailure,
  exitCodeOf,
  renderCommandList,
  renderHelp,
  UsageError,
} from '../command-line';
import { BACKFILL_COMMAND } from './commands/backfill/spec';
import { CONFIG_COMMAND } from './commands/config/spec';
import { DIRECTORY_COMMAND } from './commands/directory/spec';
import { DOCTOR_COMMAND } from './commands/doctor/spec';
import { CONTACTS_COMMAND, LOCAL_EXPORT_COMMAND, LOCAL_EXPORT_USAGE } from './commands/local/spec';
import { LOGIN_COMMAND } from './commands/login/spec';
import { QUERY_COMMAND } from './commands/query/spec';
import { REPORTS_COMMAND } from './commands/reports/spec';
import { RUN_COMMAND } from './commands/run/spec';
import { RUNS_COMMAND } from './commands/runs/spec';
import { SIM_CLI_COMMAND } from './commands/sim/spec';
import { SFN_START_COMMAND } from './commands/start/spec';
import { STATUS_COMMAND } from './commands/status/spec';
import { TABLES_COMMAND } from './commands/tables/spec';
import { TENANTS_COMMAND } from './commands/tenants/spec';
import { WORKFLOW_COMMAND } from './commands/workflow/spec';
import { WORKSPACES_COMMAND } from './commands/workspaces/spec';
import { COMPLETION_SHELLS, completionScript } from './completion';
import { exitAfterOutput } from './shared/exit-after-output';
import { type IOStreams, processStreams } from './shared/io-streams';

/** The program's name, as installed (`package.json` `bin`). */
export const PROGRAM = 'report-export';

/**
 * A command: its spec (name, summary, options; `spec.ts`, light) and what runs it. The
 * command's code (`command.ts`, with the AWS SDK, DuckDB, the workflow... it needs) is
 * imported only when it runs: `--help`, `--version`, `help` and `completion` load none.
 */
interface Command {
  spec: CommandSpec;
  run: (argv: readonly string[], io: IOStreams) => Promise<number>;
}

/** Every command, in the order the help lists them. */
const COMMANDS: readonly Command[] = [
  {
    spec: LOCAL_EXPORT_COMMAND,
    run: async (argv, io) => (await import('./commands/local/command')).localExportCommand(argv, io),
  },
  {
    spec: QUERY_COMMAND,
    run: async (argv, io) => (await import('./commands/query/command')).queryCommand(argv, io),
  },
  {
    spec: RUNS_COMMAND,
    run: async (argv, io) => (await import('./commands/runs/command')).runsCommand(argv, io),
  },
  {
    spec: STATUS_COMMAND,
    run: async (argv, io) => (await import('./commands/status/command')).statusCommand(argv, io),
  },
  {
    spec: TABLES_COMMAND,
    run: async (argv, io) => (await import('./commands/tables/command')).tablesCommand(argv, io),
  },
  {
    spec: TENANTS_COMMAND,
    run: async (argv, io) =>
      (await import('./commands/tenants/command')).tenantsCommand(argv, io, async (a, i) =>
        (await import('./commands/login/tenant-login')).tenantsLogin(a, i),
      ),
  },
  {
    spec: SIM_CLI_COMMAND,
    run: async (argv, io) => (await import('./commands/sim/command')).simCommand(argv, io),
  },
  {
    spec: WORKFLOW_COMMAND,
    run: async (argv, io) => (await import('./commands/workflow/command')).workflowCommand(argv, io),
  },
  {
    spec: LOGIN_COMMAND,
    run: async (argv, io) => (await import('./commands/login/command')).loginCommand(argv, io),
  },
  {
    spec: WORKSPACES_COMMAND,
    run: async (argv, io) => (await import('./commands/workspaces/command')).workspacesCommand(argv, io),
  },
  {
    spec: REPORTS_COMMAND,
    run: async (argv, io) => (await import('./commands/reports/command')).reportsCommand(argv, io),
  },
  {
    spec: RUN_COMMAND,
    run: async (argv, io) => (await import('./commands/run/command')).runCommand(argv, io),
  },
  {
    spec: SFN_START_COMMAND,
    run: async (argv, io) => (await import('./commands/start/command')).sfnStartCommand(argv, io),
  },
  {
    spec: BACKFILL_COMMAND,
    run: async (argv, io) => (await import('./commands/backfill/command')).backfillCommand(argv, io),
  },
  {
    spec: CONFIG_COMMAND,
    run: async (argv, io) => (await import('./commands/config/command')).configCommand(argv, io),
  },
  {
    spec: DOCTOR_COMMAND,
    run: async (argv, io) => (await import('./commands/doctor/command')).doctorCommand(argv, io),
  },
  {
    spec: DIRECTORY_COMMAND,
    run: async (argv, io) => (await import('./commands/directory/command')).directoryCommand(argv, io),
  },
  {
    spec: CONTACTS_COMMAND,
    run: async (argv, io) => (await import('./commands/local/contacts-command')).contactsCommand(argv, io),
  },
];

/** Commands of the program itself, listed after the others, with their usage. */
const PROGRAM_COMMANDS = [
  {
    name: 'help',
    summary: 'Shows the help of a command: report-export help <command> [<subcommand>].',
    usage:
      'Usage: report-export help <command> [<subcommand>]     (the same as <command> [<subcommand>] --help)',
  },
  {
    name: 'completion',
    summary: `Prints a shell completion script: report-export completion ${COMPLETION_SHELLS.join('|')}.`,
    usage: `Usage: report-export completion ${COMPLETION_SHELLS.join('|')}

  bash: source <(report-export completion bash)     (in ~/.bashrc)
  zsh:  source <(report-export completion zsh)      (in ~/.zshrc)
  fish: report-export completion fish | source      (in ~/.config/fish/config.fish)`,
  },
] as const;

/**
 * The spec whose help `args` ask for (`-h` or `--help` before any `--`): the subcommand's
 * when the first word names one (`directory sync --help`), else the command's; undefined
 * when no help is asked for.
 */
function helpAsked(spec: CommandSpec, args: readonly string[]): CommandSpec | undefined {
  if (!asksForHelp(args)) return undefined;
  return spec.subcommands?.find((s) => s.name === args[0]) ?? spec;
}

/** `-h` or `--help` among the words before any `--`. */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((w) => w === '--help' || w === '-h');
}

/** `help <command> [<subcommand>]`: the help of a command, a subcommand, or the program's own. */
function helpOf(words: readonly string[]): string {
  const [name, subName, ...extra] = words;
  const own = PROGRAM_COMMANDS.find((c) => c.name === name);
  if (own !== undefined && subName === undefined) return `${own.usage}\n\n${own.summary}\n`;
  const entry = COMMANDS.find((c) => c.spec.name === name);
  if (entry === undefined) throw new UsageError(`help: unknown command '${name}' (try ${PROGRAM} --help)`);
  if (subName === undefined) return renderHelp(entry.spec);
  const subcommands = entry.spec.subcommands ?? [];
  const sub = subcommands.find((s) => s.name === subName);
  if (sub === undefined || extra.length > 0) {
    throw new UsageError(
      subcommands.length === 0
        ? `help: ${name} has no subcommands, got '${words.slice(1).join(' ')}'`
        : `help: unknown subcommand '${words.slice(1).join(' ')}' of ${name}; subcommands: ${subcommands.map((s) => s.name).join(', ')}`,
    );
  }
  return renderHelp(sub);
}

const DEFAULT_COMMAND = 'local';

/** The package's version (`package.json` two folders up, from the sources and from the build). */
function programVersion(): string {
  const file = path.resolve(import.meta.dirname, '..', '..', 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

function topLevelHelp(): string {
  const width =
    Math.max(
      ...[...COMMANDS.map((c) => c.spec.name), ...PROGRAM_COMMANDS.map((c) => c.name)].map((n) => n.length),
    ) + 2;
  return [
    `Usage: ${PROGRAM} <command> [options]     (no command: ${DEFAULT_COMMAND}, the whole export on this machine)`,
    '',
    renderCommandList(COMMANDS.map((c) => c.spec)).trimEnd(),
    ...PROGRAM_COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    `Run '${PROGRAM} <command> --help' (or '${PROGRAM} help <command>') for a command's options and examples.`,
    `Options: --help, --version.`,
    '',
    LOCAL_EXPORT_USAGE,
  ].join('\n');
}

/**
 * The program: picks the command from argv (without node and script) and runs it; resolves
 * with the exit code. A leading option belongs to the default command (`npm start -- --from
 * ...`). Usage errors are thrown (UsageError, exit 2), as each command's are.
 */
export async function main(argv: readonly string[], io: IOStreams = processStreams()): Promise<number> {
  const out = io.stdout;
  const [command = DEFAULT_COMMAND, ...rest] = argv;
  if (command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
    out.write(topLevelHelp());
    return 0;
  }
  if (command === '--version' || command === '-V') {
    out.write(`${programVersion()}\n`);
    return 0;
  }
  if ((command === 'help' || command === 'completion') && asksForHelp(rest)) {
    out.write(helpOf([command]));
    return 0;
  }
  if (command === 'help') {
    out.write(helpOf(rest));
    return 0;
  }
  if (command === 'completion') {
    const shell = rest[0];
    if (rest.length !== 1 || !(COMPLETION_SHELLS as readonly string[]).includes(shell as string)) {
      throw new UsageError(`completion takes one shell: ${COMPLETION_SHELLS.join(', ')}`);
    }
    out.write(
      completionScript(
        shell as (typeof COMPLETION_SHELLS)[number],
        PROGRAM,
        COMMANDS.map((c) => c.spec),
        PROGRAM_COMMANDS,
        DEFAULT_COMMAND,
      ),
    );
    return 0;
  }
  const name = command.startsWith('-') ? DEFAULT_COMMAND : command;
  const entry = COMMANDS.find((c) => c.spec.name === name);
  if (entry === undefined) throw new UsageError(`unknown command '${command}' (try ${PROGRAM} --help)`);
  const args = command.startsWith('-') ? [command, ...rest] : rest;
  // Help is rendered from the spec: asking for it loads none of the command's code.
  const help = helpAsked(entry.spec, args);
  if (help !== undefined) {
    out.write(renderHelp(help));
    return 0;
  }
  return entry.run(args, io);
}

/**
 * Runs {@link main} as this process's program (the bins): the process's own streams, the
 * exit status once the output has left, a failure described on stderr as `<name>: ...`.
 */
export function runProgram(argv: readonly string[], name: string = PROGRAM): void {
  main(argv).then(
    (code) => exitAfterOutput(code),
    (error: unknown) => {
      process.stderr.write(describeFailure(name, error));
      exitAfterOutput(exitCodeOf(error));
    },
  );
}
