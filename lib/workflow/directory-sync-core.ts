import { commitStagedDirectorySyncs, prepareContactTables, syncDirectories } from '../export';
import type { CommitStagedDirectorySyncs, SyncDirectories } from './directory-sync-types';
import type { PrepareContactTables } from './prepare-tables';

/**
 * The export core's contacts functions the handlers wire (lib/export: syncDirectories,
 * commitStagedDirectorySyncs, prepareContactTables); the tasks take them as ports.
 */
export interface ContactsCore {
  syncDirectories: SyncDirectories;
  commitStagedDirectorySyncs: CommitStagedDirectorySyncs;
  prepareContactTables: PrepareContactTables;
}

export const CONTACTS_CORE: ContactsCore = {
  syncDirectories,
  commitStagedDirectorySyncs,
  prepareContactTables,
};
