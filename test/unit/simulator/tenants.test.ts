import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/simulator/clock';
import { formatDetailsText } from '../../../lib/simulator/connection-details';
import { HostedTenants } from '../../../lib/simulator/hosted-tenants';
import { AccessTokenIssuer } from '../../../lib/simulator/oauth/access-tokens';
import { RefreshTokenStore } from '../../../lib/simulator/oauth/refresh-store';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import { createTenantSeeds, InvalidTenantsError } from '../../../lib/simulator/tenant-seeds';

describe('createTenantSeeds', () => {
  it('keeps the first tenant exactly the single tenant of old when hosting several', () => {
    // Act
    const [first] = createTenantSeeds(DEFAULT_SEED, 3, { extraTemplates: true });
    // Assess
    expect(first).toEqual(createSeed(DEFAULT_SEED, { extraTemplates: true }));
  });

  it('derives distinct ids, logins and zones far apart for the next tenants, sharing one client', () => {
    // Act
    const seeds = createTenantSeeds(DEFAULT_SEED, 13);
    // Assess
    expect(
      seeds.slice(0, 4).map((s) => [s.tenant.timeZoneId, s.tenant.countryCode, s.tenant.locale]),
    ).toEqual([
      ['Europe/London', 'GB', 'en-GB'],
      ['America/New_York', 'US', 'en-US'],
      ['Australia/Sydney', 'AU', 'en-AU'],
      ['Asia/Tokyo', 'JP', 'ja-JP'],
    ]);
    expect(seeds[12]?.tenant.timeZoneId).toBe('Europe/London');
    const ids = seeds.flatMap((s) => [
      s.tenant.id,
      s.credentials.subject,
      ...s.workspaces.flatMap((w) => [w.id, ...w.reports.map((r) => r.id)]),
      ...s.directories.map((d) => d.directory.id),
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(seeds.map((s) => s.credentials.username)).size).toBe(13);
    expect(seeds[11]?.credentials.username).toBe('api.admin@acme-2.example');
    expect(new Set(seeds.map((s) => `${s.credentials.clientId} ${s.credentials.clientSecret}`)).size).toBe(1);
  });

  it('takes name, zone and login from specs, the zone bringing its country', () => {
    // Act
    const [, second] = createTenantSeeds(DEFAULT_SEED, [
      {},
      { name: 'Kyoto Desk', timeZoneId: 'Asia/Tokyo', username: 'kyoto@example.test', password: 'pw' },
    ]);
    // Assess
    expect(second?.tenant).toMatchObject({ name: 'Kyoto Desk', timeZoneId: 'Asia/Tokyo', countryCode: 'JP' });
    expect(second?.credentials).toMatchObject({ username: 'kyoto@example.test', password: 'pw' });
  });

  it.each([
    [0, /integer from 1/],
    [1.5, /integer from 1/],
    [[], /at least one/],
    [[{ timeZoneId: 'Mars/Olympus' }], /'Mars\/Olympus' is not an IANA time zone/],
    [[{}, { username: 'api.admin@acme.example' }], /username 'api.admin@acme.example' is taken/],
  ])('throws InvalidTenantsError (SIM_INVALID_TENANTS) when tenants is %j', (tenants, message) => {
    // Act
    const act = () => createTenantSeeds(DEFAULT_SEED, tenants);
    // Assess
    expect(act).toThrow(InvalidTenantsError);
    expect(act).toThrow(message);
    expect(act).toThrowError(expect.objectContaining({ code: 'SIM_INVALID_TENANTS' }));
  });
});

describe('HostedTenants', () => {
  it("makes no tenant's calls until one of its results is asked for", () => {
    // Prepare
    const tenants = new HostedTenants(createTenantSeeds(DEFAULT_SEED, 1000), {
      seed: DEFAULT_SEED,
      rowsPerDay: 5,
      dataDir: undefined,
      livingDirectories: false,
      clock: new ManualClock(0),
    });
    const before = tenants.all.filter((t) => t.generatesCalls).length;
    // Act
    const calls = tenants.all[500]?.generator.dayVolume(20_535);
    // Assess
    expect(before).toBe(0);
    expect(calls).toBe(5);
    expect(tenants.all.filter((t) => t.generatesCalls).map((t) => t.id)).toEqual([tenants.all[500]?.id]);
  });

  it('finds a tenant by the id its token carries and answers 404 for another id', () => {
    // Prepare
    const tenants = new HostedTenants(createTenantSeeds(DEFAULT_SEED, 2), {
      seed: DEFAULT_SEED,
      rowsPerDay: 5,
      dataDir: undefined,
      livingDirectories: false,
      clock: new ManualClock(0),
    });
    const second = tenants.all[1]?.id as string;
    // Act
    const found = tenants.of({ tenantId: second });
    // Assess
    expect(found.id).toBe(second);
    expect(() => tenants.of({ tenantId: 'not-a-tenant' })).toThrowError(
      expect.objectContaining({ status: 404 }),
    );
  });
});

describe('revoking a tenant', () => {
  it("revokes every refresh token of that tenant and none of another's", () => {
    // Prepare
    const store = new RefreshTokenStore({ clock: new ManualClock(0), idleSeconds: 3600, rotate: false });
    const grant = { clientId: 'app', subject: 'u', scope: 'openid offline_access' };
    const a1 = store.issue({ ...grant, tenantId: 'a' }).token;
    const a2 = store.issue({ ...grant, tenantId: 'a' }).token;
    const b = store.issue({ ...grant, tenantId: 'b' }).token;
    // Act
    store.revokeTenant('a');
    // Assess
    expect(store.use(a1, 'app').kind).toBe('rejected');
    expect(store.use(a2, 'app').kind).toBe('rejected');
    expect(store.use(b, 'app').kind).toBe('accepted');
  });

  it("expires the tenant's access tokens issued so far, not later ones nor another tenant's", async () => {
    // Prepare
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const issuer = await AccessTokenIssuer.create({
      issuer: 'http://127.0.0.1:4000',
      clock,
      ttlSeconds: 600,
    });
    const subject = { subject: 'u', clientId: 'app', scope: 'openid' };
    const oldA = await issuer.issue({ ...subject, tenantId: 'a' });
    const oldB = await issuer.issue({ ...subject, tenantId: 'b' });
    // Act
    issuer.expireIssuedToTenant('a');
    const newA = await issuer.issue({ ...subject, tenantId: 'a' });
    // Assess
    await expect(issuer.verify(oldA)).resolves.toBeNull();
    await expect(issuer.verify(oldB)).resolves.toMatchObject({ tenantId: 'b' });
    await expect(issuer.verify(newA)).resolves.toMatchObject({ tenantId: 'a' });
  });
});

describe('formatDetailsText with tenants', () => {
  it('lists the first ten tenants with their logins and counts the rest', () => {
    // Prepare
    const tenants = Array.from({ length: 12 }, (_, i) => ({
      id: `id-${i}`,
      name: `Tenant ${i}`,
      timeZoneId: 'Asia/Tokyo',
      workspaceId: `ws-${i}`,
      reportIds: [`r-${i}`],
      reports: [{ id: `r-${i}`, name: 'Calls' }],
      username: `user-${i}@example.test`,
      password: `pw-${i}`,
      directoryIds: [],
    }));
    const details = {
      baseUrl: 'http://127.0.0.1:4000/api',
      authUrl: 'http://127.0.0.1:4000',
      clientId: 'c',
      clientSecret: 's',
      redirectUri: 'http://127.0.0.1:8000/',
      username: 'user-0@example.test',
      password: 'pw-0',
      tenantId: 'id-0',
      workspaceId: 'ws-0',
      reportIds: ['r-0'],
      directoryIds: [],
      tenants,
    };
    // Act
    const text = formatDetailsText(details);
    // Assess
    expect(text).toContain('Tenants (12;');
    expect(text).toContain('user-9@example.test / pw-9');
    expect(text).not.toContain('user-10@example.test');
    expect(text).toContain('... and 2 more');
  });
});
