import { createDigestHandler, digestSettingsFromEnvironment } from '../lib/workflow';
import { lambdaHandler } from './lambda-runtime';

/** The night's digest: once a night from its schedule, one notice to the alarm topic. */
export const handler = lambdaHandler((rt) =>
  createDigestHandler(rt, digestSettingsFromEnvironment(process.env)),
);
