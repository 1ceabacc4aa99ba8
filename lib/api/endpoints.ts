/** Production regions of the service (service-notes.md). */
export const REGIONS = ['na', 'uk', 'eu', 'au'] as const;
export type Region = (typeof REGIONS)[number];

/** The one authorization server of every production region. */
export const PRODUCTION_AUTH_URL = 'https://login.xarios.cloud';

/** The `{base_url}` of a production region, `<region>` standing for it. */
export const PRODUCTION_BASE_URL_TEMPLATE = 'https://api.<region>.myreports.cloud/api';

/** The `{base_url}` of a production region: `https://api.<region>.myreports.cloud/api`. */
export function productionBaseUrl(region: Region): string {
  return PRODUCTION_BASE_URL_TEMPLATE.replace('<region>', region);
}
