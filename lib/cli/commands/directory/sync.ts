import { API_ERROR_TABLE, type ApiErrorRow, type DirectoryClient, NotFoundError } from '../../../api';
import type { DirectoryItem, DirectoryItemFields } from '../../../spec';
import { TASK_ERROR_NAMES, WORKFLOW_ERROR_CODES } from '../../../workflow';
import type { ContactRow, ContactSheet } from './contacts';
import { DIRECTORY_CLI_ERROR_CODES, SYNC_ROW_CODES } from './errors';
import { changedFieldNames, desiredFields, forEachBounded } from './fields';
import { DEFAULT_SYNC_CONCURRENCY } from './spec';

/**
 * `directory sync`: makes a directory hold the rows of a contacts file, matched by crmId.
 * Nothing is remembered between runs: every row is planned against what the directory
 * holds now (a crmId lookup right before any create), so a run that was interrupted (even
 * between a create reaching the service and its answer) is finished by running it again,
 * without duplicates.
 */

/** The calls a sync makes; a {@link DirectoryClient} fits. */
export type SyncDirectoryPort = Pick<
  DirectoryClient,
  'getItemsByCrmId' | 'createItem' | 'replaceItem' | 'deleteItem' | 'searchItems'
>;

type SyncAction = 'create' | 'update' | 'unchanged' | 'delete';

/** What happened (or, in a dry run, would happen) to one crmId. */
interface SyncChange {
  action: SyncAction;
  crmId: string;
  /** Line of the file; none for a deletion. */
  line?: number;
  itemId?: string;
  /** For an update: the fields whose value changes. */
  changedFields?: string[];
  /** fullName or companyName, for people reading the plan. */
  label?: string;
}

/** A row (or a deletion) that failed. */
interface SyncFailure {
  line?: number;
  crmId?: string;
  code: string;
  reason: string;
}

export interface SyncReport {
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
  /** Every create, update and deletion (unchanged rows are counted only), in file order. */
  changes: SyncChange[];
  /** Bad rows of the file and rows the service refused, by line. */
  failures: SyncFailure[];
  /** Rows applied not quite as written (a phone's extension dropped), by line. */
  warnings: SyncFailure[];
  /** Why `deleteMissing` deleted nothing, when it was asked for and skipped. */
  deletionsSkipped?: string;
  /** Why the sync stopped before the end (the login is gone, it was interrupted); re-run to finish. */
  stopped?: { code: string; reason: string };
}

interface SyncOptions {
  directoryId: string;
  sheet: ContactSheet;
  /** Delete items whose crmId the file no longer names. Default false. */
  deleteMissing?: boolean;
  /** Look, plan, change nothing. Default false. */
  dryRun?: boolean;
  /** Rows in flight at once. Default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /** After each row or deletion. */
  onProgress?: (report: Readonly<SyncReport>, done: number, total: number) => void;
}

const API_ERRORS: readonly ApiErrorRow[] = Object.values(API_ERROR_TABLE);

/**
 * Errors that no other row would escape: the client's that fail every later call (the login
 * is gone or lacks the right, the caller stopped), the signal's own abort, and the workflow's
 * that the deployment's token source (SecretTokenSource) throws when its secret cannot be
 * stored or its refresh lease is held. The sync stops at once instead of failing every row.
 */
const FATAL_ERROR_NAMES: ReadonlySet<string> = new Set([
  ...API_ERRORS.filter((e) => e.failsEveryCall).map((e) => e.name),
  'AbortError',
  TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.storeFailed],
  TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.leaseBusy],
]);

/**
 * A create that failed this way may still have reached the service (the client's table):
 * look before reporting it. A stop (an abort) is not looked after.
 */
const MAYBE_APPLIED_ERROR_NAMES: ReadonlySet<string> = new Set(
  API_ERRORS.filter((e) => e.mayBeApplied && !e.failsEveryCall).map((e) => e.name),
);

const labelOf = (fields: DirectoryItemFields): string | undefined => fields.fullName ?? fields.companyName;

async function itemsWithCrmId(
  port: SyncDirectoryPort,
  directoryId: string,
  crmId: string,
  signal?: AbortSignal,
) {
  try {
    return await port.getItemsByCrmId(directoryId, crmId, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) return [];
    throw error;
  }
}

function failureOf(error: unknown): { code: string; reason: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    code: typeof code === 'string' ? code : SYNC_ROW_CODES.requestFailed,
    reason: error instanceof Error ? error.message : String(error),
  };
}

/**
 * Plans and (unless `dryRun`) applies a contacts sheet to a directory. Row failures are
 * reported, never thrown. An error every row would hit (the login is gone, the signal
 * aborted) stops the sync: the report says so in `stopped`, with the counts so far.
 */
