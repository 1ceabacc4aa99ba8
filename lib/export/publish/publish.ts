import { isMachineLocal, type ObjectStore } from '../../stores/object-store';
import { currentProcess } from '../../stores/process-identity';
import { forEachLimited } from '../concurrency';
import { EXPORT_ERROR_CODES, ExportError, PublishError, VerificationError } from '../errors';
import {
  backupKey,
  journalPrefix,
  MANIFEST_NAME,
  manifestKey,
  type OutputFormat,
  type OutputLayout,
  partitionPrefix,
  partKey,
  type StagingLayout,
  stagedKey,
  stagingOwnerKey,
  stagingRoot,
} from '../layout';
import type { Reconciliation } from '../reconcile';
import { emptyQuality } from '../rows/quality';
import { DATASETS, type PromotedColumn, SCHEMA_VERSION, type TableSchema } from '../schema';
import type { CallTotals, PartitionOutput, QualityCounts, SpilledFile } from '../types';
import { JOURNAL_BATCH, type JournalEntry, journalRecordKey, writeJournalRecord } from './journal';
import { testPause } from './test-pause';

/**
 * The publish protocol and the guarantees readers get.
 *
 * 1. Stage: every file of the run is written under `<prefix>/_staging/<runId>/`, outside
 *    every dataset prefix, so no table or crawler reads it. In a machine-local store
 *    (`isMachineLocal`: the local directory, never S3) an owner record `_owner.json`
 *    naming this process (host, pid, start time) is written first and deleted last.
 * 2. Verify: rows read equal the service's totalCount; per partition the Parquet rows,
 *    the CSV rows and the rows routed to it are equal; every staged object has the size
 *    written. Any failure up to here publishes nothing and deletes the staging area.
 * 3. Promote, in batches of up to JOURNAL_BATCH partitions and formats (journal.ts): back
 *    up the batch's current objects into the staging area; in a machine-local store, then
 *    write the batch's journal record `_journal/batch-NNNNN.json` (per partition and
 *    format: its objects, their backups, the keys it will write; one durable write for the
 *    batch); then, partition by partition,
 *    copy the staged parts over the final keys, write `_manifest.json`
 *    (the commit marker: it lists exactly the files of the partition with rows, bytes and
 *    sha256), then delete parts of an earlier run that this run did not overwrite.
 *    A partition without files (a date of the window for which the run found no rows)
 *    goes through the same steps: its earlier parts are backed up and deleted, and its
 *    manifest says rows 0, files [].
 * 4. If any promotion step fails, every partition touched by this run is rolled back
 *    from the backups (new keys deleted, old objects restored), then the error is raised.
 *
 * Readers get:
 * - each object is replaced atomically (S3 PUT/CopyObject, local rename);
 * - with the default file cap (1,000,000 rows, the service's row limit) a partition is
 *   exactly one file per format, so a partition switches from the old run to the new run
 *   in one atomic replace per format: never partial, never duplicated;
 * - with a lower cap (several parts), a reader listing files during the few requests of
 *   a promotion may see a mix of old and new parts; a reader that follows
 *   `_manifest.json` always sees one complete run. Extra parts of an older, bigger run
 *   are deleted only after the new manifest is in place;
 * - a failed run leaves earlier partitions byte-identical (restored if promotion had
 *   begun; if the restore itself fails, the error code is EXPORT_ROLLBACK_FAILED and the
 *   backups stay under the staging prefix);
 * - re-running with the same result rewrites byte-identical data files (nothing random
 *   or time-dependent is in them) and leaves no extra objects; only the manifest's
 *   `exportedAt`, `runId` (and `requestId` for a new report request) change;
 * - with a window, a re-run leaves exactly the partitions of its result for the window's
 *   dates: a date of the window without rows is emptied (a 0-row manifest, no parts);
 *   dates outside the window are never touched.
 *
 * Cleaning the staging deletes the journal first (nothing asks for a rollback from then on),
 * the staged files and backups next, the owner record last.
 *
 * A process that dies (Lambda timeout, OOM, `kill -9`) cannot clean up or roll back. Before
 * promotion that leaves only staging: nothing is published. DURING promotion, partitions
 * promoted so far show the new run, the others the earlier one, and a partition caught
 * between its part copy and its manifest has new data under the old manifest (or, with
 * several parts, a mix of both runs' parts). Each partition and format stays whole for a
 * reader of files with the default file cap (one atomic replace each), not for a reader
 * following the manifest. What repairs it depends on the store:
 * - machine-local (a local run; recover-staging.ts, called by the next local run on this
 *   machine before it starts, under the lake's out-dir lock): a staging root whose owner
 *   record names a process of this host that has ended is recovered. Every partition with a
 *   journal entry is rolled back from its backups, as the dead process would have done
 *   (the backups are complete: a batch's record is written after all of them and before
 *   any replace of the batch; a partition without an entry was never touched; one of the
 *   batch not replaced yet gets its own objects back), unless its manifest is now another
 *   run's (published since: left as it is); then the staging is deleted. Rolled back, not
 *   finished: the dead run never verified its promotion nor reported success, and a
 *   partition with its parts and manifest from different runs must not outlive it. So a
 *   dead run leaves earlier partitions as a failed one does (byte-identical), even when the
 *   next run exports another window; the next run of the same window replaces them again.
 *   Until that next local run, readers see the mix above. The recovery also removes the
 *   temporary files of writes the kill cut short (in the staging and the journaled
 *   partitions; listings never show them).
 *   A root whose owner runs, runs on another host, or has no owner record (an older
 *   version's) is never touched: it is reported. A run whose rollback failed
 *   (EXPORT_ROLLBACK_FAILED) keeps its journal, so the recovery retries that rollback.
 * - S3 (Lambda): no owner record or journal is written, nothing is swept: a run cannot tell
 *   whether a process elsewhere still uses a staging root. The next run of the same window
 *   repairs the partitions (it replaces every partition again); the backups of the
 *   partitions it overwrote stay under the staging prefix, which a bucket lifecycle rule
 *   expires (a few days, longer than any run).
 *
 * Tests can stop the publish step at a phase to kill the run there (test-pause.ts).
 *
 * What it does not give (an object store has no multi-object transaction):
 * - on S3, a run that dies during promotion leaves the mix above until the same window is
 *   run again (see above);
 * - without a window (`window` / `windowDates` options) the run knows only the dates it
 *   has rows for: a date without rows keeps its earlier partition.
 */

