import { createHash, randomBytes } from 'node:crypto';
import { type CountryCode, isSupportedCountry } from 'libphonenumber-js';
import type { DirectoryClient } from '../../api';
import type { ObjectStore } from '../../stores';
import { EXPORT_ERROR_CODES, ExportConfigError, ExportError } from '../errors';
import { partitionFiles } from '../publish/directory-partition';
import { DEFAULT_MIN_SHARE_OF_PUBLISHED, shrunkBelowShare } from '../publish/shrink-guard';
import {
  SEGMENT_ID,
  type StagedDataFile,
  type StagedDirectorySync,
  writeStagedDirectorySync,
} from '../publish/staged-directory-sync';
import { deleteDataFiles } from '../publish/table-publish';
import {
  commitDirectoriesOverwrite,
  directoryDataPrefix,
  ensureTable,
  fileSchema,
  type IcebergTable,
  type LoadedTable,
  lakeTable,
  loadTable,
  tableName,
} from '../table';
import { checkTenantId } from '../tenant';
import type { ExportLogger, LakeTables } from '../types';
import { CONTACT_DATASETS, contactPhonesColumns, contactsColumns, omittedFields } from './columns';
import { encodeContactsParquet } from './contacts-parquet';
import { readContactVersions } from './contacts-read';
import { DirectoryNotListedError, DirectoryReadError } from './errors';
import { contactPhoneRows } from './phones';
import { readWholeDirectory, type WholeDirectoryOptions } from './read-directory';
import { versionDirectory } from './versioning';
import { countryOfZone } from './zone-country';

/** What a directory sync is asked to do: whose directories, read how, versioned when. */
export interface DirectorySyncSettings {
  /** The tenant (a multi-tenant lake); undefined in a single-tenant lake. */
  tenant?: string;
  /**
   * The country national numbers are read in (ISO 3166-1 alpha-2, the tenant registry's);
   * else countryOfZone(zone); neither: numbers without `+` are invalid, dialling facts NULL.
   */
  country?: string;
  /** The tenant's IANA time zone. */
  zone: string;
  /** Directory ids to sync (the registry's); undefined: every directory of the workspace. */
  directories?: readonly string[];
  /** Item fields (or `extra`) the deployment leaves out of the lake (contactsColumns). */
  omitFields?: readonly string[];
  /** Release the shrink guard: a directory that lost most of its items is replaced anyway. */
  force?: boolean;
  /** A directory whose live items fall below this share of the table's is held. @default DEFAULT_MIN_SHARE_OF_PUBLISHED (0.5) */
  minShareOfPublished?: number;
  /** Names the data files and the staged syncs; the snapshots' `report-export.run-id`. */
  runId: string;
  now?: () => Date;
  /** How each directory is read (timeouts, retries, caps): readWholeDirectory's options. */
  read?: Omit<WholeDirectoryOptions, 'call'> & { call?: { timeoutMs?: number; maxRetries?: number } };
  /** The longest one directory's sync may take, reading to writing. @default 300,000 (5 min) */
  directoryTimeoutMs?: number;
}

export interface DirectorySyncDeps {
  client: Pick<DirectoryClient, 'listDirectories' | 'getDirectory' | 'searchItems'>;
  /** The lake's store: the tables' data files, and (defer) the staging area. */
  store: ObjectStore;
  prefix: string;
  tables: LakeTables;
  /**
   * `direct`: this process commits (a local deployment, the CLI): the tables are created if
   * missing and each table gets one snapshot for every changed directory. `defer`: a
   * tenant's session: the data files and one staged sync per changed directory are written,
   * for the committer's commitStagedDirectorySyncs.
   */
  mode: 'direct' | 'defer';
  logger?: ExportLogger;
  signal?: AbortSignal;
}

/** An error as an outcome carries it: its name, code, and a bounded message. */
export interface SyncError {
  name: string;
  code?: string;
  message: string;
}

export interface DirectorySyncOutcome {
  directoryId: string;
  directoryName: string;
  status: 'unchanged' | 'committed' | 'staged' | 'held' | 'failed';
  /** Items the service listed (0 when it could not be read). */
  items: number;
  newVersions: number;
  closedVersions: number;
  deletions: number;
  /** contact_phones rows of the partition after the sync. */
  phones: number;
  /** failed, held: why. */
  error?: SyncError;
  /** staged: the staged sync's key, for the committer. */
  staged?: string;
}

export interface DirectoriesSyncResult {
  outcomes: DirectorySyncOutcome[];
  /** The directories could not be listed (nothing was synced), or the commit failed. */
  error?: SyncError;
}

