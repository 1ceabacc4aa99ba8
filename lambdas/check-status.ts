import { createCheckStatusHandler } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/** The CheckStatus task of the export workflow. */
export const handler = lambdaHandler(createCheckStatusHandler);
