import { ExportConfigError } from '../../errors';
import { dateToDays, summaryMayHold } from '../manifest/manifest-codec';
import { type TableLocation, uriOf } from '../metadata/location';
import {
  type DataFile,
  isDirectoryPartition,
  type ManifestFile,
  type PartitionValue,
} from '../metadata/types';

// What an overwrite of partitions replaces (pyiceberg's overwrite with a partition filter):
// the days of a tenant's reports, and the files that replace them. A change is planned into
// the overwrite producer's input (overwrite.ts): which manifests may hold a replaced file,
// which live files are replaced, the files added.

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
export function changePlan(location: TableLocation, change: TableOverwrite): ChangePlan {
  const reports = reportsOf(change);
  const ids = new Set<string>();
  const plans = reports.map((report) => {
    if (ids.has(report.reportId)) {
      throw new ExportConfigError(`The change lists report ${report.reportId} twice: list its days once`);
    }
    ids.add(report.reportId);
    return reportPlan(location, change.tenant, report);
  });
  if (plans.length === 1) return plans[0] as ChangePlan;
  return {
    adds: plans.flatMap((p) => p.adds),
    mayHold: (manifest) => plans.some((p) => p.mayHold(manifest)),
    replaces: (partition) => plans.some((p) => p.replaces(partition)),
  };
}

function reportPlan(location: TableLocation, tenant: string | undefined, report: ReportDays): ChangePlan {
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
      dataFile(uriOf(location, f.key), { tenant, reportId: report.reportId, dt: f.dt }, f.rows, f.bytes),
    ),
    mayHold: (manifest) => mayHold(manifest, { tenant, reportId: report.reportId }, days),
    replaces: (partition) =>
      !isDirectoryPartition(partition) &&
      partition.tenant === tenant &&
      partition.report_id === report.reportId &&
      days.has(partition.dt),
  };
}

/** A partition of a report table: the report's day, of a tenant in a multi-tenant lake. */
export interface TablePartition {
  tenant?: string | undefined;
  reportId: string;
  dt: string;
}

/** A partition of a directory table: the directory, of a tenant in a multi-tenant lake. */
export interface DirectoryPartition {
  tenant?: string | undefined;
  directoryId: string;
}

/**
 * A data file for a new manifest entry, at `uri`, of the (tenant, report, day) partition of a
 * report table, or the (tenant, directory) partition of a directory table.
 */
export function dataFile(
  uri: string,
  partition: TablePartition | DirectoryPartition,
  rows: number,
  bytes: number,
): DataFile {
  const tenant = partition.tenant === undefined ? {} : { tenant: partition.tenant };
  return {
    content: 0,
    file_path: uri,
    file_format: 'PARQUET',
    partition:
      'directoryId' in partition
        ? { ...tenant, directory_id: partition.directoryId }
        : { ...tenant, report_id: partition.reportId, dt: dateToDays(partition.dt) },
    record_count: BigInt(rows),
    file_size_in_bytes: BigInt(bytes),
    column_sizes: null,
    value_counts: null,
    null_value_counts: null,
    lower_bounds: null,
    upper_bounds: null,
    split_offsets: null,
    sort_order_id: null,
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
  if (change.tenant !== undefined && !summaryMayHold(tenant, 'string', change.tenant)) return false;
  if (!summaryMayHold(report, 'string', change.reportId)) return false;
  return [...days].some((d) => summaryMayHold(dt, 'date', d));
}
