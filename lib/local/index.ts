export { describeStagingRecovery, sweepDeadStaging } from './dead-staging';
export type { EngineEvent } from './history';
export type { startLocalDeployment } from './local-deployment';
export {
  currentProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processAlive,
  processGone,
  processStartedAtMs,
} from './process-alive';
export type { LocalWorkflowResult } from './run-workflow';
