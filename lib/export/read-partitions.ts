import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ZoneConverter } from '../calendar';
import {
  currentProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processGone,
} from '../stores/process-identity';
import {
  EXPORT_ERROR_CODES,
  ExportError,
  SpillBudgetError,
  throwIfAborted,
  VerificationError,
} from './errors';
import { icebergElements } from './formats/iceberg-file';
import { type Reconciliation, reconcile } from './reconcile';
import type { ResolvedExportOptions } from './resolve-export-options';
import { Partitioner, type PartitionSink } from './rows/partitioner';
import { emptyQuality } from './rows/quality';
import { RowMapper } from './rows/row-mapper';
import { InlineSink, type SpillOptions, WorkerSink } from './spill/partition-sink';
import { diskFullCode, SpillShortageError } from './spill/spill-budget';
import type { PartitionOutput } from './types';

/** What reading a result left on local disk, and what the source reported. */
interface ReadPartitions {
  /** Partitions with rows, in date order, their part files on local disk. */
  partitions: PartitionOutput[];
  /** Rows routed to partitions. */
  rows: number;
  /**
   * Bytes of every part file on local disk: their peak, since all stay until the run
   * ends. What `spillBudgetBytes` is checked against.
   */
  spilledBytes: number;
  /** Rows dropped as dated outside the window (outsideWindow=drop). */
  droppedRows: number;
  /** Invalid UTF-8 sequences the client replaced with U+FFFD (from the result's metadata). */
  replacedCharacters: number;
  /** The rows' sums against the result's summary. */
  reconciliation: Reconciliation;
}

/**
 * Reads the source into per-date part files under `spillRoot`: rows -> mapper ->
 * partitioner -> encoder (inline or the worker). Reconciles the rows read with the
 * service's totalCount (dropped rows included). Nothing leaves the machine here.
 */
export async function readPartitions(run: ResolvedExportOptions, spillRoot: string): Promise<ReadPartitions> {
  const { source, requestId, logger } = run;
  const mapper = new RowMapper({
    reportId: run.reportId,
    requestId,
    zone: new ZoneConverter(run.timeZoneId),
    schema: run.schema,
    provisionalFrom: run.provisionalFrom,
    ...(run.summaryDay === undefined ? {} : { day: run.summaryDay }),
    unknownMembers: run.unknownMembers,
    ...(run.rowWindow === undefined ? {} : { window: { ...run.rowWindow, outside: run.outsideWindow } }),
  });
  const writerOptions: SpillOptions = {
    spillDirectory: spillRoot,
    parquetCodec: run.parquetCodec,
    csvGzip: run.csvGzip,
    maxRowsPerFile: run.maxRowsPerFile,
    spillBudgetBytes: run.spillBudgetBytes,
    schema: run.schema,
    icebergFile: run.icebergFile,
  };
  // A column without a field id fails here, before a row is read (ExportConfigError).
  if (run.icebergFile !== undefined) icebergElements(run.schema, run.icebergFile);
  const sink: PartitionSink =
    (run.encodeWorker === false
      ? undefined
      : await WorkerSink.start(run.encodeWorker, writerOptions, logger)) ?? new InlineSink(writerOptions);
  try {
    const partitioner = new Partitioner(mapper, sink, run);
    await consume(run, partitioner);
    const metadata = await source.done();
    const dropped = [...mapper.droppedRows.values()].reduce((n, c) => n + c, 0);
    if (metadata.rowLimitExceeded) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.rowLimitExceeded,
        `The result hit the row limit (${metadata.rowLimit}); export a shorter window`,
        { requestId },
      );
    }
    if (partitioner.rows + dropped !== metadata.totalCount) {
      throw new VerificationError(
        EXPORT_ERROR_CODES.countMismatch,
        `Read ${partitioner.rows + dropped} rows (${dropped} dropped), the service reported totalCount ${metadata.totalCount}`,
        { requestId },
      );
    }
    const reconciliation = reconcile(metadata.summary, mapper.totals.totals);
    if (reconciliation.matches === false) {
      const message = `The result's summary disagrees with its rows on ${reconciliation.differences.join(', ')}: service ${JSON.stringify(reconciliation.service)}, rows ${JSON.stringify(reconciliation.rows)}`;
      if (run.summaryMismatch === 'fail') {
        throw new VerificationError(EXPORT_ERROR_CODES.summaryMismatch, `${message} (summaryMismatch=fail)`, {
          requestId,
        });
      }
      logger?.warn(
        "The result's summary disagrees with its rows; published and flagged (summaryMismatch=flag)",
        {
          differences: reconciliation.differences,
          service: reconciliation.service,
          rows: reconciliation.rows,
        },
      );
    }
    if (dropped > 0) {
      logger?.warn('Rows dated outside the window were dropped (outsideWindow=drop)', {
        droppedRows: dropped,
        perDate: Object.fromEntries(mapper.droppedRows),
        window: run.rowWindow?.label,
      });
    }
    // A count, never the text.
    const replacedCharacters = metadata.replacedCharacters > 0 ? metadata.replacedCharacters : 0;
    if (replacedCharacters > 0) {
      logger?.warn('The result held invalid UTF-8; the client replaced it with U+FFFD', {
        replacedCharacters,
      });
    }
    // Names only: operators see which members a report adds (candidates for a typed column).
    if (mapper.unknownMembers.length > 0) {
      logger?.info?.('Row members the schema does not know were kept in extra', {
        members: mapper.unknownMembers,
      });
    }
    const partitions = await spill(partitioner.finish(), requestId, partitioner);
    let spilledBytes = 0;
    for (const p of partitions) {
      for (const f of p.files) spilledBytes += f.bytes;
      p.quality = mapper.quality.byDate.get(p.dt) ?? emptyQuality();
      // A summary's rows all belong to its one day, so the result's sums are the partition's.
      if (p.dt === run.summaryDay) {
        const { ans, ref, lost } = mapper.totals.totals;
        p.callTotals = { ans, ref, lost };
      }
    }
    return {
      partitions,
      rows: partitioner.rows,
      spilledBytes,
      droppedRows: dropped,
      replacedCharacters,
      reconciliation,
    };
  } finally {
    await sink.close();
  }
}

