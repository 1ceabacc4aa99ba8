import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { commitStagedRuns, LakeTables, StagedRunRef } from '../../../lib/export';
import type { ObjectStore } from '../../../lib/stores';
import { LocalLeaseStore } from '../../../lib/stores/local-lease-store';
import { type CommitTaskInput, commitRun } from '../../../lib/workflow/commit-task';
import { publishLease } from '../../../lib/workflow/export-task';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function leases() {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'commit-task-'));
  return new LocalLeaseStore(dir);
}

const tables = { catalog: {}, namespace: '' } as unknown as LakeTables;
const store = {} as ObjectStore;

/** Two jobs of tenant acme: one with two staged runs (calls), one a summary with one. */
const input: CommitTaskInput = {
  runId: 'run-1',
  tenant: 'acme',
  executionName: 'nightly',
  results: [
    {
      jobId: 'job-0001',
      reportId: 'r1',
      progress: {
        dataset: 'calls',
        staged: [
          { key: 'k1', runId: 'a', dts: ['2026-11-18'] },
          { key: 'k2', runId: 'b', dts: ['2026-11-17'] },
        ],
      },
    },
    {
      jobId: 'job-0002',
      reportId: 'r2',
      progress: { dataset: 'summaries', staged: [{ key: 'k3', runId: 'c', dts: ['2026-11-18'] }] },
    },
    { jobId: 'job-0003', reportId: 'r3', progress: { staged: [] } },
  ],
};

describe('commitRun', () => {
  it('commits every staged run of the execution in one call and names per job its snapshot or why a run was refused', async () => {
    // Prepare: the core refuses k2 and lands one snapshot per table.
    const calls: { refs: readonly StagedRunRef[]; tenant?: string | undefined }[] = [];
    const locked: string[][] = [];
    const l = await leases();
    const commit: typeof commitStagedRuns = async (target, refs, options) => {
      calls.push({ refs, tenant: target.tenant });
      const release = await options?.lock?.([
        { reportId: 'r2', dt: '2026-11-18' },
        { reportId: 'r1', dt: '2026-11-18' },
      ]);
      locked.push(
        await Promise.all(
          ['r1', 'r2'].map(async (r) =>
            (await l.acquire(publishLease(r, '2026-11-18', 'acme'), { ttlMs: 60_000, owner: 'other' })) ===
            undefined
              ? 'held'
              : 'free',
          ),
        ),
      );
      await release?.();
      const base = { rows: 1, partitions: 1 };
      return {
        runs: [
          { key: 'k1', reportId: 'r1', runId: 'a', status: 'committed', ...base },
          {
            key: 'k2',
            reportId: 'r1',
            runId: 'b',
            status: 'invalid',
            reason: 'its data file is 3 bytes, not 9',
            ...base,
          },
          // A newer export had published one of its days: kept, named.
          {
            key: 'k3',
            reportId: 'r2',
            runId: 'c',
            status: 'committed',
            ...base,
            superseded: ['2026-11-18'],
          },
        ],
        tables: [
          {
            dataset: 'calls',
            catalog: 'file',
            table: 'calls',
            snapshotId: 11,
            sequenceNumber: 2,
            attempts: 1,
            conflicts: 0,
          },
          {
            dataset: 'summaries',
            catalog: 'file',
            table: 'summaries',
            snapshotId: 22,
            sequenceNumber: 2,
            attempts: 1,
            conflicts: 0,
          },
        ],
      };
    };
    // Act
    const out = await commitRun(input, { commit, store, prefix: 'lake', tables, leases: l, owner: 'me' });
    // Assess
    expect(calls).toHaveLength(1);
    expect(calls[0]?.tenant).toBe('acme');
    expect(calls[0]?.refs.map((r) => [r.key, r.reportId, r.tenant])).toEqual([
      ['k1', 'r1', 'acme'],
      ['k2', 'r1', 'acme'],
      ['k3', 'r2', 'acme'],
    ]);
    expect(locked).toEqual([['held', 'held']]);
    expect(out.status).toBe('COMMITTED');
    expect(out.jobs).toEqual([
      {
        jobId: 'job-0001',
        status: 'invalid',
        runs: 1,
        invalidRuns: 1,
        snapshots: [{ table: 'calls', snapshotId: 11 }],
        reason: 'its data file is 3 bytes, not 9',
      },
      {
        jobId: 'job-0002',
        status: 'committed',
        runs: 1,
        invalidRuns: 0,
        snapshots: [{ table: 'summaries', snapshotId: 22 }],
        superseded: 1,
      },
    ]);
  });

  it('fails LeaseBusyError, releasing the leases it took, when another execution holds a partition', async () => {
    // Prepare: r2's day is held by another execution.
    const l = await leases();
    await l.acquire(publishLease('r2', '2026-11-18', 'acme'), { ttlMs: 60_000, owner: 'other' });
    const commit: typeof commitStagedRuns = async (_t, _r, options) => {
      await options?.lock?.([
        { reportId: 'r1', dt: '2026-11-18' },
        { reportId: 'r2', dt: '2026-11-18' },
      ]);
      return { runs: [], tables: [] };
    };
    // Act
    const error = await commitRun(input, {
      commit,
      store,
      prefix: 'lake',
      tables,
      leases: l,
      owner: 'me',
    }).catch((e: Error) => e);
    // Assess: r1's lease was given back.
    expect((error as Error).name).toBe('LeaseBusyError');
    const r1 = await l.acquire(publishLease('r1', '2026-11-18', 'acme'), { ttlMs: 60_000, owner: 'third' });
    expect(r1).toBeDefined();
  });

  it('commits nothing when no job staged a run (a held-only run)', async () => {
    // Prepare
    const l = await leases();
    let called = false;
    const commit: typeof commitStagedRuns = async () => {
      called = true;
      return { runs: [], tables: [] };
    };
    const held = { ...input, results: [{ jobId: 'job-0001', reportId: 'r1', progress: { staged: [] } }] };
    // Act
    const out = await commitRun(held, { commit, store, prefix: 'lake', tables, leases: l, owner: 'me' });
    // Assess
    expect(called).toBe(false);
    expect(out).toEqual({ status: 'NOTHING', tables: [], jobs: [] });
  });
});