/** One file of a partition, as the manifest lists it. */
export interface ManifestFile {
  name: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** Contents of a partition's `_manifest.json`. */
export interface PartitionManifest {
  schemaVersion: number;
  dataset: string;
  format: OutputFormat;
  reportId: string;
  /** The tenant whose partition it is (multi-tenant lakes only). */
  tenant?: string;
  dt: string;
  requestId: string;
  window: { from: string | null; to: string | null };
  rows: number;
  bytes: number;
  files: ManifestFile[];
  runId: string;
  exportedAt: string;
  /**
   * The instant the service's data was read as of (the result's dateCreated): what the
   * committer orders two exports of one day by. Absent from manifests before it.
   */
  dataAsOf?: string;
  /** Columns promoted from `extra` by configuration (name and type), in column order. */
  promotedColumns: PromotedColumn[];
  /** The partition's data-quality counts. */
  quality: QualityCounts;
  /**
   * A summary partition's call totals (the sums of its rows' `ans`, `ref` and `lost`; all 0
   * for a day without rows): what the shrink guard judges a summary day by. null for a call
   * list, whose rows are its calls. Absent from manifests of versions before it.
   */
  callTotals: CallTotals | null;
  /** The run's rows against the result's summary (the whole result, not this partition). */
  reconciliation: Reconciliation | null;
}

export interface PublishContext {
  store: ObjectStore;
  layout: OutputLayout;
  schema: TableSchema;
  runId: string;
  requestId: string;
  window: { from: string | null; to: string | null };
  exportedAt: string;
  /** The instant the data was read as of (ExportSummary.dataAsOf); absent when unknown. */
  dataAsOf?: string | undefined;
  reconciliation: Reconciliation | null;
}

const CONTENT_TYPES: Record<string, string> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
};

