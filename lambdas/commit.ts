import { createCommitterHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/**
 * The committer: the PrepareTables task (its `prepare` action, before the jobs) and the
 * Commit task (the execution's staged runs, one snapshot per table), in the function's role.
 */
export const handler = lambdaHandler(createCommitterHandler);
