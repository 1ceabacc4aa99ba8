import { ValidationError } from './errors';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// ISO 8601 date-time that carries its offset: the report's local offsets are kept as given.
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** True for a GUID as the service writes ids (any case). */
export function isGuid(value: unknown): boolean {
  return typeof value === 'string' && GUID.test(value);
}

/** Throws a {@link ValidationError} unless `value` is a GUID; returns it for chaining. */
export function requireGuid(argument: string, value: unknown): string {
  if (!isGuid(value)) {
    throw new ValidationError(argument, 'must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)');
  }
  return value as string;
}

/** Throws unless `value` is an ISO 8601 date-time with an offset (Z or +hh:mm). */
export function requireDateTimeWithOffset(argument: string, value: unknown): string {
  if (typeof value !== 'string' || !DATE_TIME_WITH_OFFSET.test(value) || Number.isNaN(Date.parse(value))) {
    throw new ValidationError(
      argument,
      'must be an ISO 8601 date-time with an offset, e.g. 2026-01-01T00:00:00+01:00',
    );
  }
  return value;
}

/** Path segment of a validated id. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
