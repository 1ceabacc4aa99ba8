/**
 * Errors the local service answers with. Handlers throw them; the server renders the
 * spec's error body (`error`, `message`, `status`, `timestamp`). Messages never carry
 * tokens or secrets.
 */
export class ApiProblem extends Error {
  readonly code: string;
  readonly status: number;

  constructor(status: number, code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
  }
}

/** Longest echo of a bad value in a message (bodies can be large). */
const MAX_ECHO = 200;

/** 400 in the service's wording: "The value '<value>' is not valid." */
export class InvalidValueError extends ApiProblem {
  readonly value: string;

  constructor(value: unknown) {
    const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
    const shown = text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}...` : text;
    super(400, 'INVALID_VALUE', `The value '${shown}' is not valid.`);
    this.name = 'InvalidValueError';
    this.value = shown;
  }
}

/** 404 "Not Found". */
export class NotFoundError extends ApiProblem {
  constructor() {
    super(404, 'NOT_FOUND', 'Not Found');
    this.name = 'NotFoundError';
  }
}

/** 405 for a known path with another method. */
export class MethodNotAllowedError extends ApiProblem {
  readonly allow: string[];

  constructor(allow: string[]) {
    super(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed');
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}

/** 409: the report request is not complete (or failed), so it has no data. */
export class ReportNotReadyError extends ApiProblem {
  constructor(message: string) {
    super(409, 'REPORT_NOT_READY', message);
    this.name = 'ReportNotReadyError';
  }
}

/** 413: a request body above the limit. */
export class PayloadTooLargeError extends ApiProblem {
  constructor() {
    super(413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large');
    this.name = 'PayloadTooLargeError';
  }
}
