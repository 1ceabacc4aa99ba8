export { describeStagingRecovery, sweepDeadStaging } from './dead-staging';
export type { EngineEvent } from './history';
export type { startLocalDeployment } from './local-deployment';
export type { LocalWorkflowResult } from './run-workflow';
