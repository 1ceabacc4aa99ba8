import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalDirectoryStore } from '../../../lib/stores';
import { runInProcess } from '../../support/cli-in-process';
import { useStoreFetch } from '../../support/store-fetch';
import { useTempDir } from '../../support/test-scope';
import { csvParts, csvRows, tableRows } from '../tables/tenant-check';
import { forcedRollback, writeTenantLake } from '../tables/tenant-lake';

const PER_TENANT = 'SELECT tenant, count(*)::INTEGER AS n FROM calls GROUP BY ALL ORDER BY ALL';

describe('report-export tenants remove --delete-data, then the history (a local deployment)', () => {
  const dir = useTempDir('tenant-remove-data-');
  const serve = useStoreFetch();

  it("takes the tenant's rows out in one snapshot per table, keeps the files earlier snapshots list, and a rollback to before it works; with those files gone it refuses naming them", async () => {
    // Prepare: a multi-tenant lake (acme and bruin) and acme's lease in the local deployment.
    const cwd = dir();
    const root = path.join(cwd, 'data-lake');
    await mkdir(root);
    const store = new LocalDirectoryStore(root);
    serve(store);
    const { target } = await writeTenantLake(store);
    const lease = path.join(cwd, '.report-export', 'leases', 'tenant=acme', 'publish', 'calls-1');
    await mkdir(lease, { recursive: true });
    await writeFile(path.join(lease, '2026-11-20.lease'), '{}');
    const snapshots = async () =>
      JSON.parse((await runInProcess(['tables', 'snapshots', '--dir', root, '--json'])).stdout) as {
        table: string;
        current: boolean;
      }[];
    const before = await snapshots();
    const bruin = await tableRows(root, 'calls', 'bruin', ['conn_id', 'start']);
    const acmeFiles = path.join(root, 'tables', 'calls', 'data', 'tenant=acme');

    // Act
    const removed = await runInProcess(['tenants', 'remove', 'acme', '--delete-data', '--yes', '--json'], {
      cwd,
    });
    const afterRemoval = await runInProcess(['query', '--dir', root, '--json', PER_TENANT]);
    const asOf = await runInProcess([
      'query',
      '--dir',
      root,
      '--json',
      '--as-of',
      String(target),
      PER_TENANT,
    ]);

    // Assess: one snapshot per table; acme's CSV, staging and lease gone; its table files kept.
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ tenant: 'acme', data: { commits: 2 } });
    expect((await snapshots()).length).toBe(before.length + 2);
    expect(JSON.parse(afterRemoval.stdout)).toEqual([{ tenant: 'bruin', n: 8 }]);
    expect(await csvParts(root, 'calls', 'acme')).toEqual([]);
    await expect(stat(path.join(cwd, '.report-export', 'leases', 'tenant=acme'))).rejects.toThrow();
    expect((await readdir(acmeFiles, { recursive: true })).some((f) => f.endsWith('.parquet'))).toBe(true);
    // Time travel to before the removal still reads acme's rows.
    expect(asOf.code, asOf.stderr).toBe(0);
    expect(JSON.parse(asOf.stdout)).toContainEqual({ tenant: 'acme', n: 9 });
    expect(await tableRows(root, 'calls', 'bruin', ['conn_id', 'start'])).toEqual(bruin);

    // Act: roll acme back to before its removal: its rows and its CSV come back.
    const back = await runInProcess(forcedRollback(root, target, 'acme'));

    // Assess
    expect(back.code, back.stderr).toBe(0);
    const csv = await csvRows(root, 'calls', 'acme');
    expect(csv.rows).toHaveLength(9);
    expect(await tableRows(root, 'calls', 'acme', csv.columns)).toEqual(csv.rows);

    // Act: the files gone (as orphan deletion takes them once the snapshots expire), then a
    // rollback again to the target after acme's partitions are emptied once more.
    const removedAgain = await runInProcess(['tenants', 'remove', 'acme', '--delete-data', '--yes'], { cwd });
    await rm(acmeFiles, { recursive: true });
    const refused = await runInProcess(forcedRollback(root, target, 'acme'));

    // Assess: refused naming the missing files; the table stays readable for everyone.
    expect(removedAgain.code, removedAgain.stderr).toBe(0);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /data files? of the target no longer exists?.*tenant=acme.*no reader can read; nothing rolled back/,
    );
    expect(await tableRows(root, 'calls', 'bruin', ['conn_id', 'start'])).toEqual(bruin);
    expect(JSON.parse((await runInProcess(['query', '--dir', root, '--json', PER_TENANT])).stdout)).toEqual([
      { tenant: 'bruin', n: 8 },
    ]);
  });
});
