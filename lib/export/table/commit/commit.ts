import { randomUUID } from 'node:crypto';
import { ExportConfigError } from '../../errors';
import { type TableIo, tableIo } from '../manifest/manifest-io';
import { expireSnapshots, tableRetention } from '../metadata/retention';
import { checkPartitioning, checkTenancy } from '../metadata/tenancy';
import type { Snapshot } from '../metadata/types';
import { type Overwrite, type OverwriteCounts, produceOverwrite } from '../snapshot/overwrite';
import { changePlan, type ReportDays, reportsOf, type TableOverwrite } from '../snapshot/replace-partitions';
import { type CommitCounts, type CommitOptions, commitWithRetry } from './commit-loop';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

/** Our summary key naming one commit, found again after a commit whose outcome was unknown. */
export const COMMIT_ID_KEY = 'report-export.commit-id';

/** What a commit did. */
export interface CommitResult extends OverwriteCounts, CommitCounts {
  snapshotId: number;
  sequenceNumber: number;
  /** The metadata file the commit made current (after an unknown outcome: where its snapshot was found). */
  metadataLocation: string;
  /** Store and catalog requests the commit made (catalog-internal requests not counted). */
  requests: number;
}

/** What an overwrite commit returns (commitOverwrite, commitDirectoriesOverwrite). */
export type OverwriteResult = CommitResult;

/**
 * Replaces the report's days `change.dts` of the table with `change.files` in ONE
 * `overwrite` snapshot: a reader sees all of them or none. A conflict with another writer
 * re-applies the change onto the table as it then is (another run's days stay; a day both
 * replaced ends up with the later commit's files) and retries, bounded (see CommitOptions).
 * After an unknown outcome it looks for its snapshot (by a commit id in the summary) before
 * retrying, so it never lands twice.
 *
 * @example
 * const result = await commitOverwrite(table, {
 *   reportId: 'r1', dts: ['2026-11-24', '2026-11-25'],
 *   files: [{ key, dt: '2026-11-24', rows: 1200, bytes: 80_000 }],
 *   summary: { 'report-export.run-id': runId },
 * });
 */
export async function commitOverwrite(
  t: IcebergTable,
  change: TableOverwrite,
  options: CommitOptions = {},
): Promise<CommitResult> {
  const planned = changePlan(t.location, change);
  const overwrite: Overwrite = {
    mayDelete: planned.mayHold,
    deletes: ({ data_file: { partition } }) => planned.replaces(partition),
    adds: planned.adds,
    summary: change.summary,
  };
  return await commitSnapshot(
    t,
    async (current) => {
      checkPartitioning(current.metadata, 'report', tableName(t));
      checkTenancy(current.metadata, change.tenant, tableName(t));
      return overwrite;
    },
    overwriteWhat(t, change),
    options,
  );
}

/**
 * Names a change in errors: `the overwrite of report r1 of tenant acme on 2026-11-25 in table
 * calls` (several reports: `of reports r1 (2026-11-25), r2 (2026-11-24, 2026-11-25) of ...`).
 */
export function overwriteWhat(
  t: IcebergTable,
  change: TableOverwrite | (ReportDays & { tenant?: string | undefined }),
): string {
  const of = change.tenant === undefined ? '' : ` of tenant ${change.tenant}`;
  const reports = reportsOf(change as TableOverwrite);
  if (reports.length === 1) {
    const [r] = reports as [ReportDays];
    return `the overwrite of report ${r.reportId}${of} on ${r.dts.join(', ')} in table ${tableName(t)}`;
  }
  const list = reports.map((r) => `${r.reportId} (${r.dts.join(', ')})`).join(', ');
  return `the overwrite of reports ${list}${of} in table ${tableName(t)}`;
}

/**
 * An overwrite as a plan returns it; `lateSummary` gives summary values known only once the
 * snapshot is built (counts its `deletes` tallied), added to the snapshot's summary.
 */
export type PlannedOverwrite = Overwrite & { lateSummary?: () => Record<string, string> };

