import { createCommitHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/** The Commit task: the execution's staged runs, one snapshot per table, as the committer. */
export const handler = lambdaHandler(createCommitHandler);
