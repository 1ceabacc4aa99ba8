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

/** The smallest valid multi-tenant configuration: the tenants' settings are in the registry. */
export const MULTI_TENANT_CONFIG: ReportExportConfig = { tenancy: 'multi', dataStartDate: '2025-01-01' };

/**
 * The stack's template for a configuration (spread over `base`), without bundling the
 * functions (seconds, not minutes).
 */
export function synthStack(
  config: Partial<ReportExportConfig> = {},
  base: ReportExportConfig = BASE_CONFIG,
): Template {
  const app = new App({ context: { ...cdkFeatureFlags(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new ReportExportStack(app, 'ReportExport', { config: { ...base, ...config } });
  return Template.fromStack(stack);
}
