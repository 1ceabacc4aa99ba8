import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORT_ERROR_CODES, ExportConfigError, ExportError, TableCommitFailedError } from '../errors';
import {
  type ChangePlan,
  type CommitResult,
  changePlan,
  commitSnapshot,
  type Landing,
  type OverwriteChange,
  overwriteWhat,
  type PlannedOverwrite,
} from './commit';
import { COMMIT_DEFAULTS, type CommitCounts, type CommitOptions } from './commit-loop';
import {
  type CommitRequest,
  checkRequest,
  keyParts,
  newRequest,
  readRequest,
  requestKey,
  requestsPrefix,
} from './commit-requests';
import { dateToDays } from './manifest-codec';
import { tableIo } from './manifest-io';
import { checkTenancy, type OverwriteCounts } from './snapshot-builder';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';
import type { PartitionValue, Snapshot, TableMetadata } from './types';

/** Summary key of a grouped commit's snapshot: the request ids it carries, comma-joined, oldest first. */
export const COMMIT_REQUESTS_KEY = 'report-export.commit-requests';
/**
 * Summary key of a grouped commit's snapshot: per request (in the order of COMMIT_REQUESTS_KEY)
 * `<added files>:<deleted files>:<added rows>:<deleted rows>`, comma-joined.
 */
export const COMMIT_REQUEST_COUNTS_KEY = 'report-export.commit-request-counts';

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
}

