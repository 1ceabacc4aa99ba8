import { createSyncDirectoriesHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/**
 * SyncDirectories, the contacts branch: the tenant's contact directories read whole and
 * versioned in its session, each changed directory's files and staged sync left for Commit.
 */
export const handler = lambdaHandler(createSyncDirectoriesHandler);
