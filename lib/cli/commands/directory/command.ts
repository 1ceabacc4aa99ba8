import {
  type CommandSpec,
  defineCommand,
  HELP_OPTION,
  renderCommandList,
  renderHelp,
  UsageError,
} from '../../../command-line/options';
import type { IOStreams } from '../../shared/io-streams';
import {
  DIRECTORY_CREATE_COMMAND,
  DIRECTORY_DELETE_BY_CRM_COMMAND,
  DIRECTORY_DELETE_COMMAND,
  DIRECTORY_GET_BY_CRM_COMMAND,
  DIRECTORY_GET_COMMAND,
  DIRECTORY_REPLACE_COMMAND,
  DIRECTORY_SEARCH_COMMAND,
  directoryCreate,
  directoryDelete,
  directoryDeleteByCrm,
  directoryGet,
  directoryGetByCrm,
  directoryReplace,
  directorySearch,
} from './items';
import { DIRECTORY_SYNC_COMMAND, directorySync } from './sync-command';

/** `directory <subcommand>`: the contact directory endpoints, and `sync` from a CSV file. */

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

export const DIRECTORY_COMMAND = defineCommand({
  name: 'directory',
  usage: 'Usage: report-export directory <subcommand> [options]',
  summary: 'Contact directories: search, get, create, replace, delete items; sync from a CSV file.',
  description: `Every subcommand takes --directory (an id or a name) and uses the login's secret
(report-export login), or REPORT_EXPORT_ACCESS_TOKEN with --base-url. See
report-export directory <subcommand> --help.`,
  options: HELP_OPTION,
  examples: [
    'report-export directory search --directory "Company contacts" --text hart',
    'report-export directory sync --directory "Company contacts" --csv contacts.csv --dry-run',
  ],
  subcommands: SUBCOMMANDS.map((s) => s.spec),
  notes: renderCommandList(SUBCOMMANDS.map((s) => s.spec))
    .replace(/^Commands:/, 'Subcommands:')
    .trimEnd(),
});

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
