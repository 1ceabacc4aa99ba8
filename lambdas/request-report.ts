import { createRequestReportHandler } from '../lib/workflow/handlers';
import { lambdaHandler } from './lambda-runtime';

/** The RequestReport task of the export workflow. */
export const handler = lambdaHandler(createRequestReportHandler);
