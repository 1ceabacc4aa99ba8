import { type CommandSpec, renderHelp, UsageError } from '../../command-line';
import type { IOStreams } from './io-streams';

/** A subcommand of a group (`directory search`, `tables rollback`): its spec and what runs it. */
export interface Subcommand {
  spec: CommandSpec;
  run: (argv: readonly string[], io: IOStreams) => Promise<number>;
}

/**
 * Runs the subcommand argv's first word names; the group's help without one (or with
 * `help`, `-h`, `--help`), and a usage error listing the subcommands for an unknown word.
 */
export async function runSubcommand(
  group: CommandSpec,
  subcommands: readonly Subcommand[],
  argv: readonly string[],
  io: IOStreams,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(renderHelp(group));
    return 0;
  }
  const entry = subcommands.find((s) => s.spec.name === sub);
  if (entry === undefined) {
    throw new UsageError(
      `unknown subcommand '${group.name} ${sub}'; subcommands: ${subcommands.map((s) => s.spec.name).join(', ')}`,
    );
  }
  return entry.run(rest, io);
}
