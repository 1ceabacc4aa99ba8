import type { TenantEntry } from '../../../lib/workflow/tenant-registry';

/** A valid registry entry of the local service's region, with the members a test changes. */
export function tenantEntry(id: string, overrides: Partial<TenantEntry> = {}): TenantEntry {
  return {
    id,
    name: `Tenant ${id}`,
    region: 'local',
    timeZone: 'Europe/London',
    workspaceId: `ws-${id}`,
    reports: [{ id: 'r1', name: 'Calls' }],
    hour: 2,
    lookBackDays: 0,
    enabled: true,
    ...overrides,
  };
}
