import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDirectoryStore } from '../../../lib/stores';
import { WORKFLOW_ERROR_CODES } from '../../../lib/workflow/errors';
import {
  parseTenantEntry,
  TenantRegistry,
  tenantRegistryFromUri,
} from '../../../lib/workflow/tenant-registry';
import { tenantEntry } from './tenant-fixtures';

describe('parseTenantEntry', () => {
  it('returns the entry when every member is valid', () => {
    expect(parseTenantEntry(tenantEntry('acme'))).toEqual(tenantEntry('acme'));
  });

  it.each([
    ['timeZone', { timeZone: 'Mars/Olympus' }, /timeZone is not an IANA time zone \(got "Mars\/Olympus"\)/],
    ['hour', { hour: 24 }, /hour .*\(got 24\)/],
    ['lookBackDays', { lookBackDays: 91 }, /lookBackDays .*\(got 91\)/],
    ['region', { region: 'mars' }, /region .*\(got "mars"\)/],
    ['reports', { reports: [] }, /reports /],
    ['a report id', { reports: [{ id: '', name: 'x' }] }, /reports\.0\.id /],
    ['enabled', { enabled: 'yes' }, /enabled .*\(got "yes"\)/],
    ['country', { country: 'gb' }, /country must be an ISO 3166 alpha-2 code .*\(got "gb"\)/],
    ['an unknown country', { country: 'XX' }, /country is not a country phone numbers can be read in/],
    ['directories', { directories: [] }, /directories names no directory/],
    ['a directory twice', { directories: ['d-1', 'd-1'] }, /directories names a directory twice/],
  ])('names the member and its value when %s is invalid', (_, override, message) => {
    // Act
    let error: { code?: string; message?: string } | undefined;
    try {
      parseTenantEntry({ ...tenantEntry('acme'), ...override });
    } catch (e) {
      error = e as typeof error;
    }
    // Assess
    expect(error?.code).toBe(WORKFLOW_ERROR_CODES.tenantConfigInvalid);
    expect(error?.message).toMatch(/^Invalid tenant entry 'acme': /);
    expect(error?.message).toMatch(message);
  });

  it.each(['Acme', 'a_b', '-a', 'a-', 'x'.repeat(33), ''])('refuses the id %j', (id) => {
    expect(() => parseTenantEntry(tenantEntry(id))).toThrow(
      /id must be 1-32 lowercase letters, digits and inner hyphens/,
    );
  });

  it('keeps a country and the directories named, and leaves them absent when not given', () => {
    // Act
    const named = parseTenantEntry({ ...tenantEntry('acme'), country: 'GB', directories: ['d-1', 'd-2'] });
    const plain = parseTenantEntry(tenantEntry('acme'));
    // Assess
    expect(named).toMatchObject({ country: 'GB', directories: ['d-1', 'd-2'] });
    expect(Object.keys(plain)).not.toContain('country');
    expect(Object.keys(plain)).not.toContain('directories');
  });

  it('refuses a member it does not know (a misspelt lookBackDays)', () => {
    expect(() => parseTenantEntry({ ...tenantEntry('acme'), lookbackDays: 3 })).toThrow(/lookbackDays/);
  });

  it('refuses more reports than one execution may run', () => {
    const reports = Array.from({ length: 4 }, (_, i) => ({ id: `r${i}`, name: `R${i}` }));
    expect(() => parseTenantEntry(tenantEntry('acme', { reports }), { maxReports: 3 })).toThrow(
      /more than the 3 reports/,
    );
  });
});

describe('TenantRegistry', () => {
  let root: string;
  let registry: TenantRegistry;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tenant-registry-'));
    registry = new TenantRegistry({ store: new LocalDirectoryStore(root), prefix: 'tenants' });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads back what put wrote, and undefined for a tenant it has no entry of', async () => {
    // Act
    await registry.put(tenantEntry('acme'));
    // Assess
    expect(await registry.get('acme')).toEqual(tenantEntry('acme'));
    expect(await registry.get('other')).toBeUndefined();
  });

  it('refuses to create an id already registered, and replaces it without create', async () => {
    // Prepare
    await registry.put(tenantEntry('acme'), { create: true });
    // Act
    const again = registry.put(tenantEntry('acme', { name: 'Second' }), { create: true });
    // Assess
    await expect(again).rejects.toMatchObject({
      code: WORKFLOW_ERROR_CODES.tenantConfigInvalid,
      message: "Tenant 'acme' is already in the registry",
    });
    expect((await registry.get('acme'))?.name).toBe('Tenant acme');
    await registry.put(tenantEntry('acme', { name: 'Second' }));
    expect((await registry.get('acme'))?.name).toBe('Second');
  });

  it('validates an entry before writing it', async () => {
    await expect(registry.put(tenantEntry('acme', { hour: -1 }))).rejects.toThrow(/hour/);
    expect(await registry.get('acme')).toBeUndefined();
  });

  it('lists the entries by id, skipping keys that are not entries', async () => {
    // Prepare
    for (const id of ['zeta', 'acme', 'mid-co']) await registry.put(tenantEntry(id));
    await writeFile(join(root, 'tenants', 'README.txt'), 'not an entry');
    // Act
    const ids = (await registry.list()).map((e) => e.id);
    // Assess
    expect(ids).toEqual(['acme', 'mid-co', 'zeta']);
  });

  it('names a damaged entry, and skips it when the caller asks to', async () => {
    // Prepare
    await registry.put(tenantEntry('acme'));
    await writeFile(join(root, 'tenants', 'broken.json'), '{"id":');
    await writeFile(join(root, 'tenants', 'moved.json'), JSON.stringify(tenantEntry('other')));
    // Act
    const skipped: string[] = [];
    const listed = await registry.list({ onInvalid: (id, error) => skipped.push(`${id}: ${error.message}`) });
    // Assess
    expect(listed.map((e) => e.id)).toEqual(['acme']);
    // Entries are read several at once: reported in the order their reads end.
    expect(skipped.sort()).toEqual([
      expect.stringMatching(/^broken: Invalid tenant entry 'broken': not JSON/),
      "moved: Invalid tenant entry 'moved': its id is 'other', not the key's ('moved')",
    ]);
    await expect(registry.list()).rejects.toThrow(/Invalid tenant entry/);
  });

  it('removes an entry, and says so only when there was one', async () => {
    await registry.put(tenantEntry('acme'));
    expect(await registry.remove('acme')).toBe(true);
    expect(await registry.remove('acme')).toBe(false);
    expect(await registry.get('acme')).toBeUndefined();
  });

  it('is built from a file:// TENANT_REGISTRY_URI, and names the setting when the URI is not one', async () => {
    // Prepare
    await registry.put(tenantEntry('acme'));
    // Act
    const fromUri = tenantRegistryFromUri('TENANT_REGISTRY_URI', pathToFileURL(join(root, 'tenants')).href);
    // Assess
    expect((await fromUri.list()).map((e) => e.id)).toEqual(['acme']);
    expect(() => tenantRegistryFromUri('TENANT_REGISTRY_URI', '/tmp/tenants')).toThrow(/TENANT_REGISTRY_URI/);
  });
});
