import { createExportResultsHandler } from '../lib/workflow/handlers';
import { lambdaHandler } from './lambda-runtime';

/** The ExportResults task of the export workflow. */
export const handler = lambdaHandler(createExportResultsHandler);
