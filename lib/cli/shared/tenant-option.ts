import { nonEmptyValue } from '../../command-line';

/**
 * `--tenant <id>` of the commands that read or run one tenant's part of a multi-tenant
 * deployment (`run`, `start`, `backfill`, `runs`, `query`): what it does, per command. Light
 * (for the specs); the id is checked against TENANT_ID_PATTERN by {@link checkedTenant}.
 */
export function tenantOption(help: string) {
  return { tenant: { type: 'string', value: '<id>', help, parse: nonEmptyValue } } as const;
}
