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
import { ServedServices } from './served-service';
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

/** What runs each subcommand of `directory` (their specs, and the group's: spec.ts), serving through `services`. */
function subcommands(services: ServedServices): Subcommand[] {
  const serving =
    (run: (argv: readonly string[], io: IOStreams, services: ServedServices) => Promise<number>) =>
    (argv: readonly string[], io: IOStreams) =>
      run(argv, io, services);
  return [
    { spec: DIRECTORY_SEARCH_COMMAND, run: serving(directorySearch) },
    { spec: DIRECTORY_GET_COMMAND, run: serving(directoryGet) },
    { spec: DIRECTORY_GET_BY_CRM_COMMAND, run: serving(directoryGetByCrm) },
    { spec: DIRECTORY_CREATE_COMMAND, run: serving(directoryCreate) },
    { spec: DIRECTORY_REPLACE_COMMAND, run: serving(directoryReplace) },
    { spec: DIRECTORY_DELETE_COMMAND, run: serving(directoryDelete) },
    { spec: DIRECTORY_DELETE_BY_CRM_COMMAND, run: serving(directoryDeleteByCrm) },
    { spec: DIRECTORY_SYNC_COMMAND, run: serving(directorySync) },
  ];
}

/** `directory <subcommand>`; a local service it serves for itself stops when it ends. */
export async function directoryCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const services = new ServedServices();
  try {
    return await runSubcommand(DIRECTORY_COMMAND, subcommands(services), argv, io);
  } finally {
    for (const error of await services.close()) {
      io.stderr.write(
        `warning: the local service this command served did not stop cleanly: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
}