const DEFAULT_DIRECTORY_TIMEOUT_MS = 300_000;
/** Most characters of an error message an outcome carries (the run record is small JSON). */
const MAX_MESSAGE = 500;

/** An outcome's error: the name, code and a bounded message of what was thrown. */
export function syncError(error: unknown): SyncError {
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as { code?: unknown }).code;
  return {
    name: e.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: e.message.length > MAX_MESSAGE ? `${e.message.slice(0, MAX_MESSAGE - 1)}…` : e.message,
  };
}

/**
 * Syncs a tenant's contact directories into `contacts` and `contact_phones`: each directory
 * read whole (readWholeDirectory), versioned against its partition of `contacts` as the
 * table holds it (SCD2, versionDirectory), its phones normalised in the tenant's country,
 * and its two partitions replaced whole: committed here (`direct`: one snapshot per table
 * for all changed directories, `contacts` first) or staged for the committer (`defer`).
 *
 * A directory is `unchanged` (nothing written) when neither partition would change; `held`
 * when its live items fall below `minShareOfPublished` of the table's (unless `force`);
 * `failed` when anything fails (the read, a timeout, the table's rows, an encode, a write):
 * nothing of it is committed or staged, the files it wrote removed (best effort), and the
 * other directories go on. Never a false deletion: only a complete listing versions a
 * directory, and a directory the service does not list is never emptied.
 *
 * @example
 * const { outcomes } = await syncDirectories(
 *   { client: api.directories, store, prefix, tables, mode: 'direct' },
 *   { tenant: 'acme', zone: 'Europe/London', runId },
 * );
 */
export async function syncDirectories(
  deps: DirectorySyncDeps,
  settings: DirectorySyncSettings,
): Promise<DirectoriesSyncResult> {
  if (settings.tenant !== undefined) checkTenantId(settings.tenant);
  if (!SEGMENT_ID.test(settings.runId)) {
    throw new ExportConfigError(`runId must be a plain key segment, got ${JSON.stringify(settings.runId)}`);
  }
  const omit = omittedFields(settings.omitFields ?? []);
  const tenanted = settings.tenant !== undefined;
  const context: SyncContext = {
    deps,
    settings,
    omit,
    country: tenantCountry(settings),
    columns: {
      contacts: contactsColumns({ omitFields: [...omit], tenanted }),
      phones: contactPhonesColumns({ tenanted }),
    },
    lake: contactTables(deps),
  };
  let listed: { id: string; name: string }[];
  try {
    listed = await listAll(deps);
  } catch (error) {
    deps.logger?.warn('The directories could not be listed: none synced', { ...syncError(error) });
    return { outcomes: [], error: syncError(error) };
  }
  const wanted = settings.directories ?? listed.map((d) => d.id);
  const outcomes: DirectorySyncOutcome[] = [];
  const landing: Landing[] = [];
  let tables: { contacts: LoadedTable; phones: LoadedTable } | undefined;
  for (const directoryId of [...new Set(wanted)]) {
    const directory = listed.find((d) => d.id === directoryId);
    if (directory === undefined) {
      outcomes.push(failed({ id: directoryId, name: '' }, new DirectoryNotListedError(directoryId)));
      continue;
    }
    try {
      tables ??= await readyTables(context);
    } catch (error) {
      outcomes.push(failed(directory, error));
      continue;
    }
    const { outcome, land } = await syncOne(context, tables, directory);
    outcomes.push(outcome);
    if (land !== undefined) landing.push(land);
  }
  if (deps.mode === 'direct' && landing.length > 0) {
    const error = await commitDirect(context, landing);
    if (error !== undefined) {
      for (const l of landing) {
        const i = outcomes.indexOf(l.outcome);
        outcomes[i] = { ...l.outcome, status: 'failed', error };
      }
      return { outcomes, error };
    }
  }
  return { outcomes };
}

/** The settings' country, checked (ExportConfigError naming it), else the zone's. */
function tenantCountry(settings: DirectorySyncSettings): CountryCode | undefined {
  if (settings.country === undefined) return countryOfZone(settings.zone);
  if (!isSupportedCountry(settings.country)) {
    throw new ExportConfigError(
      `country must be an ISO 3166-1 alpha-2 code libphonenumber knows (GB, US), got ${JSON.stringify(settings.country)}`,
    );
  }
  return settings.country;
}

interface SyncContext {
  deps: DirectorySyncDeps;
  settings: DirectorySyncSettings;
  omit: ReturnType<typeof omittedFields>;
  country: CountryCode | undefined;
  columns: { contacts: ReturnType<typeof contactsColumns>; phones: ReturnType<typeof contactPhonesColumns> };
  lake: { contacts: IcebergTable; phones: IcebergTable };
}

