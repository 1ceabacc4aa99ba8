import { randomUUID } from 'node:crypto';
import { ExportConfigError } from '../../errors';
import { dateToDays } from '../manifest/manifest-codec';
import { type TableIo, tableIo } from '../manifest/manifest-io';
import { uriOf } from '../metadata/location';
import { expireSnapshots, tableRetention } from '../metadata/retention';
import type { DataFile, FieldSummary, ManifestFile, PartitionValue, Snapshot } from '../metadata/types';
import {
  buildOverwrite,
  COMMIT_ID_KEY,
  checkTenancy,
  dataFile,
  type Overwrite,
  type OverwriteCounts,
} from '../snapshot/snapshot-builder';
import { type CommitCounts, type CommitOptions, commitWithRetry } from './commit-loop';
import { type IcebergTable, type LoadedTable, loadTable, tableName } from './table';

/** A data file a run wrote, to be added by a commit. */
export interface NewDataFile {
  /** Its key in the table's store (under the table's location). */
  key: string;
  /** Its partition day, `YYYY-MM-DD`. */
  dt: string;
  rows: number;
  bytes: number;
}

/** One report's part of a change: its days replaced, and the files that replace them. */
export interface ReportDays {
  reportId: string;
  /** The days replaced: their live files are deleted (a day without files here ends up empty). */
  dts: readonly string[];
  /** The files added; each one's day is among `dts`. */
  files: readonly NewDataFile[];
}

/** One run's change to a table: the report's partitions it replaces, and its files. */
export interface OverwriteChange extends ReportDays {
  /**
   * The tenant whose partitions they are (a multi-tenant lake's table): only its partitions
   * of the report's days are replaced, never another tenant's.
   */
  tenant?: string | undefined;
  /** Summary values naming the run (`report-export.run-id`, `.request-id`, `.rows`). */
  summary: Record<string, string>;
}

/**
 * A change of several reports of one tenant in one snapshot (a committer's: every run of an
 * execution, and a shape-changed report's days emptied, ReportDays without files). A report is
 * listed once; its days and files are the union of its runs'.
 */
export interface ReportsOverwrite {
  tenant?: string | undefined;
  reports: readonly ReportDays[];
  summary: Record<string, string>;
}

/** What commitOverwrite takes: one report's change, or several reports' of one tenant. */
export type TableOverwrite = OverwriteChange | ReportsOverwrite;

/** The reports a change replaces days of. */
export function reportsOf(change: TableOverwrite): readonly ReportDays[] {
  return 'reports' in change ? change.reports : [change];
}

/** What a commit did. */
export interface CommitResult extends OverwriteCounts, CommitCounts {
  snapshotId: number;
  sequenceNumber: number;
  /** The metadata file the commit made current (after an unknown outcome: where its snapshot was found). */
  metadataLocation: string;
  /** Store and catalog requests the commit made (catalog-internal requests not counted). */
  requests: number;
}

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
  const planned = changePlan(t, change);
  const overwrite: Overwrite = {
    mayDelete: planned.mayHold,
    deletes: ({ data_file: { partition } }) => planned.replaces(partition),
    adds: planned.adds,
    summary: change.summary,
  };
  return await commitSnapshot(
    t,
    async (current) => {
      checkTenancy(current.metadata, change.tenant, tableName(t));
      return overwrite;
    },
    overwriteWhat(t, change),
    options,
  );
}

/** A change's part of an overwrite: its files as entries, and which live files it replaces. */
export interface ChangePlan {
  adds: DataFile[];
  /** False when the manifest's partition summaries show no file of the change's partitions. */
  mayHold(manifest: ManifestFile): boolean;
  /** Whether a live file of this partition is replaced (the tenant's report on one of the days). */
  replaces(partition: PartitionValue): boolean;
}

/**
 * Checks a change (each file dated on a day replaced, days calendar dates, a report listed
 * once) and plans its part.
 */
export function changePlan(t: IcebergTable, change: TableOverwrite): ChangePlan {
  const reports = reportsOf(change);
  const ids = new Set<string>();
  const plans = reports.map((report) => {
    if (ids.has(report.reportId)) {
      throw new ExportConfigError(`The change lists report ${report.reportId} twice: list its days once`);
    }
    ids.add(report.reportId);
    return reportPlan(t, change.tenant, report);
  });
  if (plans.length === 1) return plans[0] as ChangePlan;
  return {
    adds: plans.flatMap((p) => p.adds),
    mayHold: (manifest) => plans.some((p) => p.mayHold(manifest)),
    replaces: (partition) => plans.some((p) => p.replaces(partition)),
  };
}

function reportPlan(t: IcebergTable, tenant: string | undefined, report: ReportDays): ChangePlan {
  const days = new Set(report.dts.map((dt) => dayOf(dt)));
  for (const file of report.files) {
    if (!report.dts.includes(file.dt)) {
      throw new ExportConfigError(
        `The data file ${file.key} is dated ${file.dt}, not one of the days replaced`,
      );
    }
  }
  return {
    adds: report.files.map((f) =>
      dataFile(uriOf(t.location, f.key), { tenant, reportId: report.reportId, dt: f.dt }, f.rows, f.bytes),
    ),
    mayHold: (manifest) => mayHold(manifest, { tenant, reportId: report.reportId }, days),
    replaces: (partition) =>
      partition.tenant === tenant && partition.report_id === report.reportId && days.has(partition.dt),
  };
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
        const built = await buildOverwrite(io, loaded, { ...overwrite, summary }, now());
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

/** Days since 1970 of a partition day; a day that is not a calendar date is the caller's mistake. */
function dayOf(dt: string): number {
  try {
    return dateToDays(dt);
  } catch (error) {
    throw new ExportConfigError(`A day to replace is not a calendar date YYYY-MM-DD: ${JSON.stringify(dt)}`, {
      cause: error,
    });
  }
}

function requireTable(t: IcebergTable, current: LoadedTable | undefined): LoadedTable {
  if (current === undefined) {
    throw new ExportConfigError(
      `Table ${tableName(t)} does not exist in the ${t.catalog.kind} catalog (at ${t.location.uri}); ensureTable creates it`,
    );
  }
  return current;
}

const utf8 = new TextEncoder();

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/** Whether a value within the summary's bounds (a summary without bounds may hold anything). */
function within(
  summary: FieldSummary | undefined,
  value: Uint8Array,
  compare: (a: Uint8Array, b: Uint8Array) => number,
): boolean {
  if (summary?.lower_bound == null || summary.upper_bound == null) return true;
  return compare(summary.lower_bound, value) <= 0 && compare(value, summary.upper_bound) <= 0;
}

const int32 = (bytes: Uint8Array): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(0, true);
const day = (n: number): Uint8Array => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n, true);
  return out;
};

/**
 * False when the manifest's partition summaries ((tenant), report_id, then dt: the table's
 * tenancy is the change's, checkTenancy) show it holds no file of the tenant's report on any
 * of `days`: it is carried over unread, so a commit reads only the manifests of the
 * partitions it replaces.
 */
function mayHold(
  manifest: ManifestFile,
  change: Pick<OverwriteChange, 'tenant' | 'reportId'>,
  days: ReadonlySet<number>,
): boolean {
  const summaries = manifest.partitions ?? [];
  const [tenant, report, dt] = change.tenant === undefined ? [undefined, ...summaries] : summaries;
  if (change.tenant !== undefined && !within(tenant, utf8.encode(change.tenant), compareBytes)) return false;
  if (!within(report, utf8.encode(change.reportId), compareBytes)) return false;
  return [...days].some((d) => within(dt, day(d), (a, b) => int32(a) - int32(b)));
}
