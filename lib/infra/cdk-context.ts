import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from './workflow-function';

/**
 * The feature flags `cdk synth` applies from cdk.json's context (everything there but the
 * deployment's own `reportExport`): apps built in-process (the local workflow, the IAM
 * evaluation, the template tests) pass them too, so they synthesize the template that deploys.
 */
export function cdkFeatureFlags(): Record<string, unknown> {
  const cdk = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const { reportExport: _, ...flags } = cdk.context ?? {};
  return flags;
}
