import type { ObjectStore } from '../../stores';
import { EXPORT_ERROR_CODES, PublishError } from '../errors';
import type { StagedRunRef } from '../export-summary';
import {
  checkLayout,
  type OutputLayout,
  partKey,
  type StagingLayout,
  stagedKey,
  stagingRoot,
} from '../layout';
import type { Reconciliation } from '../reconcile';
import { DATASETS, type Dataset, type PromotedColumn } from '../schema';
import { type NewDataFile, readBounded } from '../table';
import type { CallTotals, QualityCounts } from '../types';

// A staged run: what a deferred export (ExportOptions.commit 'defer', in the tenant's session)
// staged and wrote, for the committer (commit-staged.ts) to check and land. One JSON object
// under the run's staging root, which only the tenant's session and the committer write.

/** The staged run's object name, under the run's staging root. */
export const STAGED_RUN_NAME = '_staged-run.json';
export const STAGED_RUN_VERSION = 1;
/** A staged run object larger than this is not read (its size is checked by HEAD first; ours are a few kB). */
export const MAX_STAGED_RUN_BYTES = 1_000_000;
/**
 * A staged run older than this is not committed: an execution's Commit follows its Map within
 * hours; an older one is a leftover (its execution failed) and its data may be stale.
 */
export const STAGED_RUN_TTL_MS = 24 * 60 * 60_000;
/** How far in the committer's future a staged run's `createdAt` may lie (clock skew). */
export const STAGED_RUN_CLOCK_SKEW_MS = 5 * 60_000;

/** A staged CSV part of a partition, as its manifest will list it. */
export interface StagedCsvPart {
  part: number;
  rows: number;
  bytes: number;
  sha256: string;
}

/** A partition of the run: its day, rows, CSV parts staged, and what its manifests record. */
export interface StagedPartition {
  dt: string;
  rows: number;
  csv: StagedCsvPart[];
  quality?: QualityCounts;
  callTotals?: CallTotals;
}

/** The staged run object's body. */
export interface StagedRun {
  version: typeof STAGED_RUN_VERSION;
  tenant?: string;
  reportId: string;
  runId: string;
  requestId: string;
  dataset: Dataset;
  /** When it was written (ISO 8601, the writer's clock). */
  createdAt: string;
  csvExtension: '.csv' | '.csv.gz';
  /** What each partition manifest records of the run. */
  window: { from: string | null; to: string | null };
  exportedAt: string;
  /** The instant the service's data was read as of (absent in runs staged before it). */
  dataAsOf?: string;
  reconciliation: Reconciliation | null;
  promoted: PromotedColumn[];
  /** Every day it replaces in its dataset, sorted (the partitions' days). */
  dts: string[];
  partitions: StagedPartition[];
  /** The table data files written (rows and bytes as claimed: the committer reads them from the files). */
  files: NewDataFile[];
  /** A report that changed shape: its days emptied in the other dataset (forceReplace). */
  other?: { dataset: Dataset; dts: string[] };
}

/** `<prefix>/_staging/[tenant=<t>/]<runId>/_staged-run.json`. */
export function stagedRunKey(layout: StagingLayout, runId: string): string {
  return `${stagingRoot(layout, runId)}/${STAGED_RUN_NAME}`;
}

/** Writes the staged run object and returns its reference. */
export async function writeStagedRun(
  store: ObjectStore,
  layout: StagingLayout,
  run: StagedRun,
): Promise<StagedRunRef> {
  const key = stagedRunKey(layout, run.runId);
  try {
    await store.put(key, `${JSON.stringify(run)}\n`, { contentType: 'application/json' });
  } catch (cause) {
    throw new PublishError(EXPORT_ERROR_CODES.stagingFailed, `Writing the staged run ${key} failed`, {
      cause,
      requestId: run.requestId,
    });
  }
  return {
    key,
    reportId: run.reportId,
    runId: run.runId,
    ...(run.tenant === undefined ? {} : { tenant: run.tenant }),
    dts: [...run.dts],
  };
}

