export { cdkFeatureFlags } from './cdk-context';
export { TABLE_RETENTION } from './iceberg-tables';
export { ReportExportStack } from './report-export-stack';
export { configFromContext, type ReportExportConfig, STACK_DEFAULTS } from './stack-config';
export { DIGEST_FUNCTION_ID, STATE_NAMES, TASK_STATES } from './state-names';
export { PROJECT_ROOT } from './workflow-function';
