import { SIM_ERROR_CODES, type SimErrorCode, SimulatorError } from '../errors';

/**
 * Errors the local service answers with. Handlers throw them; the server renders the
 * spec's error body (`error`, `message`, `status`, `timestamp`). Messages never carry
 * tokens or secrets.
 */
export class ApiProblem extends SimulatorError {
  override readonly name: string = 'ApiProblem';
  readonly status: number;

  constructor(status: number, code: SimErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.status = status;
  }
}

/** Longest echo of a bad value in a message (bodies can be large). */
const MAX_ECHO = 200;

/** 400 in the service's wording: "The value '<value>' is not valid." */
export class InvalidValueError extends ApiProblem {
  override readonly name: string = 'InvalidValueError';
  readonly value: string;

  constructor(value: unknown) {
    const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
    const shown = text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}...` : text;
    super(400, SIM_ERROR_CODES.invalidValue, `The value '${shown}' is not valid.`);
    this.value = shown;
  }
}

/** 400: a report period longer than the service runs (the message names both ends and the limit). */
export class WindowTooLongError extends ApiProblem {
  override readonly name = 'WindowTooLongError';

  constructor(start: string, end: string, maxDays: number) {
    super(
      400,
      SIM_ERROR_CODES.windowTooLong,
      `The period from '${start}' to '${end}' is longer than the maximum of ${maxDays} days.`,
    );
  }
}

/** 404 "Not Found". */
export class NotFoundError extends ApiProblem {
  override readonly name = 'NotFoundError';

  constructor() {
    super(404, SIM_ERROR_CODES.notFound, 'Not Found');
  }
}

/** 405 for a known path with another method. */
export class MethodNotAllowedError extends ApiProblem {
  override readonly name = 'MethodNotAllowedError';
  readonly allow: string[];

  constructor(allow: string[]) {
    super(405, SIM_ERROR_CODES.methodNotAllowed, 'Method Not Allowed');
    this.allow = allow;
  }
}

/** 409: the report request is not complete (or failed), so it has no data. */
export class ReportNotReadyError extends ApiProblem {
  override readonly name = 'ReportNotReadyError';

  constructor(message: string) {
    super(409, SIM_ERROR_CODES.reportNotReady, message);
  }
}

/** 413: a request body above the limit. */
export class PayloadTooLargeError extends ApiProblem {
  override readonly name = 'PayloadTooLargeError';

  constructor() {
    super(413, SIM_ERROR_CODES.payloadTooLarge, 'Payload Too Large');
  }
}
