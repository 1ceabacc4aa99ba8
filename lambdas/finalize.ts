import { createFinalizeHandler } from '../lib/workflow';
import { lambdaHandler, lambdaMetrics } from './lambda-runtime';

/** The Finalize task: the run record and the run's metrics. */
export const handler = lambdaHandler((rt) => createFinalizeHandler(rt, lambdaMetrics));
