import { setTimeout as sleep } from 'node:timers/promises';
import { ExportConfigError } from '../../errors';
import { dateToDays, partitionKey } from '../manifest/manifest-codec';
import { tableIo } from '../manifest/manifest-io';
import { checkPartitioning, checkTenancy } from '../metadata/tenancy';
import type { PartitionValue, Snapshot, TableMetadata } from '../metadata/types';
import type { OverwriteCounts } from '../snapshot/overwrite';
import { type ChangePlan, changePlan } from '../snapshot/replace-partitions';
import type { CommitResult, Landing, PlannedOverwrite } from './commit';
import type { CommitCounts } from './commit-loop';
import {
  type CommitRequest,
  INVALID_REQUESTS_FOLDER,
  keyParts,
  readRequest,
  requestKey,
  requestsPrefix,
  validateRequest,
} from './commit-requests';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

// A grouped commit's batches (group-commit.ts): which pending requests an attempt carries,
// and how a writer finds its request in a snapshot.

/** Summary key of a grouped commit's snapshot: the request ids it carries, comma-joined, oldest first. */
export const COMMIT_REQUESTS_KEY = 'report-export.commit-requests';
/**
 * Summary key of a grouped commit's snapshot: per request (in the order of COMMIT_REQUESTS_KEY)
 * `<added files>:<deleted files>:<added rows>:<deleted rows>`, comma-joined.
 */
export const COMMIT_REQUEST_COUNTS_KEY = 'report-export.commit-request-counts';

/** Request keys listed at most per look (a table with more pending requests commits the oldest first). */
const MAX_LISTED = 1_000;
const READ_CONCURRENCY = 16;
const LIST_TRIES = 8;

/** One writer's view of the pending requests: what each attempt carries, and whether its own landed. */
export class Batching {
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
  /** Requests of other committers this one found invalid and set aside, each named with why. */
  readonly setAside: SetAsideRequest[] = [];

  constructor(
    readonly t: IcebergTable,
    readonly own: CommitRequest,
    readonly ownKey: string,
    readonly maxBatch: number,
    readonly leaderPatienceMs: number,
    readonly now: () => number,
    readonly ttlMs: number,
    readonly onSetAside: ((request: SetAsideRequest) => void) | undefined = undefined,
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
    checkPartitioning(current.metadata, 'report', tableName(this.t));
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
      const partitions = partitionsOf(request);
      const free = partitions.every((p) => !seen.has(p));
      for (const p of partitions) seen.add(p);
      if (!free || batch.length >= this.maxBatch) continue;
      batch.push(request);
      plans.push(changePlan(this.t.location, request));
    }
    const index = new Map<string, number>();
    for (const [i, r] of batch.entries()) {
      for (const p of partitionsOf(r)) index.set(p, i);
    }
    const tallies = batch.map((r) => {
      const files = r.reports.flatMap((report) => report.files);
      return {
        addedFiles: files.length,
        deletedFiles: 0,
        addedRows: files.reduce((n, f) => n + f.rows, 0),
        deletedRows: 0,
      };
    });
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
      const read = await readRequest(this.t.location, key);
      // Vanished (carried and deleted by another committer meanwhile): nothing to carry.
      if (read === undefined) request = null;
      // Expired: never carried (the plan drops and deletes it), so not worth checking.
      else if (read.expiresAt <= this.now()) request = read;
      else {
        changePlan(this.t.location, read);
        request = await validateRequest(this.t.location, key, read, this.now(), this.ttlMs);
      }
    } catch (error) {
      // Invalid: set aside, once, so it costs no later committer; any other failure (the store's,
      // perhaps transient) skips it this time only.
      if (!(error instanceof ExportConfigError)) return null;
      await this.#setAside(key, error.message);
      request = null;
    }
    this.#read.set(key, request);
    return request;
  }

  /**
   * Records why `key` is invalid under INVALID_REQUESTS_FOLDER and deletes it (best effort: a
   * committer that fails here only leaves it for the next to set aside).
   */
  async #setAside(key: string, reason: string): Promise<void> {
    const name = key.slice(requestsPrefix(this.t.location).length);
    const parts = keyParts(this.t.location, key);
    const record: SetAsideRequest = { key, ...(parts === undefined ? {} : { tenant: parts.tenant }), reason };
    this.setAside.push(record);
    this.onSetAside?.(record);
    const store = this.t.location.store;
    try {
      this.requests += 2;
      await store.putIfAbsent(
        `${this.t.location.key}/${INVALID_REQUESTS_FOLDER}/${name}`,
        JSON.stringify({ ...record, at: new Date(this.now()).toISOString() }),
        { contentType: 'application/json' },
      );
      await store.deleteMany([key]);
    } catch {
      // left for the next committer
    }
  }
}

/** A commit request a committer found invalid: its key, its tenant (from its key) and why. */
export interface SetAsideRequest {
  key: string;
  tenant?: string;
  reason: string;
}

/** Every (tenant, report, day) a request replaces. */
function partitionsOf(request: CommitRequest): string[] {
  return request.reports.flatMap((r) =>
    r.dts.map((dt) => reportPartitionKey(request.tenant, r.reportId, dateToDays(dt))),
  );
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

const reportPartitionKey = (tenant: string | undefined, reportId: string, days: number): string =>
  partitionKey({ ...(tenant === undefined ? {} : { tenant }), report_id: reportId, dt: days });
const partitionOf = (p: PartitionValue): string => partitionKey(p);