/** A changed directory's written files, to commit (direct) once every directory is read. */
interface Landing {
  outcome: DirectorySyncOutcome;
  directoryId: string;
  contacts?: StagedDataFile[];
  phones?: StagedDataFile[];
}

/** Every directory the workspace lists (the client pages, up to its maxPages). */
async function listAll(deps: DirectorySyncDeps): Promise<{ id: string; name: string }[]> {
  const out: { id: string; name: string }[] = [];
  for await (const d of deps.client.listDirectories(
    deps.signal === undefined ? {} : { signal: deps.signal },
  )) {
    out.push({ id: d.id, name: d.name });
  }
  return out;
}

/**
 * Makes `contacts` and `contact_phones` ready (created when missing, evolved: ensureTable):
 * the committer's preparation of a tenant's sync, and a direct sync's first step. Their
 * columns leave out the deployment's `omitFields`.
 *
 * @example
 * const names = await prepareContactTables({ store, prefix, tables, tenant: 'acme', omitFields: ['email'] });
 */
export async function prepareContactTables(target: {
  store: ObjectStore;
  prefix: string;
  tables: LakeTables;
  tenant?: string;
  omitFields: readonly string[];
  signal?: AbortSignal;
}): Promise<string[]> {
  const tenanted = target.tenant !== undefined;
  const lake = contactTables(target);
  const columns = {
    contacts: contactsColumns({ omitFields: [...omittedFields(target.omitFields)], tenanted }),
    phones: contactPhonesColumns({ tenanted }),
  };
  await ensureContactTables(lake, columns, {
    ...(target.tenant === undefined ? {} : { tenant: target.tenant }),
    ...(target.signal === undefined ? {} : { signal: target.signal }),
  });
  return [tableName(lake.contacts), tableName(lake.phones)];
}

function contactTables(lake: {
  store: ObjectStore;
  prefix: string;
  tables: LakeTables;
}): SyncContext['lake'] {
  const location = { store: lake.store, prefix: lake.prefix, ...lake.tables };
  return {
    contacts: lakeTable(location, CONTACT_DATASETS.contacts),
    phones: lakeTable(location, CONTACT_DATASETS.contactPhones),
  };
}

async function ensureContactTables(
  lake: SyncContext['lake'],
  columns: SyncContext['columns'],
  options: { tenant?: string; signal?: AbortSignal },
): Promise<{ contacts: LoadedTable; phones: LoadedTable }> {
  return {
    contacts: await ensureTable(lake.contacts, columns.contacts, options),
    phones: await ensureTable(lake.phones, columns.phones, options),
  };
}

/** The tables as they are: created or evolved when this process commits, loaded (never written) when it stages. */
async function readyTables(context: SyncContext): Promise<{ contacts: LoadedTable; phones: LoadedTable }> {
  const { deps, settings, lake, columns } = context;
  const tenant = settings.tenant === undefined ? {} : { tenant: settings.tenant };
  if (deps.mode === 'direct') return ensureContactTables(lake, columns, tenant);
  const contacts = await loadTable(lake.contacts);
  const phones = await loadTable(lake.phones);
  if (contacts === undefined || phones === undefined) {
    throw new ExportError(
      EXPORT_ERROR_CODES.tableInvalid,
      `The tables contacts and contact_phones must exist before a tenant's sync (the committer prepares them)`,
    );
  }
  return { contacts, phones };
}

function failed(directory: { id: string; name: string }, error: unknown): DirectorySyncOutcome {
  return { ...emptyOutcome(directory), status: 'failed', error: syncError(error) };
}

function emptyOutcome(directory: { id: string; name: string }): Omit<DirectorySyncOutcome, 'status'> {
  return {
    directoryId: directory.id,
    directoryName: directory.name,
    items: 0,
    newVersions: 0,
    closedVersions: 0,
    deletions: 0,
    phones: 0,
  };
}

