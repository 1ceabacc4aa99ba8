import {
  type ApiError,
  type ApiErrorDetails,
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedStatusError,
} from '../errors';

/** The service's error body (400/404), read leniently. */
export interface ServiceErrorBody {
  message?: string;
  timestamp?: string;
}

/** Builds the error for a non-success status: one class per kind. */
export function createStatusError(
  status: number,
  body: ServiceErrorBody | undefined,
  details: ApiErrorDetails,
): ApiError {
  const d: ApiErrorDetails = {
    ...details,
    status,
    serviceMessage: body?.message,
    serviceTimestamp: body?.timestamp,
  };
  if (status === 400) return new BadRequestError('Bad request', d);
  if (status === 401) return new UnauthorizedError('Unauthorized', d);
  if (status === 403) return new ForbiddenError('Forbidden', d);
  if (status === 404) return new NotFoundError('Not found', d);
  if (status === 408) return new TimeoutError('The service timed out waiting for the request', d);
  if (status === 429) return new RateLimitedError('Rate limited', d);
  if (status >= 500) return new ServerError('Server error', d);
  return new UnexpectedStatusError(`Unexpected status ${status}`, d);
}
