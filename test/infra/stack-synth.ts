import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkFeatureFlags } from '../../lib/infra/cdk-context';
import { ReportExportStack } from '../../lib/infra/report-export-stack';
import type { ReportExportConfig } from '../../lib/infra/stack-config';

/** The smallest valid configuration; tests spread their settings over it. */
export const BASE_CONFIG: ReportExportConfig = {
  workspaceId: 'ws',
  reports: [{ id: 'rep-1', name: 'Call list by user' }],
  timeZone: 'Europe/London',
  dataStartDate: '2025-01-01',
};

/** The stack's template for a configuration, without bundling the functions (seconds, not minutes). */
export function synthStack(config: Partial<ReportExportConfig> = {}): Template {
  const app = new App({ context: { ...cdkFeatureFlags(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new ReportExportStack(app, 'ReportExport', { config: { ...BASE_CONFIG, ...config } });
  return Template.fromStack(stack);
}
