import type { ObjectStore } from '../../stores/object-store';
import { EXPORT_ERROR_CODES, ExportError, PublishError, VerificationError } from '../errors';
import {
  backupKey,
  MANIFEST_NAME,
  manifestKey,
  type OutputFormat,
  type OutputLayout,
  partitionPrefix,
  partKey,
  stagedKey,
  stagingRoot,
} from '../layout';
import { SCHEMA_VERSION } from '../schema';
import type { PartitionOutput, SpilledFile } from '../types';
import { forEachLimited } from './concurrency';

/**
 * The publish protocol and the guarantees readers get.
 *
 * 1. Stage: every file of the run is written under `<prefix>/_staging/<runId>/`, outside
 *    every dataset prefix, so no table or crawler reads it.
 * 2. Verify: rows read equal the service's totalCount; per partition the Parquet rows,
 *    the CSV rows and the rows routed to it are equal; every staged object has the size
 *    written. Any failure up to here publishes nothing and deletes the staging area.
 * 3. Promote, partition by partition: back up the partition's current objects into the
 *    staging area, copy the staged parts over the final keys, write `_manifest.json`
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
 * What it does not give (an object store has no multi-object transaction):
 * - a process that dies DURING promotion (Lambda timeout, OOM, kill) cannot roll back:
 *   partitions promoted so far show the new run, the others the earlier one, and a
 *   partition caught between its part copy and its manifest has new data under the old
 *   manifest. Each partition and format stays whole with the default file cap (one atomic
 *   replace each). The next run of the same window repairs it (it replaces every
 *   partition again); the backups of the partitions it overwrote are under the staging
 *   prefix. A death before promotion publishes nothing.
 * - staging of a process that died is not deleted by anyone: expire `<prefix>/_staging/`
 *   with a bucket lifecycle rule (a few days, longer than any run) rather than sweeping it
 *   from a run, because another run may be using it.
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
  dt: string;
  requestId: string;
  window: { from: string | null; to: string | null };
  rows: number;
  bytes: number;
  files: ManifestFile[];
  runId: string;
  exportedAt: string;
}

export interface PublishContext {
  store: ObjectStore;
  layout: OutputLayout;
  runId: string;
  requestId: string;
  window: { from: string | null; to: string | null };
  exportedAt: string;
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
  });
}

interface Touched {
  key: string;
  backup: string | undefined;
}

/** Promotes every partition; on failure rolls all of them back and throws. */
export async function promote(
  context: PublishContext,
  partitions: readonly PartitionOutput[],
  concurrency = 4,
): Promise<void> {
  const touched: Touched[] = [];
  const known = new Set<string>();
  const jobs = partitions.flatMap((partition) =>
    (['parquet', 'csv'] as const).map((format) => ({ partition, format })),
  );
  try {
    // Partitions are independent (disjoint keys), so several are promoted at once.
    await forEachLimited(jobs, concurrency, ({ partition, format }) =>
      promoteOne(
        context,
        partition.dt,
        format,
        partition.files.filter((f) => f.format === format),
        touched,
        known,
      ),
    );
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

async function promoteOne(
  context: PublishContext,
  dt: string,
  format: OutputFormat,
  files: readonly SpilledFile[],
  touched: Touched[],
  known: Set<string>,
): Promise<void> {
  const { store, layout, runId } = context;
  const prefix = `${partitionPrefix(layout, format, dt)}/`;
  const existing: string[] = [];
  for await (const info of store.list(prefix)) existing.push(info.key);
  const backups = new Map<string, string>();
  for (const key of existing) {
    const backup = backupKey(layout, runId, key);
    await store.copy(key, backup);
    backups.set(key, backup);
  }
  const record = (key: string) => {
    if (known.has(key)) return;
    known.add(key);
    touched.push({ key, backup: backups.get(key) });
  };

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
  };
  const mKey = manifestKey(layout, format, dt);
  record(mKey);
  await store.put(mKey, `${JSON.stringify(manifest, null, 2)}\n`, { contentType: 'application/json' });

  const stale = existing.filter((k) => !newKeys.has(k) && !k.endsWith(`/${MANIFEST_NAME}`));
  for (const key of stale) record(key);
  if (stale.length > 0) await store.deleteMany(stale);
}

async function rollback(store: ObjectStore, touched: readonly Touched[]): Promise<void> {
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
    const keys: string[] = [];
    for await (const info of store.list(`${stagingRoot(layout, runId)}/`)) keys.push(info.key);
    if (keys.length > 0) await store.deleteMany(keys);
    return true;
  } catch {
    return false;
  }
}
