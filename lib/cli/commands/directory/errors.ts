/**
 * Errors of the `directory` commands. A failure that stops a command is a
 * {@link DirectoryCommandError}; a row a sync could not apply is not thrown but reported
 * with one of {@link SYNC_ROW_CODES} (or the code of the client's error).
 */

/** Codes of errors that stop a `directory` command. */
export const DIRECTORY_CLI_ERROR_CODES = {
  credentialsMissing: 'CLI_DIRECTORY_CREDENTIALS_MISSING',
  directoryNotFound: 'CLI_DIRECTORY_NOT_FOUND',
  directoryAmbiguous: 'CLI_DIRECTORY_AMBIGUOUS',
  csvUnreadable: 'CLI_CSV_UNREADABLE',
  csvHeader: 'CLI_CSV_HEADER_INVALID',
  columnNotInDirectory: 'CLI_SYNC_COLUMN_NOT_IN_DIRECTORY',
  interrupted: 'CLI_SYNC_INTERRUPTED',
} as const;
type DirectoryCliErrorCode = (typeof DIRECTORY_CLI_ERROR_CODES)[keyof typeof DIRECTORY_CLI_ERROR_CODES];

/** Codes of rows a sync reports as failed (besides the CSV faults and the client's codes). */
export const SYNC_ROW_CODES = {
  columnCount: 'CLI_CSV_COLUMN_COUNT',
  crmIdMissing: 'CLI_SYNC_CRM_ID_MISSING',
  crmIdInvalid: 'CLI_SYNC_CRM_ID_INVALID',
  crmIdDuplicate: 'CLI_SYNC_CRM_ID_DUPLICATE',
  crmIdAmbiguous: 'CLI_SYNC_CRM_ID_AMBIGUOUS',
  phoneInvalid: 'CLI_SYNC_PHONE_INVALID',
  /** Not a failure: the row is applied, its phone without the extension E.164 cannot hold. */
  phoneExtensionDropped: 'CLI_SYNC_PHONE_EXTENSION_DROPPED',
  requestFailed: 'CLI_SYNC_REQUEST_FAILED',
} as const;
/** A `directory` command cannot go on; the message says what to do. Exit status 1. */
export class DirectoryCommandError extends Error {
  override readonly name = 'DirectoryCommandError';
  readonly code: DirectoryCliErrorCode;

  constructor(code: DirectoryCliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
