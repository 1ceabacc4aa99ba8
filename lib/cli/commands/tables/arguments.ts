import { parseCommandLine, renderHelp, UsageError } from '../../../command-line';
import { DATASETS, type Dataset } from '../../../export';
import type { IOStreams } from '../../shared/io-streams';
import { splitPositionals } from '../../shared/positionals';
import { DEFAULT_TABLE_CATALOG, type TABLES_ROLLBACK_COMMAND, type TABLES_SNAPSHOTS_COMMAND } from './spec';

/** The dataset a positional names; a usage error naming the tables otherwise. */
export function datasetArgument(word: string, command: string): Dataset {
  const datasets: readonly string[] = Object.values(DATASETS);
  if (!datasets.includes(word)) {
    throw new UsageError(`${command}: unknown table '${word}'; tables: ${datasets.join(', ')}`);
  }
  return word as Dataset;
}

/** Parsed options and positionals of a subcommand; undefined once --help is printed. */
export function parseSubcommand(
  spec: typeof TABLES_SNAPSHOTS_COMMAND | typeof TABLES_ROLLBACK_COMMAND,
  argv: readonly string[],
  io: IOStreams,
): { v: { dir: string; catalog: string; json: boolean }; args: string[] } | undefined {
  const { flags, positionals } = splitPositionals(spec, argv);
  const v = parseCommandLine(spec, flags);
  if (v.help) {
    io.stdout.write(renderHelp(spec));
    return undefined;
  }
  return { v, args: positionals };
}

/** `--dir <dir>` (and `--catalog <catalog>` when not the default) as a command line repeats them. */
export function lakeArguments(v: { dir: string; catalog: string }): string {
  return `--dir ${v.dir}${v.catalog === DEFAULT_TABLE_CATALOG ? '' : ` --catalog ${v.catalog}`}`;
}
