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

/** A state graph of a definition: its top level, a Map's `ItemProcessor`, a Parallel state's branch. */
export interface StateGraph<S> {
  readonly States: Record<string, S>;
}

/**
 * Every state of a definition by name, the inner ones too: each Map's `ItemProcessor` and
 * each Parallel state's `Branches`, at any depth (state names are unique in a state machine).
 */
export function allStates<S extends { ItemProcessor?: StateGraph<S>; Branches?: readonly StateGraph<S>[] }>(
  graph: StateGraph<S>,
): Record<string, S> {
  const out: Record<string, S> = {};
  const collect = (g: StateGraph<S>) => {
    for (const [name, state] of Object.entries(g.States)) {
      if (name in out) throw new Error(`state ${name} appears twice in the definition`);
      out[name] = state;
      if (state.ItemProcessor !== undefined) collect(state.ItemProcessor);
      for (const branch of state.Branches ?? []) collect(branch);
    }
  };
  collect(graph);
  return out;
}

/**
 * The construct ids of the workflow's functions (their logical ids start with `<id>Function`):
 * one per Lambda task (SyncDirectories, the contacts branch's, beside lib/workflow/aws-calls.ts's
 * WORKFLOW_FUNCTIONS) and the committer (`WorkflowCommit`: the Commit and PrepareTables tasks').
 */
export const WORKFLOW_FUNCTION_IDS = [
  'Plan',
  'RequestReport',
  'CheckStatus',
  'ExportResults',
  'SyncDirectories',
  'Finalize',
  'WorkflowCommit',
] as const;

/** The construct id of a function's logical id (`SyncDirectoriesFunction87188BBA` -> `SyncDirectories`). */
export function functionConstructId(logicalId: string): string {
  return logicalId.replace(/Function[0-9A-F]{8}$/, '');
}