/** One directory: read, version, guard, encode, write (and stage); failures become its outcome. */
async function syncOne(
  context: SyncContext,
  tables: { contacts: LoadedTable; phones: LoadedTable },
  directory: { id: string; name: string },
): Promise<{ outcome: DirectorySyncOutcome; land?: Landing }> {
  const { deps, settings } = context;
  const written: string[] = [];
  const timeout = AbortSignal.timeout(settings.directoryTimeoutMs ?? DEFAULT_DIRECTORY_TIMEOUT_MS);
  const signal = deps.signal === undefined ? timeout : AbortSignal.any([deps.signal, timeout]);
  try {
    if (!SEGMENT_ID.test(directory.id)) {
      throw new DirectoryReadError(
        directory.id,
        'its id is no plain key segment: it cannot name a partition',
      );
    }
    const read = await readWholeDirectory(deps.client, directory.id, {
      ...settings.read,
      call: { ...settings.read?.call, signal },
    });
    const tenant = settings.tenant;
    const contactsBase = await partitionFiles(context.lake.contacts, tables.contacts, tenant, directory.id);
    const phonesBase = await partitionFiles(context.lake.phones, tables.phones, tenant, directory.id);
    const current = await readContactVersions(
      deps.store,
      contactsBase.files.map((f) => f.key),
      { tenant, directoryId: directory.id },
    );
    const now = settings.now?.() ?? new Date();
    const versioned = versionDirectory({
      tenant,
      directory: { id: directory.id, name: read.directory.name },
      current,
      items: read.items,
      now,
      omit: context.omit,
    });
    const phoneRows = contactPhoneRows(versioned.rows, context.country);
    const outcome: DirectorySyncOutcome = {
      ...emptyOutcome({ id: directory.id, name: read.directory.name }),
      status: 'unchanged',
      items: versioned.counts.items,
      newVersions: versioned.counts.newVersions,
      closedVersions: versioned.counts.closed,
      deletions: versioned.counts.deletions,
      phones: phoneRows.length,
    };
    const live = current.filter((r) => r.isCurrent && !r.isDeleted).length;
    const minShare = settings.minShareOfPublished ?? DEFAULT_MIN_SHARE_OF_PUBLISHED;
    if (shrunkBelowShare(read.items.length, live, minShare)) {
      const message = `Directory ${directory.id}: ${read.items.length} items listed, fewer than ${minShare} of the ${live} live in the table`;
      if (settings.force !== true) {
        deps.logger?.warn('A directory held by the shrink guard: its partition stays (force replaces it)', {
          directoryId: directory.id,
          items: read.items.length,
          live,
          minShareOfPublished: minShare,
        });
        return { outcome: { ...outcome, status: 'held', error: { name: 'DirectoryShrunk', message } } };
      }
      deps.logger?.warn('Replacing a directory that shrank (force)', {
        directoryId: directory.id,
        items: read.items.length,
        live,
      });
    }
    const contactsFile = versioned.changed
      ? encodeContactsParquet(context.columns.contacts, versioned.rows, {
          iceberg: fileSchemaOf(tables.contacts),
        })
      : undefined;
    const phonesFile = encodeContactsParquet(context.columns.phones, phoneRows, {
      iceberg: fileSchemaOf(tables.phones),
    });
    // The phones follow the versions and the tenant's country: their file is named by its
    // content, so an unchanged partition is told by its one live file's name.
    const phonesHash = contentId(phonesFile);
    const phonesChanged =
      !(phonesBase.files.length === 1 && phonesBase.files[0]?.key.endsWith(`-${phonesHash}.parquet`)) &&
      !(phoneRows.length === 0 && phonesBase.files.length === 0);
    if (contactsFile === undefined && !phonesChanged) return { outcome };
    signal.throwIfAborted();
    const attempt = randomBytes(4).toString('hex');
    const write = async (
      table: IcebergTable,
      bytes: Uint8Array,
      rows: number,
      id: string,
    ): Promise<StagedDataFile[]> => {
      if (rows === 0) return [];
      const key = `${directoryDataPrefix(table.location.key, tenant, directory.id)}/${settings.runId}-${attempt}-${id}.parquet`;
      written.push(key);
      const info = await deps.store.putIfAbsent(key, bytes, {
        contentType: 'application/vnd.apache.parquet',
      });
      const stored = info?.size ?? (await deps.store.head(key))?.size;
      if (stored !== bytes.length) {
        throw new ExportError(
          EXPORT_ERROR_CODES.verifyFailed,
          `Data file ${key}: ${stored ?? 'no object'} bytes stored, ${bytes.length} written`,
        );
      }
      return [{ key, rows, bytes: bytes.length }];
    };
    const land: Landing = { outcome, directoryId: directory.id };
    if (contactsFile !== undefined) {
      land.contacts = await write(
        context.lake.contacts,
        contactsFile,
        versioned.rows.length,
        contentId(contactsFile),
      );
    }
    if (phonesChanged)
      land.phones = await write(context.lake.phones, phonesFile, phoneRows.length, phonesHash);
    if (deps.mode === 'direct') {
      // Committed once every directory is read (commitDirect): one snapshot per table.
      land.outcome = { ...outcome, status: 'committed' };
      return { outcome: land.outcome, land };
    }
    signal.throwIfAborted();
    const sync: StagedDirectorySync = {
      version: 1,
      kind: 'directory-sync',
      ...(tenant === undefined ? {} : { tenant }),
      runId: settings.runId,
      directoryId: directory.id,
      directoryName: read.directory.name,
      createdAt: new Date().toISOString(),
      syncedAt: now.toISOString(),
      counts: {
        items: outcome.items,
        newVersions: outcome.newVersions,
        closedVersions: outcome.closedVersions,
        deletions: outcome.deletions,
        phones: outcome.phones,
      },
      tables: {
        ...(land.contacts === undefined
          ? {}
          : { contacts: { files: land.contacts, base: contactsBase.keys } }),
        ...(land.phones === undefined
          ? {}
          : { contact_phones: { files: land.phones, base: phonesBase.keys } }),
      },
    };
    const ref = await writeStagedDirectorySync(deps.store, deps.prefix, sync);
    return { outcome: { ...outcome, status: 'staged', staged: ref.key } };
  } catch (error) {
    await deleteDataFiles(deps.store, written);
    const e =
      signal.aborted && !(deps.signal?.aborted ?? false) && !(error instanceof DirectoryReadError)
        ? new DirectoryReadError(
            directory.id,
            `the sync took longer than ${settings.directoryTimeoutMs ?? DEFAULT_DIRECTORY_TIMEOUT_MS} ms; nothing is written`,
            { cause: error },
          )
        : error;
    deps.logger?.warn('A directory sync failed: nothing of it written', {
      directoryId: directory.id,
      ...syncError(e),
    });
    return { outcome: failed(directory, e) };
  }
}

