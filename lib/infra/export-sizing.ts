/**
 * How the ExportResults function is sized: the arithmetic lib/infra/README.md shows.
 *
 * Storage. The export writes every part file of the window to local disk (`/tmp`) before it
 * stages and publishes them: about SPILL_BYTES_PER_ROW per row (Parquet and CSV together,
 * measured by `npm run bench`). One result holds at most the service's 1,000,000 rows, but
 * a busy day split into pieces is exported whole (its pieces together, so the partition is
 * published once): a day is bounded by local disk and the 15-minute deadline, not by the
 * row limit. The default storage (Lambda's maximum) holds (10,240 - 64) MB / 383 B ≈ 27.9
 * million rows; the export core on one vCPU would reach about 66.9 million rows in 900 s,
 * so on a day larger than 27.9 million rows the disk runs out first, whatever the memory:
 * the spill budget makes that a named terminal error (SpillBudgetExceededError), never an
 * ENOSPC retried. Storage beyond 512 MB costs
 * $0.0000000309 per GB-second (us-east-1): about 1% of the function's compute.
 *
 * Memory. Lambda gives CPU in proportion to memory: one vCPU at 1,769 MB. The export's
 * encode worker gains from a second vCPU only above that (3,538 MB for two); see the
 * README for the one-core and two-core figures behind DEFAULT_EXPORT_MEMORY_MB.
 */

/** Bytes of part files on local disk per exported row (measured; see the bench). */
const SPILL_BYTES_PER_ROW = 383;

/** /tmp the function keeps for itself and its libraries; the rest is the export's budget. */
const TMP_RESERVE_MB = 64;

/** Default ephemeral storage of ExportResults (Lambda's maximum). */
export const DEFAULT_EXPORT_EPHEMERAL_MB = 10_240;

/** Default memory of ExportResults: one full vCPU. */
export const DEFAULT_EXPORT_MEMORY_MB = 1_769;

/** The export's spill budget in bytes for a function with `ephemeralMb` of /tmp. */
export function spillBudgetBytes(ephemeralMb: number): number {
  return (ephemeralMb - TMP_RESERVE_MB) * 1024 * 1024;
}

/** Rows one export can hold on local disk with `ephemeralMb` of /tmp. */
export function rowsWithinStorage(ephemeralMb: number): number {
  return Math.floor(spillBudgetBytes(ephemeralMb) / SPILL_BYTES_PER_ROW);
}

/** Lambda's limit on a function's environment variables: 4 KB in all, names and values. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/** Bytes of an environment as Lambda counts them (names and values, UTF-8). */
export function environmentBytes(environment: Record<string, string>): number {
  return Object.entries(environment).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8'),
    0,
  );
}

/*
 * The Commit function reads no row: each staged run's object (size-bounded), the data files'
 * Parquet footers (ranged reads of their tails) and the tables' manifests, then promotes the
 * CSV copies server-side and writes the tables' metadata. Its memory is for the manifests of
 * a table every tenant shares (decoded whole to write the next snapshot) and the CPU of their
 * Avro coding, not for data; its timeout for a grouped commit's waits and conflict retries.
 */

/** Memory of the Commit function. */
export const COMMIT_MEMORY_MB = 1_024;

/** Timeout of the Commit function, in seconds (its task's timeout is a little longer). */
export const COMMIT_TIMEOUT_SECONDS = 300;

/**
 * The SyncDirectories function: a tenant's directories read whole (the items of one at a
 * time, as JSON) and encoded in memory, one directory's files at a time; no spill to /tmp.
 * 1,024 MB is about 0.58 vCPU; 10 minutes bounds the reads of a tenant's every directory
 * (the client's own deadlines are shorter), and the task's timeout is above it.
 */
export const SYNC_DIRECTORIES_MEMORY_MB = 1_024;
export const SYNC_DIRECTORIES_TIMEOUT_SECONDS = 600;
