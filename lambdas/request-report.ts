import { createRequestReportHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/** The RequestReport task of the export workflow. */
export const handler = lambdaHandler(createRequestReportHandler);
