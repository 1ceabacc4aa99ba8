import { ExportConfigError } from './errors';

/**
 * A tenant id: 1 to 32 lowercase letters, digits and inner hyphens. The id is a key segment
 * (`tenant=<id>/`), part of a secret's name, an IAM session tag value, a Scheduler schedule's
 * name and a prefix of execution names (80 characters in all): this alphabet and length are
 * safe in every one of them.
 */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** What a tenant id may be, in words (the errors of every caller say it the same way). */
export const TENANT_ID_RULE = '1-32 lowercase letters, digits and inner hyphens';

/** Throws ExportConfigError naming `what` and the value when `id` is not a tenant id. */
export function checkTenantId(id: string, what = 'tenant'): void {
  if (!TENANT_ID_PATTERN.test(id)) {
    throw new ExportConfigError(`${what} must be ${TENANT_ID_RULE}, got ${JSON.stringify(id)}`);
  }
}