/** Why a staged run is not committed; the message names the object and what is wrong. */
export class StagedRunInvalid extends Error {
  readonly code = EXPORT_ERROR_CODES.stagedRunInvalid;
  constructor(key: string, why: string) {
    super(`The staged run ${key} is not valid: ${why}`);
    this.name = 'StagedRunInvalid';
  }
}

/** The layout of a staged run's CSV (its dataset's, or another dataset's). */
export function stagedLayout(prefix: string, run: StagedRun, dataset: Dataset = run.dataset): OutputLayout {
  return {
    prefix,
    dataset,
    reportId: run.reportId,
    csvExtension: run.csvExtension,
    ...(run.tenant === undefined ? {} : { tenant: run.tenant }),
  };
}

/** The staged key of a partition's CSV part. */
export function stagedCsvKey(layout: OutputLayout, runId: string, dt: string, part: number): string {
  return stagedKey(layout, runId, partKey(layout, 'csv', dt, part));
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Reads a staged run's object after checking its size by HEAD (a huge object is never read),
 * and checks its shape and its claims against its reference and the committer's target:
 * every identity equal to the reference's, its key the one its tenant and run id make, its
 * days calendar dates, its parts numbered. What it claims of the files is checked against
 * the files afterwards (commit-staged.ts). Throws StagedRunInvalid; a store failure passes.
 */
export async function readStagedRun(
  store: ObjectStore,
  prefix: string,
  tenant: string | undefined,
  ref: StagedRunRef,
  nowMs: number,
  ttlMs: number,
): Promise<StagedRun> {
  const key = ref.key;
  const bad = (why: string) => new StagedRunInvalid(key, why);
  if (typeof ref.runId !== 'string' || !RUN_ID.test(ref.runId) || /^\.{1,2}$/.test(ref.runId))
    throw bad(`its reference names no valid run id (${JSON.stringify(ref.runId)})`);
  if (ref.tenant !== tenant)
    throw bad(
      `its reference is tenant ${ref.tenant ?? '(none)'}'s, not the execution's (${tenant ?? 'none'})`,
    );
  const expected = stagedRunKey({ prefix, tenant }, ref.runId);
  if (key !== expected) throw bad(`its key is not ${expected}, the staged run of its tenant and run`);
  const info = await store.head(key);
  if (info === undefined) throw bad('it does not exist');
  if (info.size > MAX_STAGED_RUN_BYTES)
    throw bad(`it is ${info.size} bytes, larger than ${MAX_STAGED_RUN_BYTES}: not read`);
  let raw: Partial<StagedRun> | null;
  try {
    const bytes = await readBounded(store, key, MAX_STAGED_RUN_BYTES);
    if (bytes === undefined)
      throw bad(`it grew past ${MAX_STAGED_RUN_BYTES} bytes while read: not read further`);
    raw = JSON.parse(bytes.toString('utf8')) as Partial<StagedRun> | null;
  } catch (error) {
    if (error instanceof SyntaxError) throw bad('it is not JSON');
    throw error;
  }
  if (typeof raw !== 'object' || raw === null) throw bad('it is not an object');
  try {
    // What is copied into manifests must be writable again (a value nested too deep is not).
    JSON.stringify(raw);
  } catch {
    throw bad('it nests too deep to be written again');
  }
  if (raw.version !== STAGED_RUN_VERSION)
    throw bad(`its version is ${String(raw.version)}, not ${STAGED_RUN_VERSION}`);
  if (raw.tenant !== tenant || raw.reportId !== ref.reportId || raw.runId !== ref.runId) {
    throw bad(
      `it names tenant ${String(raw.tenant)}, report ${String(raw.reportId)}, run ${String(raw.runId)}, not its reference's`,
    );
  }
  if (typeof raw.requestId !== 'string' || raw.requestId.length > 1_000) throw bad('bad requestId');
  if (raw.dataset !== DATASETS.calls && raw.dataset !== DATASETS.summaries) throw bad('bad dataset');
  if (raw.csvExtension !== '.csv' && raw.csvExtension !== '.csv.gz') throw bad('bad csvExtension');
  try {
    checkLayout(stagedLayout(prefix, raw as StagedRun));
  } catch (error) {
    throw bad((error as Error).message);
  }
  const created = typeof raw.createdAt === 'string' ? Date.parse(raw.createdAt) : Number.NaN;
  if (Number.isNaN(created)) throw bad('bad createdAt');
  if (created > nowMs + STAGED_RUN_CLOCK_SKEW_MS) throw bad(`it is dated in the future (${raw.createdAt})`);
  if (created < nowMs - ttlMs)
    throw bad(`it was staged at ${raw.createdAt}, longer ago than the ${ttlMs} ms TTL`);
  const dts = raw.dts;
  if (
    !Array.isArray(dts) ||
    // No day: nothing to replace, and an empty snapshot of the shared table to make.
    dts.length === 0 ||
    dts.length > 400 ||
    !dts.every((d, i) => typeof d === 'string' && DAY.test(d) && (i === 0 || (dts[i - 1] as string) < d))
  )
    throw bad('dts must be 1 to 400 sorted, distinct days YYYY-MM-DD');
  if (!sameList(dts, ref.dts)) throw bad(`its days are not its reference's (${ref.dts.join(', ')})`);
  const partitions = raw.partitions;
  if (
    !Array.isArray(partitions) ||
    !sameList(
      partitions.map((p) => p?.dt),
      dts,
    )
  )
    throw bad('its partitions are not one per day');
  for (const p of partitions) {
    if (!Number.isSafeInteger(p.rows) || p.rows < 0 || !Array.isArray(p.csv))
      throw bad(`partition ${p.dt}: bad rows or csv`);
    for (const [i, f] of p.csv.entries()) {
      const ok =
        f?.part === i &&
        Number.isSafeInteger(f.rows) &&
        f.rows >= 0 &&
        Number.isSafeInteger(f.bytes) &&
        f.bytes >= 0 &&
        typeof f.sha256 === 'string' &&
        SHA256.test(f.sha256);
      if (!ok) throw bad(`partition ${p.dt}: CSV part ${i} is not numbered, counted and hashed`);
    }
  }
  if (!Array.isArray(raw.files) || raw.files.length > 10_000) throw bad('files must be a list');
  for (const f of raw.files) {
    const ok =
      typeof f?.key === 'string' &&
      typeof f.dt === 'string' &&
      Number.isSafeInteger(f.rows) &&
      f.rows >= 0 &&
      Number.isSafeInteger(f.bytes) &&
      f.bytes >= 0;
    if (!ok) throw bad(`a data file is not a key, day, rows and bytes: ${JSON.stringify(f).slice(0, 300)}`);
  }
  const other = raw.other;
  if (other !== undefined) {
    const otherDataset = raw.dataset === DATASETS.calls ? DATASETS.summaries : DATASETS.calls;
    if (
      other?.dataset !== otherDataset ||
      !Array.isArray(other.dts) ||
      !other.dts.every((d) => typeof d === 'string' && dts.includes(d))
    )
      throw bad(`its other dataset's days must be ${otherDataset} days among its own`);
  }
  if (!Array.isArray(raw.promoted)) throw bad('bad promoted columns');
  if (typeof raw.window !== 'object' || raw.window === null || typeof raw.exportedAt !== 'string')
    throw bad('bad window or exportedAt');
  if (
    raw.dataAsOf !== undefined &&
    !(typeof raw.dataAsOf === 'string' && Number.isFinite(Date.parse(raw.dataAsOf)))
  )
    throw bad('dataAsOf must be an instant');
  return raw as StagedRun;
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