/** Uploads every spilled file to its staged key and checks the stored size. */
export async function stage(
  context: PublishContext,
  partitions: readonly PartitionOutput[],
  concurrency = 4,
): Promise<void> {
  const { store, layout, runId } = context;
  const files = partitions.flatMap((partition) => partition.files.map((file) => ({ partition, file })));
  if (isMachineLocal(store)) await writeOwner(context);
  await forEachLimited(files, concurrency, async ({ partition, file }) => {
    const key = stagedKey(layout, runId, partKey(layout, file.format, partition.dt, file.part));
    let sizes: [number, number | undefined];
    try {
      const info = await store.putFile(key, file.path, {
        contentType: CONTENT_TYPES[file.format] as string,
      });
      sizes = [info.size, (await store.head(key))?.size];
    } catch (cause) {
      throw new PublishError(EXPORT_ERROR_CODES.stagingFailed, `Staging ${key} failed`, {
        cause,
        requestId: context.requestId,
      });
    }
    // Both what the upload counted and what the store holds must be the bytes written.
    const [sent, stored] = sizes;
    if (sent !== file.bytes || stored !== file.bytes) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.verifyFailed,
        `Staged ${key}: ${sent} bytes sent, ${stored ?? 'no object'} stored, ${file.bytes} written`,
        { requestId: context.requestId },
      );
    }
    await testPause('stage');
  });
}

/** What a staging owner record holds (`_owner.json` at the root of a run's staging). */
export interface StagingOwnerRecord {
  host: string;
  pid: number;
  /** Start time of the process (clock ticks since boot; absent off Linux). */
  start?: string;
  runId: string;
  /** When staging began (ISO). */
  at: string;
}

/** Names this process as the owner of the run's staging, before anything is staged. */
async function writeOwner(context: PublishContext): Promise<void> {
  const { store, layout, runId } = context;
  const record: StagingOwnerRecord = { ...currentProcess(), runId, at: new Date().toISOString() };
  const key = stagingOwnerKey(layout, runId);
  try {
    await store.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/json' });
  } catch (cause) {
    throw new PublishError(EXPORT_ERROR_CODES.stagingFailed, `Staging ${key} failed`, {
      cause,
      requestId: context.requestId,
    });
  }
}

/** A key a promotion replaced, deleted or created, and its backup (none: it was created). */
export interface Touched {
  key: string;
  backup: string | undefined;
}

/**
 * Days of the report to empty in another dataset in the same promotion (a report that
 * changed shape: see ReportShapeChangedError): each is promoted as a date without rows.
 */
export interface Emptied {
  layout: OutputLayout;
  dts: readonly string[];
}

/** One partition and format of a promotion, its published objects backed up. */
interface BackedUp {
  layout: OutputLayout;
  partition: PartitionOutput;
  format: OutputFormat;
  files: readonly SpilledFile[];
  /** The partition's prefix, with its trailing slash. */
  prefix: string;
  /** Every object it held before. */
  existing: string[];
  /** Their backups. */
  backups: Map<string, string>;
}

/**
 * Promotes every partition, and empties `also`'s days with the same backups, journal and
 * rollback; on failure rolls all of them back and throws. Goes in batches (journal.ts):
 * back up the batch's partitions, write its journal record (machine-local stores), replace
 * them.
 */