export const GROUP_COMMIT_DEFAULTS = {
  requestTtlMs: 5 * 60_000,
  maxBatch: 100,
  followerWaitMs: 200,
  followerWaits: 50,
  leaderPatienceMs: 10_000,
} as const;
/** Request keys listed at most per look (a table with more pending requests commits the oldest first). */
const MAX_LISTED = 1_000;
const READ_CONCURRENCY = 16;
const LIST_TRIES = 8;

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
  change: OverwriteChange,
  options: GroupCommitOptions = {},
): Promise<CommitResult> {
  const { tenant } = change;
  if (tenant === undefined)
    throw new ExportConfigError("A grouped commit is a tenant's: the change names no tenant");
  changePlan(t, change);
  const settings = { ...GROUP_COMMIT_DEFAULTS, ...definedOf(options) };
  const maxAttempts = options.maxAttempts ?? COMMIT_DEFAULTS.maxAttempts;
  const now = options.now ?? Date.now;
  const store = t.location.store;
  const own = newRequest({ ...change, tenant }, now(), settings.requestTtlMs);
  const ownKey = requestKey(t.location, own);
  checkRequest(t.location, ownKey, own);
  const what = overwriteWhat(t, change);
  const batching = new Batching(t, own, ownKey, settings.maxBatch, settings.leaderPatienceMs, now);
  await store.put(ownKey, JSON.stringify(own), { contentType: 'application/json' });
  batching.requests++;
  const total = batching.counts;
  const cleanup: string[] = [];
  try {
    for (let waits = 0, rounds = 0; ; ) {
      throwIfAborted(what, options.signal);
      if (waits < settings.followerWaits) {
        const look = await batching.look();
        if (look.landed !== undefined) return look.landed;
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
      const done = { ...result, ...total, requests: result.requests + batching.requests };
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

/** One writer's view of the pending requests: what each attempt carries, and whether its own landed. */
class Batching {
  requests = 0;
  /** Commit attempts and conflicts of every round so far. */
  readonly counts: CommitCounts = { attempts: 0, conflicts: 0 };
  /** Set once its request was found in a snapshot (landed by any writer). */
  found = false;
  /** Requests read (immutable once written): null for an invalid or vanished one. */
  readonly #read = new Map<string, CommitRequest | null>();
  #batch: CommitRequest[] = [];
  #stale: string[] = [];
  #tallies: OverwriteCounts[] = [];

  constructor(
    readonly t: IcebergTable,
    readonly own: CommitRequest,
    readonly ownKey: string,
    readonly maxBatch: number,
    readonly leaderPatienceMs: number,
    readonly now: () => number,
  ) {}

  readonly landing: Landing = {
    find: (current) => {
      const snapshot = current.metadata.snapshots.find((s) => requestIds(s).includes(this.own.requestId));
      if (snapshot !== undefined) this.found = true;
      return snapshot;
    },
    counts: (snapshot) => countsIn(snapshot, this.own.requestId),
  };

  /** The table now, whether its own request landed, and whether it is the oldest pending request. */
  async look(): Promise<{ landed?: CommitResult; leads: boolean }> {
    // An older request whose writer still lives (younger than the patience) leads.
    const io = tableIo(this.t.location);
    const loaded = await loadTable(this.t, io);
    this.requests += io.requests;
    // No table: the commit says so.
    if (loaded === undefined) return { leads: true };
    const landed = this.landing.find(loaded);
    if (landed !== undefined) return { landed: this.landedResult(loaded, landed), leads: false };
    const older = (await this.pending(loaded.metadata))
      .filter((k) => k < this.ownKey)
      .slice(0, this.maxBatch);
    const live = await this.readAll(older);
    const now = this.now();
    const leading = (r: CommitRequest | null) =>
      r !== null && r.expiresAt > now && r.createdAt + this.leaderPatienceMs > now;
    return { leads: !live.some(leading) };
  }

  landedResult(loaded: LoadedTable, snapshot: Snapshot): CommitResult {
    return {
      snapshotId: snapshot['snapshot-id'],
      sequenceNumber: snapshot['sequence-number'],
      metadataLocation: loaded.base.metadataLocation,
      attempts: this.counts.attempts,
      conflicts: this.counts.conflicts,
      ...countsIn(snapshot, this.own.requestId),
      requests: this.requests,
    };
  }

  /** One attempt's overwrite: the pending requests of disjoint partitions, oldest first. */
  async plan(current: LoadedTable): Promise<PlannedOverwrite> {
    checkTenancy(current.metadata, this.own.tenant, tableName(this.t));
    const keys = await this.pending(current.metadata);
    if (!keys.includes(this.ownKey)) keys.push(this.ownKey);
    // The oldest ones, and every older one of its own tenant (it may hold one of its partitions).
    let others = 0;
    const chosen = keys.filter(
      (k) =>
        k === this.ownKey ||
        (k < this.ownKey && keyParts(this.t.location, k)?.tenant === this.own.tenant) ||
        ++others < this.maxBatch,
    );
    const read = await this.readAll(chosen.filter((k) => k !== this.ownKey));
    const byKey = new Map(chosen.filter((k) => k !== this.ownKey).map((k, i) => [k, read[i]]));
    const seen = new Set<string>();
    const batch: CommitRequest[] = [];
    const plans: ChangePlan[] = [];
    const stale: string[] = [];
    for (const key of chosen) {
      const request = key === this.ownKey ? this.own : byKey.get(key);
      if (request == null) continue;
      if (request !== this.own && request.expiresAt <= this.now()) {
        stale.push(key);
        continue;
      }
      const partitions = request.dts.map((dt) =>
        partitionKey(request.tenant, request.reportId, dateToDays(dt)),
      );
      const free = partitions.every((p) => !seen.has(p));
      for (const p of partitions) seen.add(p);
      if (!free || batch.length >= this.maxBatch) continue;
      batch.push(request);
      plans.push(changePlan(this.t, request));
    }
    const index = new Map<string, number>();
    for (const [i, r] of batch.entries()) {
      for (const dt of r.dts) index.set(partitionKey(r.tenant, r.reportId, dateToDays(dt)), i);
    }
    const tallies = batch.map((r) => ({
      addedFiles: r.files.length,
      deletedFiles: 0,
      addedRows: r.files.reduce((n, f) => n + f.rows, 0),
      deletedRows: 0,
    }));
    this.#batch = batch;
    this.#stale = stale;
    this.#tallies = tallies;
    return {
      mayDelete: (manifest) => plans.some((p) => p.mayHold(manifest)),
      deletes: ({ data_file: file }) => {
        const tally = tallies[index.get(partitionOf(file.partition)) ?? -1];
        if (tally === undefined) return false;
        tally.deletedFiles++;
        tally.deletedRows += Number(file.record_count);
        return true;
      },
      adds: plans.flatMap((p) => p.adds),
      summary: { ...batchSummary(batch), [COMMIT_REQUESTS_KEY]: batch.map((r) => r.requestId).join(',') },
      lateSummary: () => ({
        [COMMIT_REQUEST_COUNTS_KEY]: tallies
          .map((c) => `${c.addedFiles}:${c.deletedFiles}:${c.addedRows}:${c.deletedRows}`)
          .join(','),
      }),
    };
  }

  /** Its own counts in the batch last committed, undefined when the batch did not carry it. */
  ownCounts(): OverwriteCounts | undefined {
    return this.#tallies[this.#batch.indexOf(this.own)];
  }

  /** The keys of the batch last committed and of the requests it found landed or expired. */
  batchKeys(): string[] {
    return [...this.#batch.map((r) => requestKey(this.t.location, r)), ...this.#stale];
  }

  /** Listed request keys, oldest first, without those a snapshot of `metadata` carries (stale, deleted later). */
  async pending(metadata: TableMetadata): Promise<string[]> {
    const landed = new Set(metadata.snapshots.flatMap(requestIds));
    for (let tries = 1; ; tries++) {
      try {
        return (await this.#list()).filter((k) => !landed.has(keyParts(this.t.location, k)?.requestId ?? ''));
      } catch (error) {
        // A listing that met another writer's deletion of a request (the directory store
        // stats each file it lists, and fails on one deleted meanwhile) is tried again.
        if (tries >= LIST_TRIES) throw error;
        await sleep(Math.random() * 10 * tries);
      }
    }
  }

  async #list(): Promise<string[]> {
    const keys: string[] = [];
    this.requests++;
    for await (const info of this.t.location.store.list(requestsPrefix(this.t.location))) {
      if (keyParts(this.t.location, info.key) !== undefined) keys.push(info.key);
      if (keys.length >= MAX_LISTED) break;
    }
    return keys.sort();
  }

  /** Reads requests (cached); an invalid or vanished one is null: another writer's mistake never fails this one. */
  async readAll(keys: readonly string[]): Promise<(CommitRequest | null)[]> {
    const out: (CommitRequest | null)[] = [];
    for (let i = 0; i < keys.length; i += READ_CONCURRENCY) {
      const chunk = keys.slice(i, i + READ_CONCURRENCY);
      out.push(...(await Promise.all(chunk.map((key) => this.#readOne(key)))));
    }
    return out;
  }

  async #readOne(key: string): Promise<CommitRequest | null> {
    const cached = this.#read.get(key);
    if (cached !== undefined) return cached;
    this.requests++;
    let request: CommitRequest | null;
    try {
      request = await readRequest(this.t.location, key);
      changePlan(this.t, request);
    } catch {
      request = null;
    }
    this.#read.set(key, request);
    return request;
  }
}

/** The request ids a snapshot's summary names. */
function requestIds(snapshot: Snapshot): string[] {
  return snapshot.summary[COMMIT_REQUESTS_KEY]?.split(',') ?? [];
}

/** A request's own counts in the snapshot that carried it. */
function countsIn(snapshot: Snapshot, requestId: string): OverwriteCounts {
  const i = requestIds(snapshot).indexOf(requestId);
  const [addedFiles = 0, deletedFiles = 0, addedRows = 0, deletedRows = 0] = (
    snapshot.summary[COMMIT_REQUEST_COUNTS_KEY]?.split(',')[i] ?? ''
  )
    .split(':')
    .map(Number);
  return { addedFiles, deletedFiles, addedRows, deletedRows };
}

/**
 * The batch's summary values: a batch of one carries its request's as they are; a batch of
 * several each key's values comma-joined in the order of COMMIT_REQUESTS_KEY (empty where a
 * request has none).
 */
function batchSummary(batch: readonly CommitRequest[]): Record<string, string> {
  if (batch.length === 1) return { ...batch[0]?.summary };
  const keys = [...new Set(batch.flatMap((r) => Object.keys(r.summary)))];
  return Object.fromEntries(keys.map((k) => [k, batch.map((r) => r.summary[k] ?? '').join(',')]));
}

const partitionKey = (tenant: string | undefined, reportId: string, days: number): string =>
  `${tenant ?? ''}\u0000${reportId}\u0000${days}`;
const partitionOf = (p: PartitionValue): string => partitionKey(p.tenant, p.report_id, p.dt);

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
