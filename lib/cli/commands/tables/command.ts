import type { IOStreams } from '../../shared/io-streams';
import { runSubcommand, type Subcommand } from '../../shared/subcommands';
import { tablesRollback } from './rollback';
import { tablesSnapshots } from './snapshots';
import { TABLES_COMMAND, TABLES_ROLLBACK_COMMAND, TABLES_SNAPSHOTS_COMMAND } from './spec';

/** What runs each subcommand of `tables` (their specs, and the group's: spec.ts). */
const SUBCOMMANDS: readonly Subcommand[] = [
  { spec: TABLES_SNAPSHOTS_COMMAND, run: tablesSnapshots },
  { spec: TABLES_ROLLBACK_COMMAND, run: tablesRollback },
];

export async function tablesCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  return runSubcommand(TABLES_COMMAND, SUBCOMMANDS, argv, io);
}
