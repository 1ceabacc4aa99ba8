import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  exportTenants,
  missingLogin,
  selectTenants,
} from '../../../../../lib/cli/commands/local/export-tenants';
import type { TenantEntry } from '../../../../../lib/workflow';

const entry = (id: string, enabled = true): TenantEntry => ({
  id,
  name: id.toUpperCase(),
  region: 'local',
  timeZone: 'Europe/London',
  workspaceId: `ws-${id}`,
  reports: [{ id: 'r-1', name: 'Lost calls' }],
  hour: 2,
  lookBackDays: 0,
  enabled,
});

describe("npm start's tenants", () => {
  let state: string;
  beforeEach(async () => {
    state = await mkdtemp(path.join(tmpdir(), 'export-tenants-'));
    await mkdir(path.join(state, 'tenants'));
    for (const e of [entry('london'), entry('acme'), entry('zed', false)])
      await writeFile(path.join(state, 'tenants', `${e.id}.json`), JSON.stringify(e));
    await writeFile(path.join(state, 'tenants', 'broken.json'), '{');
  });
  afterEach(async () => {
    await rm(state, { recursive: true, force: true });
  });

  it("adds the registry's other tenants after the local service's, each with its own login file, and names an unknown one with the others", async () => {
    // Prepare
    const service = [
      { id: 'london', entry: entry('london'), secretFile: '/s/london.json', username: 'u@london' },
    ];
    const invalid: string[] = [];

    // Act
    const all = await exportTenants(service, state, (id) => invalid.push(id));

    // Assess
    expect(all.map((t) => [t.id, t.added])).toEqual([
      ['london', false],
      ['acme', true],
      ['zed', true],
    ]);
    expect(invalid).toEqual(['broken']);
    expect(selectTenants(all, undefined).map((t) => t.id)).toEqual(['london', 'acme']);
    expect(selectTenants(all, 'zed').map((t) => t.id)).toEqual(['zed']);
    expect(() => selectTenants(all, 'acm')).toThrow(
      "--tenant 'acm' is not a tenant of the local deployment (its tenants: acme, london, zed)",
    );
    const acme = all[1];
    if (acme === undefined) throw new Error('no acme');
    expect(acme.secretFile).toBe(path.join(state, 'secrets', 'acme.json'));
    expect(await missingLogin(acme)).toContain('report-export tenants login acme');
    await mkdir(path.join(state, 'secrets'));
    await writeFile(acme.secretFile, '{}');
    expect(await missingLogin(acme)).toBeUndefined();
  });
});
