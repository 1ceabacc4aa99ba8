import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantEntry } from '../../../lib/workflow';
import { runInProcess } from '../../support/cli-in-process';

/**
 * npm start's tenants (the program's `main` in this process): the local registry it fills
 * on the first run is the user's to change, and one tenant's failure is that tenant's alone.
 */
describe('report-export (npm start) with the local tenants', () => {
  let work: string;
  const registry = () => path.join(work, 'state', 'tenants');
  const entry = async (id: string) =>
    JSON.parse(await readFile(path.join(registry(), `${id}.json`), 'utf8')) as TenantEntry;
  const start = () =>
    runInProcess(
      [
        '--report',
        'Lost calls',
        '--from',
        '2026-03-02',
        '--to',
        '2026-03-02',
        '--rows-per-day',
        '20',
        '--out',
        path.join(work, 'lake'),
        '--secret-file',
        path.join(work, 'state', 'secrets.json'),
      ],
      { cwd: work },
    );

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'start-tenants-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('fails the tenant whose entry names a workspace its grant does not reach, alone and named, skips a disabled one, and keeps both changes', async () => {
    // Prepare: a first run fills the registry; then new-york's entry names london's
    // workspace (its token reaches only its own tenant's) and sydney's is disabled.
    const first = await start();
    expect(first.code, first.stderr).toBe(0);
    const london = await entry('london');
    await writeFile(
      path.join(registry(), 'new-york.json'),
      JSON.stringify({ ...(await entry('new-york')), workspaceId: london.workspaceId }),
    );
    await writeFile(
      path.join(registry(), 'sydney.json'),
      JSON.stringify({ ...(await entry('sydney')), enabled: false }),
    );

    // Act
    const second = await start();

    // Assess: exit 1 naming new-york; london published; sydney not run.
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^export failed for tenant new-york: /m);
    expect(second.stderr).not.toMatch(/export failed for tenant (london|sydney)/);
    expect(second.stderr).toMatch(/^sydney: disabled in the registry .*: skipped$/m);
    expect(second.stdout).toMatch(
      /^Tenant london \(Acme Contact Centre, Europe\/London\): exported \d+ rows of 1 report/m,
    );
    expect(second.stdout).toMatch(/^Tenant new-york .*: FAILED/m);
    expect(second.stdout).not.toContain('Tenant sydney');
    expect(second.stdout).toContain('Calls per day: london');
    // The registry keeps what the user changed: the start writes only entries not there.
    expect((await entry('new-york')).workspaceId).toBe(london.workspaceId);
    expect((await entry('sydney')).enabled).toBe(false);
  }, 120_000);
});
