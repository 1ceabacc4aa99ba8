import { setTimeout as sleep } from 'node:timers/promises';
import { CommitConflictError, CommitStateUnknownError } from '../../../stores';
import { EXPORT_ERROR_CODES, ExportError, TableCommitFailedError, TableInvalidError } from '../../errors';
import { deleteWritten, type TableIo } from '../manifest/manifest-io';
import { catalogColumns } from '../metadata/metadata';
import { stringifyMetadata } from '../metadata/metadata-json';
import type { IcebergTable, LoadedTable } from '../metadata/table-ref';
import type { TableMetadata } from '../metadata/types';

/** How a commit retries. */
export interface CommitOptions {
  /** Stops between attempts (and during a backoff) with EXPORT_ABORTED. */
  signal?: AbortSignal;
  /**
   * Attempts before TableCommitFailedError.
   * @default 8
   */
  maxAttempts?: number;
  /**
   * The first backoff's bound; each next one doubles (full jitter: a random wait up to it).
   * @default 50
   */
  baseDelayMs?: number;
  /** The clock of snapshot and metadata timestamps. @default Date.now */
  now?: () => number;
  /**
   * A snapshot commit also drops the snapshots the table's retention properties expire
   * (`history.expire.max-snapshot-age-ms`, `history.expire.min-snapshots-to-keep`; Iceberg's
   * defaults 5 days and 1 when unset): for a table no optimizer maintains (the file catalog).
   * @default false
   */
  expire?: boolean;
}

export const COMMIT_DEFAULTS = { maxAttempts: 8, baseDelayMs: 50 } as const;
/** The longest single backoff, however many attempts are allowed. */
const MAX_DELAY_MS = 5_000;
/** What the catalog throws for a request refused for certain (lib/stores CatalogRequestError). */
const CATALOG_REQUEST_FAILED = 'CATALOG_REQUEST_FAILED';

/** How many attempts a commit took and how many met another writer's commit. */
export interface CommitCounts {
  attempts: number;
  conflicts: number;
}

/** One way to change a table, re-applied onto the state each attempt reads. */
export interface TableChange<T> {
  /** For messages: what the change is (`the overwrite of report r1 on 2026-11-24 in table calls`). */
  what: string;
  /** The table's current state (re-read each attempt). */
  load(io: TableIo): Promise<LoadedTable | undefined>;
  /**
   * The metadata the change makes of `current` (files it needs written through `io`), or
   * `unchanged` when the table already is as the change wants it.
   */
  prepare(
    current: LoadedTable | undefined,
    io: TableIo,
    counts: CommitCounts,
  ): Promise<{ metadata: TableMetadata } | { unchanged: T }>;
  /**
   * After a commit whose outcome was unknown: the result if the change is in `current`
   * (found by something only it wrote), else undefined (it did not land: try again).
   */
  landed(current: LoadedTable | undefined, counts: CommitCounts): T | undefined;
  /** The result once committed. */
  done(committed: LoadedTable, counts: CommitCounts): T;
}

/**
 * Commits `change` with the catalog's compare-and-swap: each attempt reads the table,
 * re-applies the change onto that state and commits with that base. A conflict (another
 * writer committed first) deletes this attempt's files and tries again after a jittered
 * exponential backoff, at most `maxAttempts` times. A commit whose outcome is unknown keeps
 * its files (the table may name them now) and every later attempt first checks whether it
 * landed (it may land late), so a change is never applied twice.
 */