/**
 * How a commit finds its change in the table: by default the snapshot whose summary holds its
 * commit id, looked for after an unknown outcome. A grouped commit (group-commit.ts) looks on
 * every attempt (another writer may have committed it) and counts its own part of the snapshot.
 */
export interface Landing {
  find(current: LoadedTable): Snapshot | undefined;
  counts(snapshot: Snapshot): OverwriteCounts;
}

/**
 * Commits one overwrite snapshot, planned and built afresh on each attempt's state
 * (commitOverwrite, rollbackTo); `what` names it in errors.
 */
export async function commitSnapshot(
  t: IcebergTable,
  plan: (current: LoadedTable, io: TableIo) => Promise<PlannedOverwrite>,
  what: string,
  options: CommitOptions,
  landing?: Landing,
): Promise<CommitResult> {
  const now = options.now ?? Date.now;
  const io = tableIo(t.location);
  const commitId = randomUUID();
  let counts: OverwriteCounts | undefined;
  let snapshot: Snapshot | undefined;
  const result = (
    s: Snapshot,
    c: OverwriteCounts,
    metadataLocation: string,
    loop: CommitCounts,
  ): CommitResult => ({
    snapshotId: s['snapshot-id'],
    sequenceNumber: s['sequence-number'],
    metadataLocation,
    ...loop,
    ...c,
    requests: io.requests,
  });
  return await commitWithRetry(
    t,
    io,
    {
      what,
      load: (tio) => loadTable(t, tio),
      async prepare(current, _io, loop) {
        const loaded = requireTable(t, current);
        const already = landing?.find(loaded);
        if (already !== undefined) {
          return {
            unchanged: result(
              already,
              landing?.counts(already) ?? countsOf(already),
              loaded.base.metadataLocation,
              loop,
            ),
          };
        }
        const overwrite = await plan(loaded, io);
        const summary = { ...overwrite.summary, [COMMIT_ID_KEY]: commitId };
        const built = await produceOverwrite(io, loaded, { ...overwrite, summary }, now());
        counts = built.counts;
        snapshot = withLateSummary(built.snapshot, overwrite.lateSummary?.());
        const withSummary = {
          ...built.metadata,
          snapshots: built.metadata.snapshots.map((s) => (s === built.snapshot ? (snapshot as Snapshot) : s)),
        };
        const metadata = options.expire
          ? expireSnapshots(withSummary, tableRetention(withSummary, snapshot['timestamp-ms']))
          : withSummary;
        return { metadata };
      },
      landed(current, loop) {
        if (current === undefined) return undefined;
        const found =
          landing?.find(current) ??
          current.metadata.snapshots.find((s) => s.summary[COMMIT_ID_KEY] === commitId);
        if (found === undefined) return undefined;
        // The attempt that landed may not be the last one built: its counts are in its summary.
        return result(found, landing?.counts(found) ?? countsOf(found), current.base.metadataLocation, loop);
      },
      done: (committed, loop) =>
        result(snapshot as Snapshot, counts as OverwriteCounts, committed.base.metadataLocation, loop),
    },
    options,
  );
}

function withLateSummary(snapshot: Snapshot, late: Record<string, string> | undefined): Snapshot {
  return late === undefined ? snapshot : { ...snapshot, summary: { ...snapshot.summary, ...late } };
}

/** What a snapshot of ours changed, from its summary. */
function countsOf(snapshot: Snapshot): OverwriteCounts {
  const n = (key: string) => Number(snapshot.summary[key] ?? 0);
  return {
    addedFiles: n('added-data-files'),
    deletedFiles: n('deleted-data-files'),
    addedRows: n('added-records'),
    deletedRows: n('deleted-records'),
  };
}

function requireTable(t: IcebergTable, current: LoadedTable | undefined): LoadedTable {
  if (current === undefined) {
    throw new ExportConfigError(
      `Table ${tableName(t)} does not exist in the ${t.catalog.kind} catalog (at ${t.location.uri}); ensureTable creates it`,
    );
  }
  return current;
}
