/** The engine's event log entries this module reads (aws-local-stepfunctions' EventLog). */
export interface EngineEvent {
  type: string;
  state?: { name: string; type: string };
  parentState?: { name: string; type: string };
  index?: number;
  Error?: string;
  Cause?: unknown;
}

/**
 * Events AWS Step Functions would record in the execution history for one engine event.
 * The engine logs state entry/exit, retries, catches and Map iterations; AWS adds, per
 * Task attempt, TaskScheduled + TaskStarted + TaskSucceeded|TaskFailed, and per Map
 * state MapStateStarted + MapStateSucceeded|Failed (a Parallel state the same: ParallelStateStarted
 * and so on; its branches record no events of their own). This mapping is what the README's
 * history arithmetic uses, and what `historyEvents` reports.
 */
export function awsHistoryEvents(event: EngineEvent): number {
  switch (event.type) {
    case 'ExecutionStarted':
    case 'ExecutionSucceeded':
    case 'ExecutionFailed':
    case 'ExecutionTerminated':
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed':
    case 'StateExited':
      return 1;
    case 'StateEntered':
      // Entered, then one attempt's Scheduled/Started/(Succeeded|Failed) for a Task, Started for a Map.
      if (event.state?.type === 'Task') return 4;
      if (event.state?.type === 'Map' || event.state?.type === 'Parallel') return 2;
      return 1;
    case 'StateRetried':
      // Each further attempt: Scheduled, Started, Failed|Succeeded.
      return 3;
    case 'StateFailed':
      // A Map (Parallel) state that fails records MapStateFailed; a Task's failure is in its attempt.
      return event.state?.type === 'Map' || event.state?.type === 'Parallel' ? 1 : 0;
    case 'StateCaught':
      return 0;
    default:
      return 0;
  }
}
