import { EXPORT_DEFAULTS } from '../export/export-options';

/**
 * The defaults of the handlers' settings, apart from the settings' schema (zod) so that a
 * command's options can show them without loading it.
 */
export const SETTINGS_DEFAULTS = {
  lookBackDays: 2,
  maxWindowDays: 7,
  minSplitMinutes: 15,
  poll: { initialSeconds: 5, maxSeconds: 60, factor: 2, maxPollsPerJob: 40 },
  maxRequestsPerJob: 16,
  csvGzip: false,
  parquetCodec: 'SNAPPY',
  tokenRefreshSkewSeconds: 300,
  summaryMismatch: EXPORT_DEFAULTS.summaryMismatch,
  minShareOfPublished: EXPORT_DEFAULTS.minShareOfPublished,
} as const;