export async function promote(
  context: PublishContext,
  partitions: readonly PartitionOutput[],
  options: {
    also?: Emptied;
    concurrency?: number;
    journalBatch?: number;
    /** The formats promoted here. @default both (a table's Parquet is committed, not promoted) */
    formats?: readonly OutputFormat[];
    /**
     * Runs after every partition is replaced, inside the promotion: a rejection rolls them all
     * back (a table's commit, so that the CSV and the table move together).
     */
    finish?: () => Promise<void>;
  } = {},
): Promise<void> {
  const touched: Touched[] = [];
  const known = new Set<string>();
  const { also } = options;
  const concurrency = options.concurrency ?? 4;
  const size = options.journalBatch ?? JOURNAL_BATCH;
  const targets: { layout: OutputLayout; partition: PartitionOutput }[] = partitions.map((partition) => ({
    layout: context.layout,
    partition,
  }));
  if (also !== undefined) {
    for (const dt of also.dts) targets.push({ layout: also.layout, partition: { dt, rows: 0, files: [] } });
  }
  const formats = options.formats ?? (['parquet', 'csv'] as const);
  const jobs = targets.flatMap((target) => formats.map((format) => ({ ...target, format })));
  try {
    // Partitions are independent (disjoint keys), so several are backed up and replaced at once.
    for (let first = 0; first < jobs.length; first += size) {
      const batch = jobs.slice(first, first + size);
      const backedUp: BackedUp[] = [];
      await forEachLimited(
        batch.map((job, i) => ({ ...job, i })),
        concurrency,
        async ({ layout, partition, format, i }) => {
          backedUp[i] = await backUp(context, layout, partition, format);
        },
      );
      if (isMachineLocal(context.store)) await journal(context, first / size, backedUp);
      await forEachLimited(backedUp, concurrency, (job) => replace(context, job, touched, known));
    }
    await options.finish?.();
  } catch (cause) {
    try {
      await rollback(context.store, touched);
    } catch (rollbackCause) {
      throw new PublishError(
        EXPORT_ERROR_CODES.rollbackFailed,
        `Promotion failed and the rollback failed too; backups are under ${stagingRoot(context.layout, context.runId)}`,
        { cause: rollbackCause, requestId: context.requestId },
      );
    }
    if (cause instanceof ExportError) throw cause;
    throw new PublishError(
      EXPORT_ERROR_CODES.publishFailed,
      'Promotion failed; earlier partitions restored',
      {
        cause,
        requestId: context.requestId,
      },
    );
  }
}

/** Copies a partition's published objects (of one format) to their backups. */
async function backUp(
  context: PublishContext,
  layout: OutputLayout,
  partition: PartitionOutput,
  format: OutputFormat,
): Promise<BackedUp> {
  const { store, runId } = context;
  const prefix = `${partitionPrefix(layout, format, partition.dt)}/`;
  const existing: string[] = [];
  for await (const info of store.list(prefix)) existing.push(info.key);
  const backups = new Map<string, string>();
  for (const key of existing) {
    const backup = backupKey(layout, runId, key);
    await store.copy(key, backup);
    backups.set(key, backup);
  }
  const files = partition.files.filter((f) => f.format === format);
  return { layout, partition, format, files, prefix, existing, backups };
}

/** Writes the journal record of a batch whose objects are all backed up. */
async function journal(context: PublishContext, batch: number, backedUp: readonly BackedUp[]): Promise<void> {
  const { runId } = context;
  const entries = backedUp.map(({ layout, partition, format, files, prefix, backups }): JournalEntry => {
    const mKey = manifestKey(layout, format, partition.dt);
    return {
      runId,
      partition: prefix.slice(0, -1),
      manifest: mKey,
      backups: [...backups].map(([key, backup]) => ({ key, backup })),
      writes: [...files.map((f) => partKey(layout, format, partition.dt, f.part)), mKey],
    };
  });
  await writeJournalRecord(context.store, journalRecordKey(context.layout, runId, batch), { runId, entries });
}

