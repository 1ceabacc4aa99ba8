import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORT_ERROR_CODES, ExportConfigError, ExportError, TableCommitFailedError } from '../../errors';
import type { IcebergTable } from '../metadata/table-ref';
import { changePlan, type TableOverwrite } from '../snapshot/replace-partitions';
import { type CommitResult, commitOverwrite, commitSnapshot, overwriteWhat } from './commit';
import { Batching, type SetAsideRequest } from './commit-batch';
import { COMMIT_DEFAULTS, type CommitOptions } from './commit-loop';
import { checkRequest, MAX_REQUEST_BYTES, newRequest, requestKey } from './commit-requests';

/** How a grouped commit batches. */
export interface GroupCommitOptions extends CommitOptions {
  /** No writer commits a request older than this (its writer may be dead). @default 300000 */
  requestTtlMs?: number;
  /** Requests one snapshot carries at most, the writer's own included. @default 100 */
  maxBatch?: number;
  /** How long a writer whose request is not the oldest pending one waits before it looks again (jittered). @default 200 */
  followerWaitMs?: number;
  /** Looks at most before a follower commits itself, whatever the leader does. @default 50 */
  followerWaits?: number;
  /**
   * A pending request older than this no longer leads (its writer may be dead or stuck):
   * the next writer commits it with its own. @default 10000
   */
  leaderPatienceMs?: number;
  /** Told of each other committer's request this one finds invalid and sets aside (to log it). */
  onSetAside?: (request: SetAsideRequest) => void;
}

/** A grouped commit's result: the snapshot, its own counts, and the invalid requests it set aside. */
export interface GroupCommitResult extends CommitResult {
  setAside: SetAsideRequest[];
}

export const GROUP_COMMIT_DEFAULTS = {
  requestTtlMs: 5 * 60_000,
  maxBatch: 100,
  followerWaitMs: 200,
  followerWaits: 50,
  leaderPatienceMs: 10_000,
} as const;
/**
 * Commits a tenant's overwrite together with the other tenants' pending ones (a group
 * commit): writes its change as a commit request (commit-requests.ts), and lets the writer
 * of the oldest pending request commit every pending request that touches no partition of an
 * older one in ONE snapshot, whose summary names them (COMMIT_REQUESTS_KEY). A writer whose
 * request is not the oldest waits a little first, and usually finds itself committed; a
 * commit that meets another writer's re-plans (the commit loop) and finds itself landed when
 * that writer carried it. Resolves with the snapshot that holds the change and the change's
 * own counts. Deletes its request once landed or given up, never its data files (a commit of
 * another writer may name them).
 *
 * @example
 * const result = await commitOverwriteGrouped(table, {
 *   tenant: 'acme', reportId: 'r1', dts: ['2026-11-25'],
 *   files: [{ key, dt: '2026-11-25', rows: 1200, bytes: 80_000 }],
 *   summary: { 'report-export.run-id': runId },
 * });
 */
export async function commitOverwriteGrouped(
  t: IcebergTable,
  change: TableOverwrite,
  options: GroupCommitOptions = {},
): Promise<GroupCommitResult> {
  const { tenant } = change;
  if (tenant === undefined)
    throw new ExportConfigError("A grouped commit is a tenant's: the change names no tenant");
  changePlan(t.location, change);
  const settings = { ...GROUP_COMMIT_DEFAULTS, ...definedOf(options) };
  const maxAttempts = options.maxAttempts ?? COMMIT_DEFAULTS.maxAttempts;
  const now = options.now ?? Date.now;
  const store = t.location.store;
  const own = newRequest({ ...change, tenant }, now(), settings.requestTtlMs);
  const ownKey = requestKey(t.location, own);
  checkRequest(t.location, ownKey, own);
  const what = overwriteWhat(t, change);
  const batching = new Batching(
    t,
    own,
    ownKey,
    settings.maxBatch,
    settings.leaderPatienceMs,
    now,
    settings.requestTtlMs,
    options.onSetAside,
  );
  const body = JSON.stringify(own);
  // A request other committers would refuse as too large (thousands of files) commits alone.
  if (Buffer.byteLength(body) > MAX_REQUEST_BYTES) {
    const { signal, maxAttempts: attempts, baseDelayMs, now: clock, expire } = options;
    const alone = await commitOverwrite(t, change, {
      ...(signal === undefined ? {} : { signal }),
      ...(attempts === undefined ? {} : { maxAttempts: attempts }),
      ...(baseDelayMs === undefined ? {} : { baseDelayMs }),
      ...(clock === undefined ? {} : { now: clock }),
      ...(expire === undefined ? {} : { expire }),
    });
    return { ...alone, setAside: [] };
  }
  await store.put(ownKey, body, { contentType: 'application/json' });
  batching.requests++;
  const total = batching.counts;
  const cleanup: string[] = [];
  try {
    for (let waits = 0, rounds = 0; ; ) {
      throwIfAborted(what, options.signal);
      if (waits < settings.followerWaits) {
        const look = await batching.look();
        if (look.landed !== undefined) return { ...look.landed, setAside: batching.setAside };
        if (!look.leads) {
          waits++;
          await wait(settings.followerWaitMs, what, options.signal);
          continue;
        }
      }
      const result = await commitSnapshot(
        t,
        (current) => batching.plan(current),
        what,
        { ...options, maxAttempts: Math.max(1, maxAttempts - total.attempts) },
        batching.landing,
      );
      total.attempts += result.attempts;
      total.conflicts += result.conflicts;
      const done = {
        ...result,
        ...total,
        requests: result.requests + batching.requests,
        setAside: batching.setAside,
      };
      if (batching.found) return done;
      const mine = batching.ownCounts();
      // The batch committed: its requests are done (the others' writers find them landed).
      cleanup.push(...batching.batchKeys());
      if (mine !== undefined) return { ...done, ...mine };
      // An older request of the same partition went first; ours is in a later snapshot.
      if (++rounds >= maxAttempts || total.attempts >= maxAttempts) {
        throw new TableCommitFailedError(
          `${what} did not land after ${total.attempts} attempts: older requests of its partitions kept landing first`,
          total,
        );
      }
    }
  } finally {
    await store.deleteMany([ownKey, ...cleanup]).catch(() => undefined);
  }
}

function definedOf(options: GroupCommitOptions): Partial<typeof GROUP_COMMIT_DEFAULTS> {
  return Object.fromEntries(
    Object.entries({
      requestTtlMs: options.requestTtlMs,
      maxBatch: options.maxBatch,
      followerWaitMs: options.followerWaitMs,
      followerWaits: options.followerWaits,
      leaderPatienceMs: options.leaderPatienceMs,
    }).filter(([, v]) => v !== undefined),
  );
}

function throwIfAborted(what: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new ExportError(
      EXPORT_ERROR_CODES.aborted,
      `${what} was aborted; a commit of another writer already under way may still carry it`,
      {
        cause: signal.reason,
      },
    );
  }
}

/** A follower's wait: jittered between half and one and a half of `ms`. */
async function wait(ms: number, what: string, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms * (0.5 + Math.random()), undefined, signal === undefined ? undefined : { signal });
  } catch {
    throwIfAborted(what, signal);
  }
}
