import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSet } from '../../../lib/api';
import { LoginRequiredError } from '../../../lib/api';
import { LocalFileSecretStore } from '../../../lib/stores';
import { LocalLeaseStore } from '../../../lib/stores/local-lease-store';
import { parseSecret } from '../../../lib/stores/secret-store';
import { SecretTokenSource, type ServiceSecret } from '../../../lib/workflow/service-secret';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'token-source-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const SECRET: ServiceSecret = {
  authUrl: 'http://127.0.0.1:1',
  baseUrl: 'http://127.0.0.1:1/api',
  clientId: 'client',
  clientSecret: 'client-secret-value',
  redirectUri: 'http://127.0.0.1:8000/',
  refreshToken: 'refresh-0',
  accessToken: 'access-0',
  accessTokenExpiresAt: 0,
};

/** A token endpoint that rotates refresh tokens and refuses a spent one, as the service does. */
function rotatingGrant() {
  let current = 'refresh-0';
  let n = 0;
  const redeemed: string[] = [];
  const grant = async (_client: unknown, refreshToken: string): Promise<TokenSet> => {
    redeemed.push(refreshToken);
    await new Promise((r) => setTimeout(r, 20));
    if (refreshToken !== current) throw Object.assign(new Error('invalid_grant'), { error: 'invalid_grant' });
    n++;
    current = `refresh-${n}`;
    return {
      accessToken: `access-${n}`,
      refreshToken: current,
      tokenType: 'bearer',
      expiresAt: Date.now() + 3_600_000,
      scope: undefined,
    };
  };
  return { grant, redeemed, current: () => current };
}

describe('SecretTokenSource', () => {
  it('redeems a refresh token once for many concurrent sources and stores the rotated one', async () => {
    // Prepare: 3 processes (sources) x 8 concurrent callers share one secret file and one lease directory.
    const secrets = new LocalFileSecretStore(path.join(dir, 'secrets.json'));
    await secrets.put('service', SECRET);
    const leases = new LocalLeaseStore(path.join(dir, 'leases'));
    const endpoint = rotatingGrant();
    const sources = [0, 1, 2].map(
      () =>
        new SecretTokenSource({
          secrets,
          secretName: 'service',
          leases,
          refresh: endpoint.grant,
          sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 20))),
        }),
    );
    // Act
    const tokens = await Promise.all(
      sources.flatMap((s) => Array.from({ length: 8 }, () => s.getAccessToken())),
    );
    // Assess
    expect(new Set(tokens)).toEqual(new Set(['access-1']));
    expect(endpoint.redeemed).toEqual(['refresh-0']);
    const stored = await secrets.get<ServiceSecret>('service');
    expect(stored?.refreshToken).toBe(endpoint.current());
  });

  it('refreshes once after a 401 (invalidate) even though the stored token has not expired', async () => {
    const secrets = new LocalFileSecretStore(path.join(dir, 'secrets.json'));
    await secrets.put('service', { ...SECRET, accessTokenExpiresAt: Date.now() + 3_600_000 });
    const endpoint = rotatingGrant();
    const source = new SecretTokenSource({
      secrets,
      secretName: 'service',
      leases: new LocalLeaseStore(path.join(dir, 'l')),
      refresh: endpoint.grant,
    });
    expect(await source.getAccessToken()).toBe('access-0');
    source.invalidate('access-0');
    expect(await source.getAccessToken()).toBe('access-1');
    expect(endpoint.redeemed).toHaveLength(1);
  });

  it('turns a refused refresh token into LoginRequiredError that says to log in again', async () => {
    const secrets = new LocalFileSecretStore(path.join(dir, 'secrets.json'));
    await secrets.put('service', { ...SECRET, refreshToken: 'spent-token-7f3a' });
    const endpoint = rotatingGrant();
    const source = new SecretTokenSource({
      secrets,
      secretName: 'service',
      leases: new LocalLeaseStore(path.join(dir, 'l')),
      refresh: endpoint.grant,
    });
    const error = await source.getAccessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoginRequiredError);
    expect((error as Error).message).toContain('log in again');
    expect((error as Error).message).not.toContain('spent-token-7f3a');
  });
});

describe('LocalLeaseStore', () => {
  it('lets exactly one of many contenders take a lease, and takes over an expired one', async () => {
    let now = 1_000;
    const store = new LocalLeaseStore(dir, { now: () => now });
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.acquire('publish/r/2026-11-18', { ttlMs: 500, owner: `o${i}` }),
      ),
    );
    expect(taken.filter((l) => l !== undefined)).toHaveLength(1);
    now += 1_000;
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.acquire('publish/r/2026-11-18', { ttlMs: 500, owner: `p${i}` }),
      ),
    );
    expect(after.filter((l) => l !== undefined)).toHaveLength(1);
  });

  it('never lets two of many contenders take over the same expired lease', async () => {
    let doubles = 0;
    for (let round = 0; round < 200; round++) {
      const root = path.join(dir, `race-${round}`);
      await fs.mkdir(path.join(root, 'k'), { recursive: true });
      await fs.writeFile(path.join(root, 'k', 'x.lease'), JSON.stringify({ owner: 'dead', expiresAt: 1 }));
      const got = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          new LocalLeaseStore(root).acquire('k/x', { ttlMs: 60_000, owner: `o${i}` }),
        ),
      );
      if (got.filter((l) => l !== undefined).length > 1) doubles++;
    }
    expect(doubles).toBe(0);
  });

  it('releases only its own lease', async () => {
    let now = 0;
    const store = new LocalLeaseStore(dir, { now: () => now });
    const first = await store.acquire('k', { ttlMs: 10, owner: 'a' });
    now = 100;
    const second = await store.acquire('k', { ttlMs: 1000, owner: 'b' });
    await first?.release();
    expect(await store.acquire('k', { ttlMs: 1000, owner: 'c' })).toBeUndefined();
    await second?.release();
    expect(await store.acquire('k', { ttlMs: 1000, owner: 'c' })).toBeDefined();
  });
});

describe('SecretTokenSource before a login', () => {
  it.each([
    [
      'a generated placeholder that is not JSON',
      { get: async () => parseSecret('service', 'x7#placeholder'), put: async () => {} },
    ],
    ['JSON without a refresh token', { get: async () => 'x7#placeholder', put: async () => {} }],
  ])('says to log in when the secret holds %s', async (_what, secrets) => {
    const source = new SecretTokenSource({
      secrets: secrets as never,
      secretName: 'service',
      leases: new LocalLeaseStore(path.join(dir, 'l')),
      refresh: async () => {
        throw new Error('not called');
      },
    });
    const error = await source.getAccessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoginRequiredError);
    expect((error as Error).message).toContain('log in');
  });
});
