import { LoginRequiredError, PollBudgetExhaustedError } from '../api';
import { BY_CAUSE, SOURCE_ERROR_CODES, type TaskErrorCode } from './error-table';
import {
  ContinuationStoppedError,
  DeadlineError,
  DirectorySyncIncompleteError,
  DirectorySyncReadError,
  ExportFailedError,
  InvalidConfigError,
  InvalidInputError,
  LeaseBusyError,
  loginRequired,
  ReportRunFailedError,
  RequestRejectedError,
  RowLimitError,
  ServiceUnavailableError,
  SpillBudgetExceededError,
  StagedRunInvalidError,
  StoreFailedError,
  TableNotPreparedError,
  TenantConfigError,
  TenantDisabledError,
  WORKFLOW_ERROR_CODES as W,
  WorkflowError,
} from './errors';

/** What a task throws to the state machine: a workflow error, or one of the client's it passes on. */
type TaskError = WorkflowError | LoginRequiredError | PollBudgetExhaustedError;

type Options = { cause?: unknown };
const MAKE: Record<
  Exclude<TaskErrorCode, 'API_POLL_BUDGET_EXHAUSTED'>,
  (m: string, o: Options) => TaskError
> = {
  [W.invalidInput]: (m) => new InvalidInputError(m),
  [W.invalidConfig]: (m) => new InvalidConfigError(m),
  [W.serviceUnavailable]: (m, o) => new ServiceUnavailableError(m, o),
  [W.reportFailed]: (m) => new ReportRunFailedError(m),
  [W.rowLimit]: (m) => new RowLimitError(m),
  [W.leaseBusy]: (m) => new LeaseBusyError(m),
  [W.deadline]: (m, o) => new DeadlineError(m, o),
  [W.exportFailed]: (m, o) => new ExportFailedError(m, o),
  [W.storeFailed]: (m, o) => new StoreFailedError(m, o),
  [W.requestRejected]: (m, o) => new RequestRejectedError(m, o),
  [W.spillBudgetExceeded]: (m, o) => new SpillBudgetExceededError(m, o),
  [W.continuationStopped]: (m) => new ContinuationStoppedError(m),
  [W.tenantConfigInvalid]: (m) => new TenantConfigError(m),
  [W.tenantDisabled]: (m) => new TenantDisabledError(m),
  [W.stagedRunInvalid]: (m) => new StagedRunInvalidError(m),
  [W.tableNotPrepared]: (m, o) => new TableNotPreparedError(m, o),
  [W.directoryRead]: (m, o) => new DirectorySyncReadError(m, o),
  [W.directoryListingIncomplete]: (m) => new DirectorySyncIncompleteError(m),
  OAUTH_INVALID_GRANT: (m, o) => loginRequired(m, o.cause),
};

const STORE_ERROR_NAMES = new Set(['ObjectStoreError', 'SecretStoreError', 'LeaseStoreError']);

/**
 * Maps any error of a task onto the names the state machine knows, by the table in
 * error-table.ts. The message says what failed, never a token or a row.
 */
export function toWorkflowError(error: unknown, what: string): TaskError {
  if (
    error instanceof WorkflowError ||
    error instanceof LoginRequiredError ||
    error instanceof PollBudgetExhaustedError
  ) {
    return error;
  }
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  const target = (SOURCE_ERROR_CODES as Record<string, TaskErrorCode | typeof BY_CAUSE>)[code];
  if (target === BY_CAUSE) {
    const inner = toWorkflowError((error as { cause?: unknown }).cause, what);
    return inner instanceof ExportFailedError
      ? new ExportFailedError(`${what}: ${message}`, { cause: error })
      : inner;
  }
  if (target === W.deadline) {
    return new DeadlineError(`${what} stopped before the task deadline and published nothing`, {
      cause: error,
    });
  }
  if (target === 'OAUTH_INVALID_GRANT' && code !== target) {
    return MAKE[target](
      `${what}: the service refused a freshly refreshed access token, or the login holds no refresh token; log in again`,
      { cause: error },
    );
  }
  if (target !== undefined && target !== 'API_POLL_BUDGET_EXHAUSTED') {
    return MAKE[target](`${what}: ${message}`, { cause: error });
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && STORE_ERROR_NAMES.has(name)) {
    return new StoreFailedError(`${what}: ${message}`, { cause: error });
  }
  return new ExportFailedError(`${what}: ${message}`, { cause: error });
}