export async function commitWithRetry<T>(
  t: IcebergTable,
  io: TableIo,
  change: TableChange<T>,
  options: CommitOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? COMMIT_DEFAULTS.maxAttempts;
  const baseDelayMs = options.baseDelayMs ?? COMMIT_DEFAULTS.baseDelayMs;
  const counts: CommitCounts = { attempts: 0, conflicts: 0 };
  let unknown: unknown;
  let lastConflict: unknown;
  while (counts.attempts < maxAttempts) {
    if (counts.attempts > 0) await backoff(change, counts, baseDelayMs, options.signal);
    throwIfAborted(change, counts, options.signal);
    counts.attempts++;
    const current = await failed(change, counts, () => change.load(io));
    // Every attempt after an unknown outcome looks: that commit may land later (a catalog
    // request applied after its reply was lost), making this attempt's base stale too.
    if (unknown !== undefined) {
      const found = change.landed(current, counts);
      if (found !== undefined) return found;
    }
    let metadata: TableMetadata;
    try {
      const prepared = await change.prepare(current, io, counts);
      if ('unchanged' in prepared) return prepared.unchanged;
      metadata = prepared.metadata;
    } catch (error) {
      await deleteWritten(io);
      throw wrap(change, counts, error);
    }
    try {
      io.requests++;
      const base = await t.catalog.commit(t.id, current?.base, {
        metadata: stringifyMetadata(metadata),
        location: t.location.uri,
        columns: catalogColumns(metadata, t.id.name),
      });
      io.written.length = 0;
      return change.done({ base, metadata, table: t }, counts);
    } catch (error) {
      if (error instanceof CommitConflictError) {
        counts.conflicts++;
        lastConflict = error;
        await deleteWritten(io);
        continue;
      }
      if (error instanceof CommitStateUnknownError) {
        // The table may name this attempt's files now: they stay (orphan cleanup takes them if not).
        unknown = error;
        io.written.length = 0;
        continue;
      }
      await deleteWritten(io);
      throw wrap(change, counts, error);
    }
  }
  if (unknown !== undefined) {
    const found = change.landed(await failed(change, counts, () => change.load(io)), counts);
    if (found !== undefined) return found;
  }
  throw new TableCommitFailedError(
    `${capitalize(change.what)} did not land after ${counts.attempts} attempts (${counts.conflicts} met another writer's commit${unknown === undefined ? '' : ', one with an unknown outcome not found in the table'}); nothing of it is visible`,
    counts,
    { cause: unknown ?? lastConflict },
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Runs a read of the table; a failure becomes the commit's failure (ExportErrors pass as they are). */
async function failed<R>(
  change: TableChange<unknown>,
  counts: CommitCounts,
  read: () => Promise<R>,
): Promise<R> {
  try {
    return await read();
  } catch (error) {
    throw wrap(change, counts, error);
  }
}

/** The export's error for what stopped a commit: ExportErrors as they are, a refused catalog request terminal, the rest transient. */
function wrap(change: TableChange<unknown>, counts: CommitCounts, error: unknown): Error {
  if (error instanceof ExportError) return error;
  if ((error as { code?: unknown } | null)?.code === CATALOG_REQUEST_FAILED) {
    return new TableInvalidError(
      `${capitalize(change.what)}: the catalog refused it: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return new TableCommitFailedError(
    `${capitalize(change.what)} failed at attempt ${counts.attempts}: ${(error as Error | null)?.message ?? String(error)}`,
    counts,
    { cause: error },
  );
}

function throwIfAborted(
  change: TableChange<unknown>,
  counts: CommitCounts,
  signal: AbortSignal | undefined,
): void {
  if (signal?.aborted) {
    throw new ExportError(
      EXPORT_ERROR_CODES.aborted,
      `${capitalize(change.what)} was aborted after ${counts.attempts} attempts; nothing of it is visible`,
      { cause: signal.reason },
    );
  }
}

/** Full jitter: a random wait up to baseDelayMs * 2^(attempt - 1), capped. */
async function backoff(
  change: TableChange<unknown>,
  counts: CommitCounts,
  baseDelayMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const bound = Math.min(MAX_DELAY_MS, baseDelayMs * 2 ** (counts.attempts - 1));
  try {
    await sleep(Math.random() * bound, undefined, signal === undefined ? undefined : { signal });
  } catch {
    throwIfAborted(change, counts, signal);
  }
}
