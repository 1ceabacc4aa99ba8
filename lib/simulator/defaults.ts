/**
 * The local service's defaults, apart from the service itself so that its options
 * (cli-options.ts: `npm run sim --help`, `report-export sim --help`, completion) can show
 * them without loading the server, the OAuth code and the generator.
 */

/** Time a report request runs before Complete. */
export const DEFAULT_REPORT_LATENCY_MS = 1500;
/** Generated calls per weekday. */
export const DEFAULT_ROWS_PER_DAY = 500;
/** Access token lifetime in seconds. */
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 5400;
/** Result rows as objects (not arrays ordered like displayFields). */
export const DEFAULT_ROW_FORMAT = 'object';
/** The service's row limit per result. */
export const DEFAULT_ROW_LIMIT = 1_000_000;
/** Default seed of the generator and of every id. */
export const DEFAULT_SEED = 20_260_101;
/** Tenants hosted when started without `tenants` (in zones far apart). */
export const DEFAULT_TENANT_COUNT = 3;
/** More tenants than this is a mistake, not a benchmark (the lead's bench runs 1,000). */
export const MAX_TENANTS = 100_000;
