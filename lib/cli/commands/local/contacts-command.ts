import { parseOrHelp } from '../../../command-line';
import type { IOStreams } from '../../shared/io-streams';
import { runSubcommand, type Subcommand } from '../../shared/subcommands';
import { localExportCommand } from './command';
import { CONTACTS_COMMAND, CONTACTS_SYNC_COMMAND } from './spec';

/** `contacts sync`: the local export with the input `contacts: only` (its flags passed on). */
async function contactsSync(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(CONTACTS_SYNC_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const flags = [
    '--contacts',
    'only',
    '--out',
    v.out,
    ...(v.tenant === undefined ? [] : ['--tenant', v.tenant]),
    ...(v.force ? ['--force-replace'] : []),
    ...(v['secret-file'] === undefined ? [] : ['--secret-file', v['secret-file']]),
    ...(v.json ? ['--json'] : []),
  ];
  return localExportCommand(flags, io);
}

const SUBCOMMANDS: readonly Subcommand[] = [{ spec: CONTACTS_SYNC_COMMAND, run: contactsSync }];

export async function contactsCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  return runSubcommand(CONTACTS_COMMAND, SUBCOMMANDS, argv, io);
}
