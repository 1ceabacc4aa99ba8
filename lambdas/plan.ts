import { createPlanHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/** The Plan (validates the input, plans the jobs) task of the export workflow. */
export const handler = lambdaHandler(createPlanHandler);
