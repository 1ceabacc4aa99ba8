import { API_ERROR_CODES } from '../api';
import { EXPORT_ERROR_CODES } from '../export';
import {
  DeadlineError,
  ExportFailedError,
  LoginRequiredError,
  ReportRunFailedError,
  RequestRejectedError,
  ServiceUnavailableError,
  StoreFailedError,
  WorkflowError,
} from './errors';

const TRANSIENT_API = new Set<string>([
  API_ERROR_CODES.connection,
  API_ERROR_CODES.timeout,
  API_ERROR_CODES.rateLimited,
  API_ERROR_CODES.server,
  API_ERROR_CODES.truncatedBody,
  API_ERROR_CODES.rowCountMismatch,
]);

const TRANSIENT_EXPORT = new Set<string>([
  EXPORT_ERROR_CODES.countMismatch,
  EXPORT_ERROR_CODES.spillFailed,
  EXPORT_ERROR_CODES.stagingFailed,
  EXPORT_ERROR_CODES.publishFailed,
]);

/**
 * Maps any error of a task onto the workflow's named errors, the only names the state
 * machine's Retry and Catch know. The message says what failed, never a token or a row.
 */
export function toWorkflowError(error: unknown, what: string): WorkflowError {
  if (error instanceof WorkflowError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (code === API_ERROR_CODES.reportFailed) return new ReportRunFailedError(`${what}: ${message}`);
  if (code === API_ERROR_CODES.unauthorized) {
    // The client already refreshed once and retried: a fresh token refused again will
    // not pass by retrying (each retry would redeem another refresh token).
    return new LoginRequiredError(
      `${what}: the service refused a freshly refreshed access token; log in again`,
      {
        cause: error,
      },
    );
  }
  if (TRANSIENT_API.has(code)) return new ServiceUnavailableError(`${what}: ${message}`, { cause: error });
  if (code === API_ERROR_CODES.aborted || code === EXPORT_ERROR_CODES.aborted) {
    return new DeadlineError(`${what} stopped before the task deadline and published nothing`, {
      cause: error,
    });
  }
  if (code === EXPORT_ERROR_CODES.sourceFailed) {
    const inner = toWorkflowError((error as { cause?: unknown }).cause, what);
    return inner instanceof ExportFailedError
      ? new ExportFailedError(`${what}: ${message}`, { cause: error })
      : inner;
  }
  if (TRANSIENT_EXPORT.has(code)) return new StoreFailedError(`${what}: ${message}`, { cause: error });
  if (code.startsWith('EXPORT_')) return new ExportFailedError(`${what}: ${message}`, { cause: error });
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ObjectStoreError' || name === 'SecretStoreError' || name === 'LeaseStoreError') {
    return new StoreFailedError(`${what}: ${message}`, { cause: error });
  }
  if (Object.values(API_ERROR_CODES).includes(code as never)) {
    return new RequestRejectedError(`${what}: ${message}`, { cause: error });
  }
  return new ExportFailedError(`${what}: ${message}`, { cause: error });
}
