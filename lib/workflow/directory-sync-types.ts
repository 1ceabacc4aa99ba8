import type {
  commitStagedDirectorySyncs,
  DirectoriesSyncResult,
  DirectorySyncDeps,
  DirectorySyncOutcome,
  DirectorySyncSettings,
  StagedDirectorySyncRef,
  StagedSyncCommitResult,
  SyncError,
  syncDirectories,
} from '../export';

/*
 * The export core's directory sync as the workflow calls it (lib/export/contacts/sync.ts and
 * publish/commit-staged-syncs.ts): the ports the tasks take, so the handlers wire the core's
 * functions and the tests their own.
 */
export type {
  DirectoriesSyncResult,
  DirectorySyncDeps,
  DirectorySyncOutcome,
  DirectorySyncSettings,
  StagedDirectorySyncRef,
  SyncError,
};

/** The core's syncDirectories. */
export type SyncDirectories = typeof syncDirectories;

/** What the committer returns for the staged syncs it was given. */
export type StagedDirectorySyncsResult = StagedSyncCommitResult;

/** The core's commitStagedDirectorySyncs. */
export type CommitStagedDirectorySyncs = typeof commitStagedDirectorySyncs;
