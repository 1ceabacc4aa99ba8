import type { IOStreams } from '../../shared/io-streams';
import { runSubcommand, type Subcommand } from '../../shared/subcommands';
import {
  directoryCreate,
  directoryDelete,
  directoryDeleteByCrm,
  directoryGet,
  directoryGetByCrm,
  directoryReplace,
  directorySearch,
} from './items';
import {
  DIRECTORY_COMMAND,
  DIRECTORY_CREATE_COMMAND,
  DIRECTORY_DELETE_BY_CRM_COMMAND,
  DIRECTORY_DELETE_COMMAND,
  DIRECTORY_GET_BY_CRM_COMMAND,
  DIRECTORY_GET_COMMAND,
  DIRECTORY_REPLACE_COMMAND,
  DIRECTORY_SEARCH_COMMAND,
  DIRECTORY_SYNC_COMMAND,
} from './spec';
import { directorySync } from './sync-command';

/** What runs each subcommand of `directory` (their specs, and the group's: spec.ts). */
const SUBCOMMANDS: readonly Subcommand[] = [
  { spec: DIRECTORY_SEARCH_COMMAND, run: directorySearch },
  { spec: DIRECTORY_GET_COMMAND, run: directoryGet },
  { spec: DIRECTORY_GET_BY_CRM_COMMAND, run: directoryGetByCrm },
  { spec: DIRECTORY_CREATE_COMMAND, run: directoryCreate },
  { spec: DIRECTORY_REPLACE_COMMAND, run: directoryReplace },
  { spec: DIRECTORY_DELETE_COMMAND, run: directoryDelete },
  { spec: DIRECTORY_DELETE_BY_CRM_COMMAND, run: directoryDeleteByCrm },
  { spec: DIRECTORY_SYNC_COMMAND, run: directorySync },
];

export async function directoryCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  return runSubcommand(DIRECTORY_COMMAND, SUBCOMMANDS, argv, io);
}
