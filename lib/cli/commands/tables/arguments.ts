import { parseCommandLine, renderHelp, UsageError } from '../../../command-line';
import type { IOStreams } from '../../shared/io-streams';
import { CONTACT_TABLES, LAKE_DATASETS, type LakeTableName } from '../../shared/lake-tables';
import { splitPositionals } from '../../shared/positionals';
import { DEFAULT_TABLE_CATALOG, type TABLES_ROLLBACK_COMMAND, type TABLES_SNAPSHOTS_COMMAND } from './spec';

/**
 * The lake's tables in the two groups that commit apart: the reports' (a run commits calls
 * and summaries) and the directories' (a sync commits contacts and contact_phones). A
 * rollback moves one group: the one its snapshot id belongs to.
 */
export const TABLE_GROUPS: readonly (readonly LakeTableName[])[] = [LAKE_DATASETS, CONTACT_TABLES];

/** Every table of the lake, the report tables first. */
export const LAKE_TABLES: readonly LakeTableName[] = TABLE_GROUPS.flat();

/** The tables that commit with `table` (its group, itself included). */
export function tableGroup(table: LakeTableName): readonly LakeTableName[] {
  return TABLE_GROUPS.find((g) => g.includes(table)) ?? [table];
}

/** The table a positional names; a usage error naming the tables otherwise. */
export function tableArgument(word: string, command: string): LakeTableName {
  const table = LAKE_TABLES.find((t) => t === word);
  if (table === undefined) {
    throw new UsageError(`${command}: unknown table '${word}'; tables: ${LAKE_TABLES.join(', ')}`);
  }
  return table;
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
