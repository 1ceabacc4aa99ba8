/**
 * Errors the workflow's handlers throw. Their `name`s are the contract with the state
 * machine: its Retry and Catch match on them (the Lambda runtime reports `error.name` as
 * the error type), so every name is a string literal that survives bundling and
 * minification. Which of them the state machine retries is decided in error-table.ts.
 *
 * `LoginRequiredError` (the refresh token is gone: log in again) and
 * `PollBudgetExhaustedError` are the client's classes (lib/api), thrown or named as they are.
 */

import { LoginRequiredError } from '../api';

/** The login is gone (no refresh token, or the service refuses it): someone must log in again. */
export function loginRequired(message: string, cause?: unknown): LoginRequiredError {
  return new LoginRequiredError(undefined, 0, { message, ...(cause === undefined ? {} : { cause }) });
}

/** Stable codes; tests assert codes, not messages. */
export const WORKFLOW_ERROR_CODES = {
  invalidInput: 'WORKFLOW_INVALID_INPUT',
  invalidConfig: 'WORKFLOW_INVALID_CONFIG',
  serviceUnavailable: 'WORKFLOW_SERVICE_UNAVAILABLE',
  reportFailed: 'WORKFLOW_REPORT_FAILED',
  rowLimit: 'WORKFLOW_ROW_LIMIT',
  leaseBusy: 'WORKFLOW_LEASE_BUSY',
  deadline: 'WORKFLOW_DEADLINE',
  exportFailed: 'WORKFLOW_EXPORT_FAILED',
  storeFailed: 'WORKFLOW_STORE_FAILED',
  requestRejected: 'WORKFLOW_REQUEST_REJECTED',
  spillBudgetExceeded: 'WORKFLOW_SPILL_BUDGET_EXCEEDED',
  continuationStopped: 'WORKFLOW_CONTINUATION_STOPPED',
  tenantConfigInvalid: 'WORKFLOW_TENANT_CONFIG_INVALID',
  tenantDisabled: 'WORKFLOW_TENANT_DISABLED',
  stagedRunInvalid: 'WORKFLOW_STAGED_RUN_INVALID',
  tableNotPrepared: 'WORKFLOW_TABLE_NOT_PREPARED',
  directoryRead: 'WORKFLOW_DIRECTORY_READ',
  directoryListingIncomplete: 'WORKFLOW_DIRECTORY_LISTING_INCOMPLETE',
} as const;
export type WorkflowErrorCode = (typeof WORKFLOW_ERROR_CODES)[keyof typeof WORKFLOW_ERROR_CODES];

/** Base error of the workflow. Never carries a token, secret or row. */
export class WorkflowError extends Error {
  readonly code: WorkflowErrorCode;
  constructor(code: WorkflowErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WorkflowError';
    this.code = code;
  }
}

/** The execution input is invalid; the message names the member. Not retried. */
export class InvalidInputError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.invalidInput, message);
    this.name = 'InvalidInputError';
  }
}

/** A setting of the handler's environment is invalid; the message names it. Not retried. */
export class InvalidConfigError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.invalidConfig, message);
    this.name = 'InvalidConfigError';
  }
}

/** The service or the network failed in a way that may pass: retried with backoff. */
export class ServiceUnavailableError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.serviceUnavailable, message, options);
    this.name = 'ServiceUnavailableError';
  }
}

/** The service ended the report run in a failed state. Not retried. */
export class ReportRunFailedError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.reportFailed, message);
    this.name = 'ReportRunFailedError';
  }
}

/** A window at the minimum split size still reaches the service's row limit. Not retried. */
export class RowLimitError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.rowLimit, message);
    this.name = 'RowLimitError';
  }
}

/** Another execution holds the lease (token refresh, or publishing the same partitions): retried. */
export class LeaseBusyError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.leaseBusy, message);
    this.name = 'LeaseBusyError';
  }
}

/** The export stopped before the task's deadline and published nothing: retried (bounded). */
export class DeadlineError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.deadline, message, options);
    this.name = 'DeadlineError';
  }
}

/** The export core refused the result (verification, conversion). Not retried. */
export class ExportFailedError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.exportFailed, message, options);
    this.name = 'ExportFailedError';
  }
}

/** The object or secret store failed: retried. */
export class StoreFailedError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.storeFailed, message, options);
    this.name = 'StoreFailedError';
  }
}

/** The service refused a request for good (4xx other than 401, 408, 429). Not retried. */
export class RequestRejectedError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.requestRejected, message, options);
    this.name = 'RequestRejectedError';
  }
}

/** The export needed more local storage than the function has (its spill budget). Not retried. */
export class SpillBudgetExceededError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.spillBudgetExceeded, message, options);
    this.name = 'SpillBudgetExceededError';
  }
}

/**
 * The continuation of a long plan (an execution of the same state machine) was found
 * stopped: failed, aborted or timed out. Its days may not all be exported. Named by the
 * state machine (ContinuationStopped), never thrown by a handler. Not retried.
 */
export class ContinuationStoppedError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.continuationStopped, message);
    this.name = 'ContinuationStoppedError';
  }
}

/**
 * A tenant's registry entry is invalid (a member missing or out of range, an id that is not
 * its key): the message names the tenant, the member and the value. Not retried: someone
 * corrects the entry (report-export tenants set).
 */
export class TenantConfigError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.tenantConfigInvalid, message);
    this.name = 'TenantConfigError';
  }
}

/** The execution's tenant is disabled in the registry: nothing of it runs. Not retried. */
export class TenantDisabledError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.tenantDisabled, message);
    this.name = 'TenantDisabledError';
  }
}

/**
 * A staged run the committer refused (its files or its object disagree with what it claims):
 * the job's window was not published. Named in the job's result by Finalize, never thrown by
 * a handler: the Commit task sets the run aside and commits the others. Not retried.
 */
export class StagedRunInvalidError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.stagedRunInvalid, message);
    this.name = 'StagedRunInvalidError';
  }
}

/**
 * A job's table lacks what its export writes (missing, or a column absent): a tenant's export
 * writes no table metadata, and the committer's PrepareTables state had not made it ready.
 * The message names the table and the columns. Not retried: the same table is read again.
 */
export class TableNotPreparedError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.tableNotPrepared, message, options);
    this.name = 'TableNotPreparedError';
  }
}

/**
 * A contact directory (or the workspace's list of them) could not be read whole, after the
 * client's own retries: the SyncDirectories task is retried a couple of times (its Retry),
 * then its outcome names it and the directory keeps what it had. Named as the export core's
 * class (lib/export/contacts/errors.ts), whose failure it carries.
 */
export class DirectorySyncReadError extends WorkflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(WORKFLOW_ERROR_CODES.directoryRead, message, options);
    this.name = 'DirectoryReadError';
  }
}

/**
 * A directory's listing could not be shown complete however the search was split: named in
 * the directory's outcome (never taken as its content). Not retried: the same service answers
 * the same way.
 */
export class DirectorySyncIncompleteError extends WorkflowError {
  constructor(message: string) {
    super(WORKFLOW_ERROR_CODES.directoryListingIncomplete, message);
    this.name = 'DirectoryListingIncompleteError';
  }
}
