import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshLeaseStoreUri, underRefreshLease } from '../../../../lib/cli/aws/secret-access';
import { resolveConfig, secretLocation } from '../../../../lib/cli/shared/config';
import { LocalLeaseStore } from '../../../../lib/stores/local-lease-store';
import { TOKEN_REFRESH_LEASE } from '../../../../lib/workflow/service-secret';

describe('refreshLeaseStoreUri (where the token-refresh lease lives)', () => {
  let work: string;

  beforeAll(async () => {
    work = await realpath(await mkdtemp(path.join(tmpdir(), 'refresh-lease-')));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const uriFrom = async (flags: Record<string, string>, cwd: string, env: NodeJS.ProcessEnv = {}) => {
    const config = await resolveConfig({ flags, env: {}, cwd });
    return fileURLToPath(await refreshLeaseStoreUri(config, env, secretLocation(config, cwd)));
  };

  it('puts it beside the secret file whatever the working directory, through symlinks', async () => {
    // Prepare: the secret in real/, reached as ../real/login.json from a and via a symlinked link/ from b.
    const real = path.join(work, 'real');
    await mkdir(real);
    await writeFile(path.join(real, 'login.json'), '{}');
    await symlink(real, path.join(work, 'link'));
    const a = path.join(work, 'a');
    const b = path.join(work, 'b');
    await mkdir(a);
    await mkdir(b);

    // Act
    const fromA = await uriFrom({ 'secret-file': '../real/login.json' }, a);
    const fromB = await uriFrom({ 'secret-file': path.join(work, 'link', 'login.json') }, b);

    // Assess
    expect(fromA).toBe(path.join(real, '.login.json.leases'));
    expect(fromB).toBe(fromA);
  });

  it('gives two secret files in one directory two leases', async () => {
    // Act
    const one = await uriFrom({ 'secret-file': 'prod.json' }, work);
    const two = await uriFrom({ 'secret-file': 'test.json' }, work);

    // Assess
    expect(one).not.toBe(two);
  });

  it('keys a Secrets Manager secret by its id in the user cache, not the working directory', async () => {
    // Prepare
    const cache = path.join(work, 'cache');
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ReportExport';

    // Act
    const fromA = await uriFrom({ 'secret-id': arn }, path.join(work, 'a'), { XDG_CACHE_HOME: cache });
    const fromB = await uriFrom({ 'secret-id': arn }, path.join(work, 'b'), { XDG_CACHE_HOME: cache });
    const other = await uriFrom({ 'secret-id': `${arn}-2` }, work, { XDG_CACHE_HOME: cache });

    // Assess
    expect(fromA).toBe(fromB);
    expect(path.dirname(fromA)).toBe(path.join(cache, 'report-export', 'leases'));
    expect(other).not.toBe(fromA);
  });

  it('uses the configured --lease-store when one is given', async () => {
    // Prepare
    const configured = path.join(work, 'shared-leases');

    // Act
    const uri = await uriFrom(
      { 'secret-file': 'x.json', 'lease-store': `file://${configured}` },
      path.join(work, 'a'),
    );

    // Assess
    expect(uri).toBe(configured);
  });
});

describe('underRefreshLease (a login storing new tokens)', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'refresh-lease-login-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('waits for a refresh in progress before writing, and releases the lease after', async () => {
    // Prepare: another command holds the refresh lease for 300 ms.
    const leases = new LocalLeaseStore(path.join(work, 'leases'));
    const held = await leases.acquire(TOKEN_REFRESH_LEASE, { ttlMs: 60_000, owner: 'refreshing' });
    const events: string[] = [];
    setTimeout(() => {
      events.push('released');
      void held?.release();
    }, 300);

    // Act
    await underRefreshLease(leases, async () => {
      events.push('written');
    });

    // Assess
    expect(events).toEqual(['released', 'written']);
    expect(await leases.holder(TOKEN_REFRESH_LEASE)).toBeUndefined();
  });

  it('writes anyway when the lease stays busy past the wait', async () => {
    // Prepare
    const leases = new LocalLeaseStore(path.join(work, 'busy'));
    await leases.acquire(TOKEN_REFRESH_LEASE, { ttlMs: 60_000, owner: 'stuck' });
    let written = false;

    // Act
    await underRefreshLease(
      leases,
      async () => {
        written = true;
      },
      { waitMs: 200 },
    );

    // Assess
    expect(written).toBe(true);
    expect((await leases.holder(TOKEN_REFRESH_LEASE))?.owner).toBe('stuck');
  });
});
