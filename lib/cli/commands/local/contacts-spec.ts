import { defineCommand, HELP_OPTION, renderCommandList } from '../../../command-line';
import { LOCAL_EXPORT_COMMAND } from './spec';

const LOCAL = LOCAL_EXPORT_COMMAND.options;

/** `contacts sync`: the contact directories alone, on the local deployment (`npm start --contacts only`). */
export const CONTACTS_SYNC_COMMAND = defineCommand({
  name: 'sync',
  usage: 'Usage: report-export contacts sync [--tenant <id>] [--force] [--out <dir>] [--json]',
  summary: "Syncs the tenants' contact directories into the lake now, without a report.",
  description: `Runs the workflow of the local deployment as npm start does, with the execution input
{"contacts": "only"}: each tenant's directories are read whole, versioned into the contacts
and contact_phones tables (a changed item closes its version and opens a new one, an item
gone gets a deletion version, an unchanged one nothing) and committed, one snapshot per
table; no report runs. A directory that cannot be read whole changes nothing; one that
shrank by more than the shrink guard's share is held unless --force. Prints, per tenant,
its directories, items, new versions, closed versions and deletions.
Against a deployment: report-export start --contacts only --stack <name> [--tenant <id>].`,
  options: {
    tenant: {
      ...LOCAL.tenant,
      help: 'sync only this tenant of the local service (london, new-york, sydney)',
    },
    force: {
      type: 'boolean',
      help: "replace a directory's history even when it shrank by more than the shrink guard's share",
    },
    out: LOCAL.out,
    'secret-file': LOCAL['secret-file'],
    json: LOCAL.json,
    ...HELP_OPTION,
  },
  examples: ['report-export contacts sync', 'report-export contacts sync --tenant london --force'],
  notes: `Exit status: 0 synced (a directory the shrink guard held is named in the output), 1 a
        tenant failed (the others are synced), 2 usage error.`,
});

const SUBCOMMANDS = [CONTACTS_SYNC_COMMAND];

/** `contacts`: the contact directories in the lake. */
export const CONTACTS_COMMAND = defineCommand({
  name: 'contacts',
  usage: 'Usage: report-export contacts <sync> [options]',
  summary: "Syncs the contact directories into the lake's contacts tables.",
  description: `Every run syncs the tenants' contact directories beside the reports (--contacts skip leaves
them); this command syncs them alone, now. Query them with report-export query: contacts,
contact_phones and the view calls_with_contacts.

${renderCommandList(SUBCOMMANDS).trimEnd()}`,
  options: { ...HELP_OPTION },
  examples: ['report-export contacts sync --tenant london', 'report-export help contacts sync'],
  subcommands: SUBCOMMANDS,
});
