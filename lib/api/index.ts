/**
 * Typed client of the reporting and contact-directory service. No AWS imports.
 * Start with {@link createClient} and {@link TokenProvider}.
 */

export { type ClientOptions, createClient, type ServiceClient } from './client';
export {
  DirectoryClient,
  type DirectoryClientOptions,
  type JsonPatchOperation,
  type WrittenItem,
} from './directories';
export { PRODUCTION_AUTH_URL, productionBaseUrl, REGIONS, type Region } from './endpoints';
export {
  API_ERROR_TABLE,
  API_TERMINAL_ERROR_NAMES,
  API_TRANSIENT_ERROR_NAMES,
  type ApiErrorRow,
  type ApiErrorTreatment,
  type ApiTerminalErrorName,
  type ApiTransientErrorName,
} from './error-names';
export {
  AbortedError,
  API_ERROR_CODES,
  ApiError,
  type ApiErrorCode,
  type ApiErrorDetails,
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  PollBudgetExhaustedError,
  ProtocolError,
  RateLimitedError,
  RedirectError,
  ReportFailedError,
  ResponseTooLargeError,
  RowCountMismatchError,
  ServerError,
  TimeoutError,
  TruncatedBodyError,
  UnauthorizedError,
  UnexpectedStatusError,
  UnsupportedContentEncodingError,
  ValidationError,
  ValueTooDeepError,
} from './errors';
export { RETRY_MODES, type RetryMode } from './http/retry';
export {
  type AccessTokenSource,
  type CallOptions,
  type FetchLike,
  type HttpRequest,
  HttpTransport,
  type StreamResponse,
  type TextResponse,
  TRANSPORT_DEFAULTS,
  type TransportOptions,
} from './http/transport';
export * from './oauth/index';
export type { PageOptions } from './paging';
export {
  DEFAULT_PHONE_REGION,
  type PhoneRegion,
  phoneExtension,
  requireRegion,
  searchTextFor,
  toE164,
} from './phone';
export {
  classifyReportStatus,
  type PollTiming,
  REPORT_STATE,
  type ReportState,
  type WaitOptions,
} from './report-status';
export {
  type OpenResultOptions,
  ReportingClient,
  type ReportingClientOptions,
  type ReportPeriod,
  type ReportRunRef,
  type RunReportInput,
} from './reporting';
export {
  type ParseResultOptions,
  parseReportResultStream,
  type ReportResultBatchStream,
} from './result/parser';
export type { ReportResultHead, ReportResultMetadata, ReportResultStream } from './result/stream';
export { rawMembersOf } from './result/stream';