export async function syncDirectory(port: SyncDirectoryPort, options: SyncOptions): Promise<SyncReport> {
  const { directoryId, sheet, signal } = options;
  const dryRun = options.dryRun ?? false;
  const report: SyncReport = {
    dryRun,
    created: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    failed: sheet.bad.length,
    changes: [],
    failures: sheet.bad.map(({ line, crmId, code, reason }) => ({
      line,
      ...(crmId === undefined ? {} : { crmId }),
      code,
      reason,
    })),
    warnings: sheet.warnings.map((w) => ({ ...w })),
  };
  const total = sheet.rows.length;
  let done = 0;
  const fail = (row: { line?: number; crmId: string }, error: unknown) => {
    if (FATAL_ERROR_NAMES.has((error as Error | null)?.name ?? '') || signal?.aborted) throw error;
    report.failed++;
    report.failures.push({ ...row, ...failureOf(error) });
  };
  const applyRow = async (row: ContactRow): Promise<void> => {
    signal?.throwIfAborted();
    const { line, crmId } = row;
    try {
      const found = await itemsWithCrmId(port, directoryId, crmId, signal);
      if (found.length > 1) {
        report.failed++;
        report.failures.push({
          line,
          crmId,
          code: SYNC_ROW_CODES.crmIdAmbiguous,
          reason: `${found.length} items have crmId ${crmId} (${found.map((i) => i.id).join(', ')}); delete all but one (directory delete --item <id>) and sync again`,
        });
        return;
      }
      const [item] = found;
      if (item === undefined) await createRow(row);
      else await updateRow(row, item);
    } catch (error) {
      fail({ line, crmId }, error);
    } finally {
      done++;
      options.onProgress?.(report, done, total);
    }
  };
  const createRow = async (row: ContactRow): Promise<void> => {
    const change: SyncChange = { action: 'create', crmId: row.crmId, line: row.line };
    const label = labelOf(row.fields);
    if (label !== undefined) change.label = label;
    if (!dryRun) {
      try {
        change.itemId = (await port.createItem(directoryId, row.fields, { signal })).item.id;
      } catch (error) {
        // The POST may have been applied though its answer was lost: the crmId tells.
        if (!MAYBE_APPLIED_ERROR_NAMES.has((error as Error | null)?.name ?? '')) throw error;
        const [created] = await itemsWithCrmId(port, directoryId, row.crmId, signal);
        if (created === undefined) throw error;
        change.itemId = created.id;
      }
    }
    report.created++;
    report.changes.push(change);
  };
  const updateRow = async (row: ContactRow, item: DirectoryItem): Promise<void> => {
    const next = desiredFields(item.fields, row, sheet.columns);
    const changedFields = changedFieldNames(item.fields, next);
    if (changedFields.length === 0) {
      report.unchanged++;
      return;
    }
    if (!dryRun) await port.replaceItem(directoryId, item.id, next, { signal });
    const change: SyncChange = {
      action: 'update',
      crmId: row.crmId,
      line: row.line,
      itemId: item.id,
      changedFields,
    };
    const label = labelOf(next);
    if (label !== undefined) change.label = label;
    report.updated++;
    report.changes.push(change);
  };

  try {
    await forEachBounded(sheet.rows, options.concurrency ?? DEFAULT_SYNC_CONCURRENCY, applyRow);
    if (options.deleteMissing) await deleteMissing(port, options, report);
  } catch (error) {
    report.stopped = signal?.aborted
      ? { code: DIRECTORY_CLI_ERROR_CODES.interrupted, reason: 'interrupted' }
      : failureOf(error);
  }
  report.changes.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  report.failures.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  return report;
}

/**
 * Deletes (by item id, which is safe to retry) the items whose crmId the file does not
 * name. Skipped when a record of the file could not be read: that record may be the one
 * naming a crmId, and a deletion cannot be undone.
 */
async function deleteMissing(
  port: SyncDirectoryPort,
  options: SyncOptions,
  report: SyncReport,
): Promise<void> {
  const { directoryId, sheet, signal } = options;
  if (sheet.unreadable > 0) {
    report.deletionsSkipped = `${sheet.unreadable} row(s) of the file could not be read, and may name a crmId: fix them to delete missing items`;
    return;
  }
  // No listing endpoint: an empty search text matches every item (CONTAINS '').
  const items = await port.searchItems(directoryId, '', { signal });
  const missing = items.filter(
    (i) => i.fields.crmId !== undefined && !sheet.crmIds.has(i.fields.crmId.toLowerCase()),
  );
  let done = 0;
  await forEachBounded(missing, options.concurrency ?? DEFAULT_SYNC_CONCURRENCY, async (item) => {
    const crmId = item.fields.crmId as string;
    try {
      if (!(options.dryRun ?? false)) {
        await port.deleteItem(directoryId, item.id, { signal });
      }
      const change: SyncChange = { action: 'delete', crmId, itemId: item.id };
      const label = labelOf(item.fields);
      if (label !== undefined) change.label = label;
      report.deleted++;
      report.changes.push(change);
    } catch (error) {
      // Deleted by someone else meanwhile: the goal is reached.
      if (error instanceof NotFoundError) return;
      if (FATAL_ERROR_NAMES.has((error as Error | null)?.name ?? '') || signal?.aborted) throw error;
      report.failed++;
      report.failures.push({ crmId, ...failureOf(error) });
    } finally {
      done++;
      options.onProgress?.(report, done, missing.length);
    }
  });
}
