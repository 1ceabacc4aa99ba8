/** Stable codes of export failures; tests and callers match on these, never on messages. */
export const EXPORT_ERROR_CODES = {
  configInvalid: 'EXPORT_CONFIG_INVALID',
  rowInvalid: 'EXPORT_ROW_INVALID',
  rowOutsideWindow: 'EXPORT_ROW_OUTSIDE_WINDOW',
  unknownMember: 'EXPORT_UNKNOWN_MEMBER',
  timeZoneInvalid: 'EXPORT_TIME_ZONE_INVALID',
  countMismatch: 'EXPORT_COUNT_MISMATCH',
  rowLimitExceeded: 'EXPORT_ROW_LIMIT_EXCEEDED',
  sourceFailed: 'EXPORT_SOURCE_FAILED',
  spillFailed: 'EXPORT_SPILL_FAILED',
  spillBudgetExceeded: 'EXPORT_SPILL_BUDGET_EXCEEDED',
  aborted: 'EXPORT_ABORTED',
  stagingFailed: 'EXPORT_STAGING_FAILED',
  verifyFailed: 'EXPORT_VERIFY_FAILED',
  publishFailed: 'EXPORT_PUBLISH_FAILED',
  rollbackFailed: 'EXPORT_ROLLBACK_FAILED',
  summaryWindowInvalid: 'EXPORT_SUMMARY_WINDOW_INVALID',
  summaryMismatch: 'EXPORT_SUMMARY_MISMATCH',
  reportShapeChanged: 'EXPORT_REPORT_SHAPE_CHANGED',
  tableCommitFailed: 'EXPORT_TABLE_COMMIT_FAILED',
  tableInvalid: 'EXPORT_TABLE_INVALID',
  /** A deferred export's table lacks what the run writes: the committer prepares tables first. */
  tableNotPrepared: 'EXPORT_TABLE_NOT_PREPARED',
  /** A staged run the committer refused (a StagedRunOutcome's reason; never thrown). */
  stagedRunInvalid: 'EXPORT_STAGED_RUN_INVALID',
  /** The committer could not read a staged run or its files (the store failed): transient. */
  stagedReadFailed: 'EXPORT_STAGED_READ_FAILED',
} as const;

export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[keyof typeof EXPORT_ERROR_CODES];

/** Base error of the export core. `code` is stable; `requestId` names the report run when known. */
export class ExportError extends Error {
  readonly code: ExportErrorCode;
  readonly requestId: string | undefined;

  constructor(code: ExportErrorCode, message: string, options?: { cause?: unknown; requestId?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ExportError';
    this.code = code;
    this.requestId = options?.requestId;
  }
}

/** Throws EXPORT_ABORTED when the run's signal has fired; called between steps and per batch. */
export function throwIfAborted(signal: AbortSignal | undefined, requestId: string): void {
  if (signal?.aborted) {
    throw new ExportError(EXPORT_ERROR_CODES.aborted, 'The export was aborted before publishing', {
      cause: signal.reason,
      requestId,
    });
  }
}

/** An option of the export is invalid; the message names the setting. */
export class ExportConfigError extends ExportError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(EXPORT_ERROR_CODES.configInvalid, message, options);
    this.name = 'ExportConfigError';
  }
}

/** A row of the source cannot be converted to the output schema. */
export class RowConversionError extends ExportError {
  constructor(
    code: typeof EXPORT_ERROR_CODES.rowInvalid | typeof EXPORT_ERROR_CODES.unknownMember,
    message: string,
  ) {
    super(code, message);
    this.name = 'RowConversionError';
  }
}

/**
 * A row's local date is outside the run's window (outsideWindow=fail): publishing it would
 * replace a partition the run was not asked to touch.
 */
export class RowOutsideWindowError extends ExportError {
  constructor(message: string, options?: { requestId?: string }) {
    super(EXPORT_ERROR_CODES.rowOutsideWindow, message, options);
    this.name = 'RowOutsideWindowError';
  }
}

/** Rows read do not reconcile with the source, or staged files do not match what was written. */
export class VerificationError extends ExportError {
  constructor(
    code:
      | typeof EXPORT_ERROR_CODES.countMismatch
      | typeof EXPORT_ERROR_CODES.rowLimitExceeded
      | typeof EXPORT_ERROR_CODES.verifyFailed
      | typeof EXPORT_ERROR_CODES.summaryMismatch,
    message: string,
    options?: { requestId?: string },
  ) {
    super(code, message, options);
    this.name = 'VerificationError';
  }
}

