import { type CommandSpec, renderHelp, UsageError } from '../../../command-line';
import type { IOStreams } from '../../shared/io-streams';
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
const SUBCOMMANDS: readonly {
  spec: CommandSpec;
  run: (argv: readonly string[], io: IOStreams) => Promise<number>;
}[] = [
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
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(renderHelp(DIRECTORY_COMMAND));
    return 0;
  }
  const entry = SUBCOMMANDS.find((s) => s.spec.name === sub);
  if (entry === undefined) {
    throw new UsageError(
      `unknown subcommand 'directory ${sub}'; subcommands: ${SUBCOMMANDS.map((s) => s.spec.name).join(', ')}`,
    );
  }
  return entry.run(rest, io);
}