/** Copies the staged parts over the partition's, writes its manifest, deletes its stale parts. */
async function replace(
  context: PublishContext,
  { layout, partition, format, files, prefix, existing, backups }: BackedUp,
  touched: Touched[],
  known: Set<string>,
): Promise<void> {
  const { store, runId } = context;
  const dt = partition.dt;
  const record = (key: string) => {
    if (known.has(key)) return;
    known.add(key);
    touched.push({ key, backup: backups.get(key) });
  };
  const mKey = manifestKey(layout, format, dt);

  const newKeys = new Set<string>();
  for (const file of files) {
    const key = partKey(layout, format, dt, file.part);
    record(key);
    await store.copy(stagedKey(layout, runId, key), key);
    newKeys.add(key);
  }

  const manifest: PartitionManifest = {
    schemaVersion: SCHEMA_VERSION,
    dataset: layout.dataset,
    format,
    reportId: layout.reportId,
    ...(layout.tenant === undefined ? {} : { tenant: layout.tenant }),
    dt,
    requestId: context.requestId,
    window: context.window,
    rows: files.reduce((n, f) => n + f.rows, 0),
    bytes: files.reduce((n, f) => n + f.bytes, 0),
    files: files.map((f) => ({
      name: partKey(layout, format, dt, f.part).slice(prefix.length),
      rows: f.rows,
      bytes: f.bytes,
      sha256: f.sha256,
    })),
    runId,
    exportedAt: context.exportedAt,
    ...(context.dataAsOf === undefined ? {} : { dataAsOf: context.dataAsOf }),
    // A day emptied in the other dataset has none of this dataset's columns.
    promotedColumns: layout === context.layout ? [...context.schema.promoted] : [],
    quality: partition.quality ?? emptyQuality(),
    callTotals:
      layout.dataset === DATASETS.summaries ? (partition.callTotals ?? { ans: 0, ref: 0, lost: 0 }) : null,
    reconciliation: context.reconciliation,
  };
  await testPause('promote');
  record(mKey);
  await store.put(mKey, `${JSON.stringify(manifest, null, 2)}\n`, { contentType: 'application/json' });

  const stale = existing.filter((k) => !newKeys.has(k) && !k.endsWith(`/${MANIFEST_NAME}`));
  for (const key of stale) record(key);
  if (stale.length > 0) await store.deleteMany(stale);
}

/**
 * Restores what `touched` names: backed-up keys from their backups, parts first and
 * manifests last (a restored manifest never names a missing part), then deletes the keys
 * that had no backup (created by the run). Idempotent: running it again changes nothing.
 */
export async function rollback(store: ObjectStore, touched: readonly Touched[]): Promise<void> {
  const created: string[] = [];
  // Parts first, manifests last, so a restored manifest never names a missing part.
  const ordered = [...touched].sort(
    (a, b) => Number(a.key.endsWith(MANIFEST_NAME)) - Number(b.key.endsWith(MANIFEST_NAME)),
  );
  for (const t of ordered) {
    if (t.backup === undefined) created.push(t.key);
    else await store.copy(t.backup, t.key);
  }
  if (created.length > 0) await store.deleteMany(created);
}

/** Deletes everything under the run's staging prefix (best effort; it is never read). */
export async function cleanStaging(
  store: ObjectStore,
  layout: OutputLayout,
  runId: string,
): Promise<boolean> {
  try {
    await deleteStaging(store, layout, runId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Deletes a run's staging: the promotion journal first (from then on nothing asks for a
 * rollback), then the staged files and backups, and the owner record last (a staging root
 * with files never lacks its owner). Throws what the store throws.
 */
export async function deleteStaging(store: ObjectStore, layout: StagingLayout, runId: string): Promise<void> {
  const keys: string[] = [];
  for await (const info of store.list(`${stagingRoot(layout, runId)}/`)) keys.push(info.key);
  const journal = journalPrefix(layout, runId);
  const owner = stagingOwnerKey(layout, runId);
  const entries = keys.filter((k) => k.startsWith(journal));
  const rest = keys.filter((k) => !k.startsWith(journal) && k !== owner);
  if (entries.length > 0) await store.deleteMany(entries);
  if (rest.length > 0) await store.deleteMany(rest);
  if (keys.includes(owner)) await store.deleteMany([owner]);
}
