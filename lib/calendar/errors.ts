/**
 * Stable codes of calendar failures. They keep the strings the export core has always thrown
 * for these (a bad date or window is a configuration error, an unknown zone its own): callers,
 * tests and the workflow's error table match on them, and the folder moved, not the contract.
 */
export const CALENDAR_ERROR_CODES = {
  /** A date, instant or window that is malformed or runs backwards; the message names the setting. */
  dateInvalid: 'EXPORT_CONFIG_INVALID',
  /** A zone name `Intl` does not know. */
  timeZoneInvalid: 'EXPORT_TIME_ZONE_INVALID',
} as const;

export type CalendarErrorCode = (typeof CALENDAR_ERROR_CODES)[keyof typeof CALENDAR_ERROR_CODES];

/** A date, window or zone the calendar cannot read; `code` is stable, the message names the setting. */
export class CalendarError extends Error {
  readonly code: CalendarErrorCode;

  constructor(code: CalendarErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CalendarError';
    this.code = code;
  }
}
