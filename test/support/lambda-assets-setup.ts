import { lambdaAssets } from '../../lib/local/lambda-assets';

/**
 * vitest globalSetup: builds the Lambda bundles (cdk synth's own bundling, cached under
 * node_modules/.cache) once before any test file runs, so no test spends its time on it.
 */
export default async function setup(): Promise<void> {
  await lambdaAssets(() =>
    process.stderr.write('building the Lambda bundles (cdk synth bundling) once for the tests\n'),
  );
}