/** Feeds every row of the source to the partitioner; a failure cancels the source. */
async function consume(run: ResolvedExportOptions, partitioner: Partitioner): Promise<void> {
  const { source, requestId, signal } = run;
  try {
    // Batches: one await per batch of parsed rows, not per row.
    for await (const batch of source.batches) {
      throwIfAborted(signal, requestId);
      for (const row of batch) {
        const pending = partitioner.add(row);
        if (pending !== undefined) await spill(pending, requestId, partitioner);
      }
    }
  } catch (cause) {
    source.cancel(cause);
    if (cause instanceof ExportError) throw cause;
    throw new ExportError(EXPORT_ERROR_CODES.sourceFailed, 'Reading the report result failed', {
      cause,
      requestId,
    });
  }
}

/**
 * Errors of the local part files, told apart from errors of the source; part files that
 * do not fit (budget, full disk) fail with EXPORT_SPILL_BUDGET_EXCEEDED, which a retry on
 * the same storage cannot fix, others with EXPORT_SPILL_FAILED.
 */
async function spill<T>(
  pending: Promise<T>,
  requestId: string,
  partitioner: { readonly rows: number },
): Promise<T> {
  try {
    return await pending;
  } catch (cause) {
    if (cause instanceof SpillShortageError) {
      throw new SpillBudgetError(cause.shortage, partitioner.rows, { cause, requestId });
    }
    throw new ExportError(EXPORT_ERROR_CODES.spillFailed, 'Writing part files to local disk failed', {
      cause,
      requestId,
    });
  }
}

/** Name prefix of a run's spill directory. */
const SPILL_ROOT_PREFIX = 'report-export-';
/** The record in a spill directory of the process that made it. */
const SPILL_OWNER = '_owner.json';
/** A spill directory without an owner record (its process died within mkdtemp's reach) is left this long. */
const UNOWNED_SPILL_STALE_MS = 60 * 60_000;

/**
 * Removes the spill directories under `spillDirectory` whose process has ended: what an
 * export killed mid-run (out of memory, the function's timeout, kill -9) left. A Lambda
 * execution environment keeps /tmp across invocations and across a runtime restart, so
 * without this each such death would take its part files' space from every later
 * export there until the disk is full.
 *
 * `exclusive`: this process is the directory's only user (a Lambda execution environment
 * serves one invocation at a time), so every spill directory but this process's own is
 * stale, whatever its record says. Otherwise only those whose process has ended: exports
 * running beside this one (a local run's functions share the temporary directory) keep
 * theirs; a pid reused by a later process is told apart by its start time.
 * Returns the directories removed.
 */
export async function removeStaleSpill(
  spillDirectory: string,
  options: { exclusive?: boolean; now?: number } = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const names = await fs.readdir(spillDirectory).catch(() => [] as string[]);
  const removed: string[] = [];
  await Promise.all(
    names
      .filter((n) => n.startsWith(SPILL_ROOT_PREFIX))
      .map(async (n) => {
        const root = path.join(spillDirectory, n);
        if (!(await spillIsStale(root, now, options.exclusive === true))) return;
        await fs.rm(root, { recursive: true, force: true });
        removed.push(root);
      }),
  );
  return removed.sort();
}

function isCurrentProcess(owner: ProcessIdentity): boolean {
  const me = currentProcess();
  return owner.host === me.host && owner.pid === me.pid && owner.start === me.start;
}

async function spillIsStale(root: string, now: number, exclusive: boolean): Promise<boolean> {
  const text = await fs.readFile(path.join(root, SPILL_OWNER), 'utf8').catch(() => undefined);
  let owner: ProcessIdentity | undefined;
  try {
    owner = text === undefined ? undefined : parseProcessIdentity(JSON.parse(text));
  } catch {
    owner = undefined;
  }
  if (owner !== undefined) return exclusive ? !isCurrentProcess(owner) : processGone(owner);
  if (exclusive) return true;
  const info = await fs.stat(root).catch(() => undefined);
  return info?.isDirectory() === true && now - info.mtimeMs > UNOWNED_SPILL_STALE_MS;
}

/** A fresh directory for one run's part files; the caller removes it. */
export async function makeSpillRoot(run: {
  spillDirectory: string;
  spillBudgetBytes: number | undefined;
  requestId: string;
}): Promise<string> {
  try {
    const root = await fs.mkdtemp(path.join(run.spillDirectory, SPILL_ROOT_PREFIX));
    await fs.writeFile(path.join(root, SPILL_OWNER), `${JSON.stringify(currentProcess())}\n`);
    return root;
  } catch (cause) {
    const errno = diskFullCode(cause);
    if (errno === undefined) throw cause;
    const shortage = {
      reason: 'disk',
      spilledBytes: 0,
      writeBytes: 0,
      budgetBytes: run.spillBudgetBytes,
      errno,
    } as const;
    throw new SpillBudgetError(shortage, 0, { cause, requestId: run.requestId });
  }
}
