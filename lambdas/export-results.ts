import * as os from 'node:os';
import { removeStaleSpill } from '../lib/export';
import { createExportResultsHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/**
 * The ExportResults task of the export workflow. An environment whose last export was killed
 * (out of memory, a timeout) may keep its /tmp: what that export spilled is removed first,
 * so it cannot eat this one's spill budget (one invocation per environment at a time).
 */
export const handler = lambdaHandler(createExportResultsHandler, {
  beforeInvoke: async () => {
    await removeStaleSpill(os.tmpdir(), { exclusive: true });
  },
});