/** The table's field ids and schema JSON, for its data files. */
function fileSchemaOf(loaded: LoadedTable): { fieldIds: Record<string, number>; schemaJson: string } {
  return fileSchema(loaded);
}

/** 32 hex of the SHA-256 of a file: its name's content part (the encoder's output depends only on the rows). */
function contentId(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** A summary value's longest list (a commit request refuses values over 8,000 characters). */
const MAX_LISTED_CHARS = 4_000;

/** `a,b,c`, or as many as fit and `+<n> more`. */
export function cappedList(values: readonly string[]): string {
  let out = '';
  for (const [i, v] of values.entries()) {
    const next = out === '' ? v : `${out},${v}`;
    if (next.length > MAX_LISTED_CHARS) return `${out},+${values.length - i} more`;
    out = next;
  }
  return out;
}

/**
 * Direct mode: every changed directory's partitions replaced, one snapshot of `contacts`,
 * then one of `contact_phones` (between the two a reader sees the new versions with the
 * phones of the old ones). A failed commit removes the files no snapshot took and is
 * returned as the error of every directory it carried.
 */
async function commitDirect(
  context: SyncContext,
  landing: readonly Landing[],
): Promise<SyncError | undefined> {
  const { deps, settings, lake } = context;
  const steps = [
    { table: lake.contacts, files: (l: Landing) => l.contacts },
    { table: lake.phones, files: (l: Landing) => l.phones },
  ];
  let step = 0;
  try {
    for (; step < steps.length; step++) {
      const { table, files } = steps[step] as (typeof steps)[number];
      const directories = landing.flatMap((l) => {
        const f = files(l);
        return f === undefined ? [] : [{ directoryId: l.directoryId, files: f }];
      });
      if (directories.length === 0) continue;
      deps.signal?.throwIfAborted();
      await commitDirectoriesOverwrite(
        table,
        {
          tenant: settings.tenant,
          directories,
          summary: {
            'report-export.run-id': settings.runId,
            'report-export.directories': cappedList(directories.map((d) => d.directoryId)),
            'report-export.rows': String(
              directories.reduce((n, d) => n + d.files.reduce((k, f) => k + f.rows, 0), 0),
            ),
          },
        },
        {
          ...(deps.signal === undefined ? {} : { signal: deps.signal }),
          expire: table.catalog.kind === 'file',
        },
      );
    }
    return undefined;
  } catch (error) {
    const left = steps
      .slice(step)
      .flatMap(({ files }) => landing.flatMap((l) => (files(l) ?? []).map((f) => f.key)));
    await deleteDataFiles(deps.store, left);
    deps.logger?.warn("The directories' commit failed: what it did not land is removed", {
      ...syncError(error),
    });
    return syncError(error);
  }
}
