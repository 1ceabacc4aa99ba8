import { EXPORT_ERROR_CODES, ExportError } from '../errors';

/**
 * A directory could not be read whole: a request failed, timed out or came back truncated
 * (the client's error is the `cause`). Nothing of the directory may be published from such a
 * read: a partial listing would close, as deleted, every item it missed. The code is the
 * export's "source failed", which the workflow's error table classifies by its cause
 * (a timeout or a 503 is transient, a 403 is not).
 */
export class DirectoryReadError extends ExportError {
  readonly directoryId: string;

  constructor(directoryId: string, message: string, options?: { cause?: unknown }) {
    super(EXPORT_ERROR_CODES.sourceFailed, `Directory ${directoryId}: ${message}`, options);
    this.name = 'DirectoryReadError';
    this.directoryId = directoryId;
  }
}

/**
 * A directory's answers stayed capped however the search was split, or the split answers did
 * not cover what the unsplit answer showed: the listing cannot be shown complete, so it is
 * refused (never taken as the directory's content).
 */
export class DirectoryListingIncompleteError extends DirectoryReadError {
  constructor(directoryId: string, message: string) {
    super(directoryId, message);
    this.name = 'DirectoryListingIncompleteError';
  }
}

/**
 * The contacts partition read from the table cannot be versioned onto: rows of another
 * tenant or directory, an item with no or several current versions, or versions from after
 * the sync's time (a clock gone back, or an older sync re-run). Nothing is written.
 */
export class ContactHistoryError extends ExportError {
  constructor(message: string) {
    super(EXPORT_ERROR_CODES.tableInvalid, message);
    this.name = 'ContactHistoryError';
  }
}

/**
 * A directory the tenant's settings name is not among those the service lists: it is not
 * synced (its partition, if any, stays as it was), and the outcome says so.
 */
export class DirectoryNotListedError extends DirectoryReadError {
  constructor(directoryId: string) {
    super(
      directoryId,
      'the service does not list it (a registry entry naming a directory of another workspace, or one deleted); nothing is synced',
    );
    this.name = 'DirectoryNotListedError';
  }
}