/** Staging, promotion or rollback against the object store failed. */
export class PublishError extends ExportError {
  constructor(
    code:
      | typeof EXPORT_ERROR_CODES.stagingFailed
      | typeof EXPORT_ERROR_CODES.publishFailed
      | typeof EXPORT_ERROR_CODES.rollbackFailed
      | typeof EXPORT_ERROR_CODES.sourceFailed,
    message: string,
    options?: { cause?: unknown; requestId?: string },
  ) {
    super(code, message, options);
    this.name = 'PublishError';
  }
}

/**
 * The report's days are published in the other dataset: the report changed shape (a call
 * list became a summary, or back), and publishing would leave each day in both `calls` and
 * `summaries`. Refused rather than removed: a report changes shape only when someone edits
 * it in the service, and the other dataset's days may hold what the service will no longer
 * return in that shape (a call list's calls). `forceReplace` removes them in the same publish.
 */
export class ReportShapeChangedError extends ExportError {
  /** The days (YYYY-MM-DD) published in the other dataset, in date order. */
  readonly days: readonly string[];
  /** The dataset they are published in. */
  readonly publishedIn: string;

  constructor(
    what: { reportId: string; dataset: string; publishedIn: string; days: readonly string[] },
    options?: { requestId?: string },
  ) {
    const { reportId, dataset, publishedIn, days } = what;
    const shape = dataset === 'summaries' ? 'a summary' : 'a call list';
    super(
      EXPORT_ERROR_CODES.reportShapeChanged,
      `Report ${reportId} now returns ${shape} (dataset ${dataset}) but ${publishedIn} holds it on ${days.join(', ')}: publishing would leave those days in both datasets. Nothing was published; re-run with forceReplace to remove them from ${publishedIn} in the same publish, or export a window without them`,
      options,
    );
    this.name = 'ReportShapeChangedError';
    this.days = days;
    this.publishedIn = publishedIn;
  }
}

/** Why part files did not fit on local disk, as the spill step measured it. */
export interface SpillShortage {
  /** `budget`: the write would have passed `spillBudgetBytes`; `disk`: the file system refused it. */
  reason: 'budget' | 'disk';
  /** Bytes of part files written before the write that did not fit. */
  spilledBytes: number;
  /** Bytes of the write that did not fit (0 when creating a file or directory failed). */
  writeBytes: number;
  /** `spillBudgetBytes`; undefined when unlimited. */
  budgetBytes: number | undefined;
  /** The file system's code (ENOSPC, EDQUOT) when `reason` is `disk`. */
  errno: string | undefined;
}

/**
 * The part files did not fit on local disk: the next write would have passed
 * `spillBudgetBytes`, or the file system was full (ENOSPC, EDQUOT). Retrying on the same
 * storage fails the same way, so the code is its own (not EXPORT_SPILL_FAILED).
 */
export class SpillBudgetError extends ExportError {
  readonly shortage: SpillShortage;
  /** Rows read from the source when the write failed. */
  readonly rowsRead: number;

  constructor(shortage: SpillShortage, rowsRead: number, options?: { cause?: unknown; requestId?: string }) {
    const { spilledBytes, writeBytes, budgetBytes } = shortage;
    const budget = budgetBytes === undefined ? 'unlimited' : `${budgetBytes} bytes`;
    const what =
      shortage.reason === 'budget'
        ? `The part files need more local disk than spillBudgetBytes allows: ${spilledBytes + writeBytes} bytes needed, ${spilledBytes} written, budget ${budget}`
        : `The local disk is full (${shortage.errno ?? 'ENOSPC'}): ${spilledBytes} bytes of part files written, ${writeBytes} more needed, spillBudgetBytes ${budget}`;
    super(
      EXPORT_ERROR_CODES.spillBudgetExceeded,
      `${what}, after ${rowsRead} rows read; give the export more ephemeral storage (and a larger spillBudgetBytes) or export a smaller window`,
      options,
    );
    this.name = 'SpillBudgetError';
    this.shortage = shortage;
    this.rowsRead = rowsRead;
  }
}

/**
 * An Iceberg commit did not land: the table kept changing under every attempt (conflicts),
 * or the store or catalog failed. Nothing of the change is visible; a later run may land it.
 */
export class TableCommitFailedError extends ExportError {
  readonly attempts: number;
  readonly conflicts: number;

  constructor(
    message: string,
    counts: { attempts: number; conflicts: number },
    options?: { cause?: unknown },
  ) {
    super(EXPORT_ERROR_CODES.tableCommitFailed, message, options);
    this.name = 'TableCommitFailedError';
    this.attempts = counts.attempts;
    this.conflicts = counts.conflicts;
  }
}

/** An Iceberg table's metadata is not what this export can read or write onto; the message names the table and what. */
export class TableInvalidError extends ExportError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(EXPORT_ERROR_CODES.tableInvalid, message, options);
    this.name = 'TableInvalidError';
  }
}
