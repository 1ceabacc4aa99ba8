import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import type { JournalRecord } from '../../../lib/export/publish/journal';
import { type PublishContext, promote, stage } from '../../../lib/export/publish/publish';
import { recoverDeadStaging } from '../../../lib/export/publish/recover-staging';
import { DATASETS, tableSchema } from '../../../lib/export/schema';
import type { PartitionOutput } from '../../../lib/export/types';
import { LocalDirectoryStore, listAll, type ObjectStore, readObject } from '../../../lib/stores';
import { resultStreamOf } from '../../support/result-stream';
import { DyingStore, deadPid, diesBeforeItEnds, type Mutation } from './dying-store';
import { calls } from './earlier-run';
import { snapshot } from './failing-store';

/** 5 days x 2 formats = 10 partitions and formats: batches of 4, 4 and 2. */
const DAYS = 5;
const BATCH = 4;
const reportId = 'rep-1';
const isManifest = (key: string) => key.endsWith('/_manifest.json') && !key.startsWith('_staging/');

/** A machine-local store that never dies and logs every mutation in order, a put's body too. */
function recording(inner: ObjectStore): { store: DyingStore; log: Logged[] } {
  const log: Logged[] = [];
  const store = new DyingStore(inner, 1, (op, key, body) => {
    log.push({ op, key, ...(typeof body === 'string' ? { body } : {}) });
    return false;
  });
  return { store, log };
}

interface Logged {
  op: Mutation;
  key: string;
  body?: string;
}

describe('promote (a lake on this machine, in journal batches)', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;
  let partitions: PartitionOutput[];
  const runId = 'run-new';

  beforeEach(async () => {
    // Prepare (every case): an earlier run over the days, and a new run's part files.
    root = await mkdtemp(join(tmpdir(), 'journal-'));
    store = new LocalDirectoryStore(join(root, 'lake'));
    await exportReportResult({
      source: resultStreamOf(calls(DAYS, 3, 'old'), { requestId: 'req-old' }),
      store,
      reportId,
    });
    earlier = await snapshot(store);
    const dts = [...earlier.keys()].filter(isManifest).map((k) => /dt=([\d-]+)/.exec(k)?.[1] as string);
    partitions = await Promise.all(
      [...new Set(dts)].map(async (dt) => ({
        dt,
        rows: 1,
        files: await Promise.all(
          (['parquet', 'csv'] as const).map(async (format) => {
            const path = join(root, `${dt}.${format}`);
            const bytes = Buffer.from(`new ${dt} ${format}\n`);
            await writeFile(path, bytes);
            const sha256 = createHash('sha256').update(bytes).digest('hex');
            return { format, part: 0, path, rows: 1, bytes: bytes.length, sha256 };
          }),
        ),
      })),
    );
    expect(partitions).toHaveLength(DAYS);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const context = (target: ObjectStore): PublishContext => ({
    store: target,
    layout: { prefix: '', dataset: DATASETS.calls, reportId, csvExtension: '.csv' },
    schema: tableSchema(),
    runId,
    requestId: 'req-new',
    window: { from: null, to: null },
    exportedAt: '2026-06-10T00:00:00.000Z',
    reconciliation: null,
  });
  const publish = async (target: ObjectStore) => {
    await stage(context(target), partitions);
    await promote(context(target), partitions, { journalBatch: BATCH });
  };

  /** Makes the run's owner record name a process that has ended, as after a kill. */
  async function ownerDies(): Promise<void> {
    const key = `_staging/${runId}/_owner.json`;
    const record = JSON.parse(Buffer.from(await readObject(store, key)).toString()) as { host: string };
    expect(record.host).toBe(hostname());
    await store.put(key, JSON.stringify({ ...record, pid: deadPid(), start: '1' }));
  }

  it('writes one record per batch, after the backups it names and before any object of its batch is replaced', async () => {
    // Act
    const { store: recorded, log } = recording(store);
    await publish(recorded);

    // Assess
    const records = log.flatMap((m, at) =>
      m.op === 'put' && m.key.includes('/_journal/')
        ? [{ at, record: JSON.parse(m.body ?? '') as JournalRecord }]
        : [],
    );
    expect(records.map((r) => r.record.entries.length)).toEqual([4, 4, 2]);
    const named = records.flatMap((r) => r.record.entries.map((e) => e.partition));
    expect(new Set(named).size).toBe(2 * DAYS);
    for (const [i, { at, record }] of records.entries()) {
      const backups = new Set(record.entries.flatMap((e) => e.backups.map((b) => b.backup)));
      const prefixes = record.entries.map((e) => `${e.partition}/`);
      const backedUpAt = log.flatMap((m, j) => (m.op === 'copy' && backups.has(m.key) ? [j] : []));
      const replacedAt = log.flatMap((m, j) =>
        !m.key.startsWith('_staging/') && prefixes.some((p) => m.key.startsWith(p)) ? [j] : [],
      );
      expect(backedUpAt).toHaveLength(backups.size);
      expect(backups.size).toBeGreaterThanOrEqual(2 * record.entries.length);
      expect(Math.max(...backedUpAt)).toBeLessThan(at);
      expect(Math.min(...replacedAt)).toBeGreaterThan(at);
      const previous = records[i - 1];
      if (previous !== undefined) expect(Math.min(...backedUpAt)).toBeGreaterThan(previous.at);
    }
  });

  it('rolls back every batch of a run killed in its second, byte for byte', async () => {
    // Prepare: killed at its 6th manifest (the first batch promoted whole, the second begun).
    const dying = new DyingStore(store, BATCH + 2, (op, key) => op === 'put' && isManifest(key));
    await diesBeforeItEnds(dying, publish(dying));
    await ownerDies();
    expect(await listAll(store, `_staging/${runId}/_journal/`)).toHaveLength(2);

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', superseded: [] }]);
    expect(results[0]?.restored).toHaveLength(2 * BATCH);
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('recovers a run of an earlier version, which journaled each partition and format in a file of its own', async () => {
    // Prepare: a run killed in its second batch, its journal rewritten one entry per file.
    const dying = new DyingStore(store, BATCH + 2, (op, key) => op === 'put' && isManifest(key));
    await diesBeforeItEnds(dying, publish(dying));
    await ownerDies();
    for (const { key } of await listAll(store, `_staging/${runId}/_journal/`)) {
      const { entries } = JSON.parse(Buffer.from(await readObject(store, key)).toString()) as JournalRecord;
      await store.deleteMany([key]);
      for (const entry of entries)
        await store.put(`_staging/${runId}/_journal/${entry.partition}.json`, JSON.stringify(entry));
    }

    // Act
    const results = await recoverDeadStaging(store, '');

    // Assess
    expect(results).toMatchObject([{ runId, outcome: 'recovered', superseded: [] }]);
    expect(results[0]?.restored).toHaveLength(2 * BATCH);
    expect(await snapshot(store)).toEqual(earlier);
  });
});
