import { ExportConfigError } from '../../errors';
import { TENANT_ID_PATTERN } from '../../tenant';
import { summaryMayHold } from '../manifest/manifest-codec';
import { type TableLocation, uriOf } from '../metadata/location';
import { DIRECTORY_COLUMN } from '../metadata/schema-mapping';
import { isDirectoryPartition, type ManifestFile } from '../metadata/types';
import { type ChangePlan, dataFile } from './replace-partitions';

// What a directory sync replaces in a directory table (`contacts`, `contact_phones`): whole
// (tenant, directory_id) partitions, each by the files that replace it (all versions of the
// directory, its history included). Planned into the overwrite producer's input as
// replace-partitions.ts plans a report's days.

/** A data file a directory sync wrote, to be added by a commit. */
export interface DirectoryDataFile {
  /** Its key in the table's store, under the partition's `directoryDataPrefix`. */
  key: string;
  rows: number;
  bytes: number;
}

/** One directory's part of a change: its partition replaced by these files (`[]` empties it). */
export interface DirectoryFiles {
  directoryId: string;
  files: readonly DirectoryDataFile[];
}

/** A change of a tenant's directories in one snapshot (one sync, several directories). */
export interface DirectoriesOverwrite {
  /** The tenant whose partitions they are (a multi-tenant lake's table); only its are replaced. */
  tenant?: string | undefined;
  /** Each directory listed once. */
  directories: readonly DirectoryFiles[];
  /** Summary values naming the sync (`report-export.run-id`, ...). */
  summary: Record<string, string>;
}

/**
 * A directory id as a partition value and a key segment: the service's ids are GUIDs; a
 * letter or digit first, then letters, digits, `.`, `_` or `-` (no `/`, no `%`, no `..`).
 */
const DIRECTORY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Refuses (ExportConfigError) a directory id that is not one key segment of DIRECTORY_ID_PATTERN. */
export function checkDirectoryId(directoryId: string): void {
  if (
    typeof directoryId !== 'string' ||
    !DIRECTORY_ID_PATTERN.test(directoryId) ||
    directoryId.includes('..')
  ) {
    throw new ExportConfigError(
      `A directory id must be 1-128 letters, digits, '.', '_' or '-' starting with a letter or digit (a GUID), got ${JSON.stringify(directoryId)}`,
    );
  }
}

/**
 * The key prefix (no trailing slash) of a directory partition's data files in the table at
 * `tableKey` (`<prefix>/tables/contacts`): `<tableKey>/data/tenant=<t>/directory_id=<d>`, in a
 * single-tenant lake `<tableKey>/data/directory_id=<d>`. What a tenant's session may write
 * for the directory, and where a commit requires the partition's files.
 */
export function directoryDataPrefix(
  tableKey: string | TableLocation,
  tenant: string | undefined,
  directoryId: string,
): string {
  const key = typeof tableKey === 'string' ? tableKey : tableKey.key;
  if (tenant !== undefined && !TENANT_ID_PATTERN.test(tenant)) {
    throw new ExportConfigError(`Not a tenant id: ${JSON.stringify(tenant)}`);
  }
  checkDirectoryId(directoryId);
  const of = tenant === undefined ? '' : `tenant=${tenant}/`;
  return `${key}/data/${of}${DIRECTORY_COLUMN}=${directoryId}`;
}

/**
 * Checks a change (a directory listed once, each file once, every file directly under its
 * partition's `directoryDataPrefix`: ExportConfigError naming the file) and plans its part:
 * the live files of the tenant's listed directories are replaced, every other partition
 * (another tenant's, another directory's) stays. A manifest whose partition summaries
 * ((tenant), directory_id) exclude every listed directory is carried over unread.
 */
export function directoriesPlan(location: TableLocation, change: DirectoriesOverwrite): ChangePlan {
  const { tenant } = change;
  if (change.directories.length === 0) {
    throw new ExportConfigError(
      `The directories overwrite${tenant === undefined ? '' : ` of tenant ${tenant}`} names no directory`,
    );
  }
  const ids = new Set<string>();
  const keys = new Set<string>();
  const adds = change.directories.flatMap((directory) => {
    const prefix = directoryDataPrefix(location.key, tenant, directory.directoryId);
    if (ids.has(directory.directoryId)) {
      throw new ExportConfigError(
        `The change lists directory ${directory.directoryId} twice: list its files once`,
      );
    }
    ids.add(directory.directoryId);
    return directory.files.map((f) => {
      const name = f.key.startsWith(`${prefix}/`) ? f.key.slice(prefix.length + 1) : '';
      if (name === '' || name.includes('/') || name === '.' || name === '..') {
        throw new ExportConfigError(
          `The data file ${f.key} is not under its partition's prefix ${prefix}/ (directory ${directory.directoryId}${tenant === undefined ? '' : ` of tenant ${tenant}`})`,
        );
      }
      if (keys.has(f.key)) throw new ExportConfigError(`The change lists the data file ${f.key} twice`);
      keys.add(f.key);
      return dataFile(
        uriOf(location, f.key),
        { tenant, directoryId: directory.directoryId },
        f.rows,
        f.bytes,
      );
    });
  });
  return {
    adds,
    mayHold: (manifest) => mayHoldDirectories(manifest, tenant, ids),
    replaces: (partition) =>
      isDirectoryPartition(partition) && partition.tenant === tenant && ids.has(partition.directory_id),
  };
}

/**
 * False when the manifest's partition summaries ((tenant), then directory_id: the table's
 * tenancy is the change's, checkTenancy) show it holds no file of the tenant's directories.
 */
function mayHoldDirectories(
  manifest: ManifestFile,
  tenant: string | undefined,
  directories: ReadonlySet<string>,
): boolean {
  const summaries = manifest.partitions ?? [];
  const [ofTenant, directory] = tenant === undefined ? [undefined, ...summaries] : summaries;
  if (tenant !== undefined && !summaryMayHold(ofTenant, 'string', tenant)) return false;
  return [...directories].some((d) => summaryMayHold(directory, 'string', d));
}
