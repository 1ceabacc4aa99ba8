import { readdir, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { journalEntriesOf } from '../../../lib/export/publish/journal';
import { recoverDeadStaging } from '../../../lib/export/publish/recover-staging';
import { type LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { resultStreamOf } from '../../support/result-stream';
import { DyingStore, deadPid, diesBeforeItEnds, type Mutation } from './dying-store';
import { calls, earlierRun } from './earlier-run';
import { snapshot } from './failing-store';

const isManifest = (key: string) => key.endsWith('/_manifest.json') && !key.startsWith('_staging/');

describe('recoverDeadStaging (a local run killed while it published)', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;
  const reportId = 'rep-1';

  beforeEach(async () => {
    ({ root, store, earlier } = await earlierRun('recover-', reportId));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The staging roots (run ids) under `area` (a tenant's: `_staging/tenant=<t>/`). */
  async function stagingRuns(area = '_staging/'): Promise<string[]> {
    const keys = (await listAll(store, area)).map((o) => o.key.slice(area.length).split('/')[0] as string);
    return [...new Set(keys)];
  }

  /** Makes the run's owner record name a process that has ended, as after a kill. */
  async function ownerDies(runId: string, area = '_staging/'): Promise<void> {
    const key = `${area}${runId}/_owner.json`;
    const record = JSON.parse(Buffer.from(await readObject(store, key)).toString()) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ host: hostname(), pid: process.pid, runId });
    await store.put(key, JSON.stringify({ ...record, pid: deadPid(), start: '1' }));
  }

  /** Starts a smaller run (1 part per partition) that dies at the n-th mutation matching `at`. */
  async function runThatDies(
    nth: number,
    at: (operation: Mutation, key: string) => boolean,
    tenant?: string,
  ): Promise<string> {
    const dying = new DyingStore(store, nth, at);
    const run = exportReportResult({
      source: resultStreamOf(calls(3, 3, 'new'), { requestId: 'req-new' }),
      store: dying,
      reportId,
      maxRowsPerFile: 4,
      forceReplace: true,
      ...(tenant === undefined ? {} : { tenant }),
    });
    await diesBeforeItEnds(dying, run);
    const area = tenant === undefined ? '_staging/' : `_staging/tenant=${tenant}/`;
    const [runId] = await stagingRuns(area);
    expect(runId).toBeDefined();
    await ownerDies(runId as string, area);
    return runId as string;
  }

  it('rolls a half-done promotion back to the earlier partitions, byte for byte, and deletes the staging', async () => {
    // Prepare: the run dies at its 3rd manifest: two partitions promoted (their stale parts
    // maybe not deleted yet), others with new parts under the old manifest.
    const runId = await runThatDies(3, (op, key) => op === 'put' && isManifest(key));
    const manifests = await Promise.all(
      [...earlier.keys()]
        .filter(isManifest)
        .map(async (k) => JSON.parse(Buffer.from(await readObject(store, k)).toString()).runId as string),
    );
    expect(manifests.filter((r) => r === runId)).toHaveLength(2);
    const journal = await listAll(store, `_staging/${runId}/_journal/`);
    const entries = await Promise.all(
      journal.map(async (o) => journalEntriesOf(Buffer.from(await readObject(store, o.key)).toString())),
    );
    expect(entries.flat().length).toBeGreaterThan(2);
    // Writes the kill cut short: temporary files beside a key, which listings never show.
    const cutShort = [
      'calls/format=csv/report_id=rep-1/dt=2026-06-01/_manifest.json.~tmp-1',
      `_staging/${runId}/calls/format=csv/report_id=rep-1/dt=2026-06-03/part-00000.csv.~tmp-2`,
    ];
    for (const key of cutShort) await writeFile(join(root, key), 'partial');

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', superseded: [] }]);
    expect(results[0]?.restored.length).toBeGreaterThan(2);
    expect(await snapshot(store)).toEqual(earlier);
    const files = (await readdir(root, { recursive: true })).map(String);
    expect(files.filter((f) => f.includes('.~tmp-') || f.startsWith('_staging'))).toEqual([]);
  });

  it("recovers a tenant's run from its staging under _staging/tenant=<t>/, leaving the other partitions", async () => {
    // Prepare: a tenant's run dies at its 3rd manifest, two of its partitions promoted.
    const runId = await runThatDies(3, (op, key) => op === 'put' && isManifest(key), 'acme');
    expect((await listAll(store, 'calls/format=csv/tenant=acme/')).length).toBeGreaterThan(0);

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess: its new partitions rolled back (they had none before), the earlier ones untouched.
    expect(results).toMatchObject([
      { runId, tenant: 'acme', root: `_staging/tenant=acme/${runId}`, outcome: 'recovered', superseded: [] },
    ]);
    expect(results[0]?.restored.every((p) => p.includes('/tenant=acme/report_id='))).toBe(true);
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('leaves partitions another run has published since and still deletes the staging', async () => {
    // Prepare: the run dies mid-promotion; a later run publishes the same days.
    const runId = await runThatDies(3, (op, key) => op === 'put' && isManifest(key));
    await exportReportResult({
      source: resultStreamOf(calls(3, 5, 'later'), { requestId: 'req-later' }),
      store,
      reportId,
      forceReplace: true,
    });
    const later = new Map([...(await snapshot(store))].filter(([k]) => !k.startsWith('_staging/')));

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', restored: [] }]);
    expect(results[0]?.superseded.length).toBeGreaterThan(2);
    expect(await snapshot(store)).toEqual(later);
  });

  it('deletes the staging of a run that died while staging, publishing nothing', async () => {
    // Prepare: the 3rd staged file is never written.
    const runId = await runThatDies(3, (op, key) => op === 'put' && key.startsWith('_staging/'));

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', restored: [], superseded: [] }]);
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('keeps the new partitions of a run that died while deleting its staging after promoting', async () => {
    // Prepare: the run promoted every partition, deleted its journal, then died.
    const runId = await runThatDies(2, (op, key) => op === 'deleteMany' && key.startsWith('_staging/'));
    expect(await listAll(store, `_staging/${runId}/_journal/`)).toEqual([]);
    const promoted = new Map([...(await snapshot(store))].filter(([k]) => !k.startsWith('_staging/')));

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', restored: [] }]);
    expect(await snapshot(store)).toEqual(promoted);
    expect([...promoted.values()]).not.toEqual([...earlier.values()]);
  });

  it('finishes the rollback when the recovery itself dies half-way', async () => {
    // Prepare: the run dies mid-promotion; a first recovery dies at its 4th copy.
    const runId = await runThatDies(3, (op, key) => op === 'put' && isManifest(key));
    const dyingRecovery = new DyingStore(store, 4, (op) => op === 'copy');
    await diesBeforeItEnds(dyingRecovery, recoverDeadStaging(dyingRecovery, ''));

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered' }]);
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('leaves the staging of a run whose process still runs, of another host, or with no owner', async () => {
    // Prepare: a live run (this process) dies nowhere but is stopped before promoting.
    const live = new DyingStore(store, 1, (op, key) => op === 'copy' && !key.startsWith('_staging/'));
    const run = exportReportResult({
      source: resultStreamOf(calls(3, 3, 'new'), { requestId: 'req-new' }),
      store: live,
      reportId,
      forceReplace: true,
    });
    await diesBeforeItEnds(live, run);
    const [liveRun] = await stagingRuns();
    await store.put(
      '_staging/elsewhere-1/_owner.json',
      JSON.stringify({ host: `not-${hostname()}`, pid: deadPid(), runId: 'elsewhere-1', at: '' }),
    );
    await store.put('_staging/elsewhere-1/calls/x.parquet', 'x');
    await store.put('_staging/old-version-1/calls/x.parquet', 'x');
    const before = await snapshot(store);

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results.map((r) => [r.runId, r.outcome]).sort()).toEqual([
      ['elsewhere-1', 'other-host'],
      ['old-version-1', 'unowned'],
    ]);
    expect(liveRun).toBeDefined();
    expect(await snapshot(store)).toEqual(before);
  });

  it("deletes a run's objects in the staging's own folders once no live process owns the run", async () => {
    // Prepare: an ended run's staged directory sync and sync report (a tenant's), and those of
    // a run whose staging a live process (another host's, left alone) still owns.
    await store.put('_staging/tenant=acme/_directory-syncs/gone-1/d1.json', '{}');
    await store.put('_staging/tenant=acme/_directory-sync-reports/gone-1.json', '{}');
    await store.put(
      '_staging/elsewhere-1/_owner.json',
      JSON.stringify({ host: `not-${hostname()}`, pid: deadPid(), runId: 'elsewhere-1', at: '' }),
    );
    await store.put('_staging/_directory-syncs/elsewhere-1/d1.json', '{}');

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess: the ended run's go (neither folder is taken for a run), the owned one's stay.
    expect(results.map((r) => [r.runId, r.tenant ?? null, r.outcome]).sort()).toEqual([
      ['elsewhere-1', null, 'other-host'],
      ['gone-1', 'acme', 'recovered'],
    ]);
    expect((await listAll(store, '_staging/')).map((o) => o.key).sort()).toEqual([
      '_staging/_directory-syncs/elsewhere-1/d1.json',
      '_staging/elsewhere-1/_owner.json',
    ]);
  });

  it('does nothing in a store that is not machine-local, where runs write no owner record nor journal', async () => {
    // Prepare: a store that does not say it is machine-local (as S3 does not), dying mid-promotion.
    const remote = new DyingStore(store, 3, (op, key) => op === 'put' && isManifest(key));
    Object.defineProperty(remote, 'machineLocal', { value: false });
    const run = exportReportResult({
      source: resultStreamOf(calls(3, 3, 'new'), { requestId: 'req-new' }),
      store: remote,
      reportId,
      maxRowsPerFile: 4,
      forceReplace: true,
    });
    await diesBeforeItEnds(remote, run);
    const left = await snapshot(store);

    // Act
    const results = await recoverDeadStaging(remote, '');

    // Assess
    expect(results).toEqual([]);
    expect(await snapshot(store)).toEqual(left);
    expect([...left.keys()].filter((k) => /_owner\.json|_journal\//.test(k))).toEqual([]);
    expect([...left.keys()].some((k) => k.includes('/_backup/'))).toBe(true);
  });
});
