import { describe, expect, it } from 'vitest';
import { TenantLogLines } from '../../../../../lib/cli/commands/local/tenant-log-lines';

const line = (tenant: string | undefined, jobId: string) =>
  JSON.stringify({ level: 'INFO', message: 'exported', jobId, ...(tenant === undefined ? {} : { tenant }) });

describe('TenantLogLines', () => {
  it("gives each tenant only its own lines, as they arrive, when tenants' executions log into one list", () => {
    // Prepare
    const all: string[] = [line('london', 'job-0001')];
    const lines = new TenantLogLines(all);
    const london = lines.of('london');
    const sydney = lines.of('sydney');

    // Act
    const first = [...london()];
    all.push(line('sydney', 'job-0001'), line(undefined, 'job-0001'), 'not json', line('london', 'job-0002'));

    // Assess: the same job id of two tenants never mixes; a line naming no tenant is nobody's.
    expect(first).toEqual([line('london', 'job-0001')]);
    expect(london()).toEqual([line('london', 'job-0001'), line('london', 'job-0002')]);
    expect(sydney()).toEqual([line('sydney', 'job-0001')]);
  });
});
