import { randomUUID } from 'node:crypto';
import {
  type Column,
  CreateTableCommand,
  GetTableCommand,
  GlueClient,
  type GlueClientConfig,
  type Table,
  type TableInput,
  UpdateTableCommand,
} from '@aws-sdk/client-glue';
import { type AwsCallName, accessDeniedHint, permissionsOf, STORE_OPERATION_CALLS } from './aws-calls';
import {
  type Catalog,
  type CatalogColumn,
  type CatalogCommit,
  CatalogRequestError,
  type CatalogTable,
  CommitConflictError,
  CommitStateUnknownError,
  type TableIdentifier,
} from './catalog';
import { type ObjectStore, objectKeyOfUri, readTextAtUri } from './object-store';

export interface GlueCatalogOptions {
  client: GlueClient;
  /** Where the metadata files go: the store of the tables' locations (S3). */
  store: ObjectStore;
  /**
   * The Glue database of the tables (`TABLE_CATALOG=glue:<database>`): a table identifier
   * with an empty namespace is in it; one naming another database is refused.
   */
  database: string;
  /** The Data Catalog's id (the account); default the caller's account. */
  catalogId?: string;
  /** Per-request timeout in ms, through an AbortSignal. Default 30 s. */
  timeoutMs?: number;
  /** The uuid of a metadata file's name (tests). Default randomUUID. */
  newId?: () => string;
}

/** The AWS calls of each operation (aws-calls.ts), named in AccessDenied messages. */
const CALLS = STORE_OPERATION_CALLS.glueCatalog;
/** `<N>-<uuid>.metadata.json`, as Iceberg's catalogs name metadata files (N from 0, 5 digits). */
const METADATA_NUMBER = /\/(\d+)-[^/]*\.metadata\.json$/;
/**
 * The token of a commit whose table moved on again before its VersionId was read: no
 * VersionId equals it, so a commit onto it conflicts and its writer reloads.
 */
const SUPERSEDED = 'superseded';

/** A Glue client with bounded retries (the SDK's; a commit's outcome is checked after a failure). */
export function createGlueClient(config: GlueClientConfig = {}): GlueClient {
  return new GlueClient({ maxAttempts: 5, retryMode: 'adaptive', ...config });
}

/**
 * Iceberg tables in the Glue Data Catalog, as Athena reads them: the table's
 * `metadata_location` parameter names its current metadata file, and a commit writes the
 * next file to the store, then moves the parameter with UpdateTable naming the VersionId it
 * read (Glue refuses with ConcurrentModificationException when the table moved since).
 * SkipArchive: no Glue table version per commit (Iceberg keeps the history itself).
 */
export class GlueCatalog implements Catalog {
  readonly kind = 'glue';
  readonly #client: GlueClient;
  readonly #store: ObjectStore;
  readonly #database: string;
  readonly #catalogId: string | undefined;
  readonly #timeoutMs: number;
  readonly #newId: () => string;

  constructor(options: GlueCatalogOptions) {
    this.#client = options.client;
    this.#store = options.store;
    this.#database = options.database;
    this.#catalogId = options.catalogId;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#newId = options.newId ?? randomUUID;
  }

  async load(id: TableIdentifier): Promise<CatalogTable | undefined> {
    const table = this.#inDatabase(id);
    let found: Table | undefined;
    try {
      found = await this.#getTable(table);
    } catch (cause) {
      throw this.#refused(cause, table, CALLS.load, 'read');
    }
    return found === undefined ? undefined : stateOf(table, found);
  }

  readMetadata(metadataLocation: string): Promise<string> {
    return readTextAtUri(this.#store, metadataLocation);
  }

  async commit(
    id: TableIdentifier,
    base: CatalogTable | undefined,
    commit: CatalogCommit,
  ): Promise<CatalogTable> {
    const table = this.#inDatabase(id);
    const calls = base === undefined ? CALLS.create : CALLS.commit;
    let current: Table | undefined;
    try {
      current = await this.#getTable(table);
    } catch (cause) {
      throw this.#refused(cause, table, calls, 'read');
    }
    if (base === undefined && current !== undefined)
      throw new CommitConflictError(table, 'it exists already');
    if (base !== undefined && current?.VersionId !== base.version) {
      throw new CommitConflictError(
        table,
        current === undefined ? 'it was deleted' : `VersionId ${current.VersionId} is not ${base.version}`,
      );
    }

    const metadataLocation = `${commit.location}/metadata/${metadataName(base, this.#newId())}`;
    const metadataKey = objectKeyOfUri(this.#store, metadataLocation);
    // Create-only (If-None-Match: *): a metadata file is never overwritten. Its name is fresh;
    // one there already is this write's own (retried after a lost reply) or not ours to touch.
    const created = await this.#store.putIfAbsent(metadataKey, commit.metadata, {
      contentType: 'application/json',
    });
    if (
      created === undefined &&
      (await readTextAtUri(this.#store, metadataLocation).catch(() => undefined)) !== commit.metadata
    ) {
      throw new CatalogRequestError(
        `${metadataLocation} exists already with other contents; metadata files are never overwritten`,
      );
    }

    const input = tableInput(table, current, commit, metadataLocation, base?.metadataLocation);
    const options = { abortSignal: AbortSignal.timeout(this.#timeoutMs) };
    try {
      if (base === undefined) {
        await this.#client.send(
          new CreateTableCommand({ ...this.#catalog(), DatabaseName: table.namespace, TableInput: input }),
          options,
        );
      } else {
        await this.#client.send(
          new UpdateTableCommand({
            ...this.#catalog(),
            DatabaseName: table.namespace,
            TableInput: input,
            VersionId: base.version,
            SkipArchive: true,
          }),
          options,
        );
      }
    } catch (cause) {
      return this.#failed(table, cause, metadataLocation, metadataKey, calls);
    }
    return this.#committed(table, metadataLocation);
  }

  /**
   * After a refused create or update: the table may still be ours (a request the SDK retried
   * after its first attempt succeeded is refused as a conflict). Only when the table names
   * another file is ours deleted and the refusal thrown; a failure with no answer (network,
   * timeout, a 5xx) leaves the file and the outcome to the writer's reload.
   */
  async #failed(
    table: TableIdentifier,
    cause: unknown,
    metadataLocation: string,
    metadataKey: string,
    calls: readonly AwsCallName[],
  ): Promise<CatalogTable> {
    if (!isClientFault(cause)) {
      throw new CommitStateUnknownError(
        `Glue did not answer the commit of ${tableName(table)} (${errorName(cause)}): ${metadataLocation} may be current`,
        { cause },
      );
    }
    let now: Table | undefined;
    try {
      now = await this.#getTable(table);
    } catch (readCause) {
      throw new CommitStateUnknownError(
        `Could not tell whether ${tableName(table)} moved to ${metadataLocation} (${errorName(cause)}, then ${errorName(readCause)})`,
        { cause: readCause },
      );
    }
    if (now?.Parameters?.metadata_location === metadataLocation) return stateOf(table, now);
    await this.#store.deleteMany([metadataKey]).catch(() => undefined); // an orphan at worst
    const name = errorName(cause);
    if (name === 'ConcurrentModificationException' || name === 'AlreadyExistsException')
      throw new CommitConflictError(table, name, { cause });
    if (name === 'EntityNotFoundException') throw new CommitConflictError(table, 'it was deleted', { cause });
    throw this.#refused(cause, table, calls, 'commit');
  }

  /** The table's state after our commit; its VersionId read back (Glue's answers carry none). */
  async #committed(table: TableIdentifier, metadataLocation: string): Promise<CatalogTable> {
    let now: Table | undefined;
    try {
      now = await this.#getTable(table);
    } catch {
      now = undefined; // committed all the same: the next commit reloads
    }
    if (now?.Parameters?.metadata_location === metadataLocation) return stateOf(table, now);
    return { metadataLocation, version: SUPERSEDED };
  }

  /** GetTable; undefined when there is no such table. */
  async #getTable(table: TableIdentifier): Promise<Table | undefined> {
    try {
      const out = await this.#client.send(
        new GetTableCommand({ ...this.#catalog(), DatabaseName: table.namespace, Name: table.name }),
        { abortSignal: AbortSignal.timeout(this.#timeoutMs) },
      );
      return out.Table;
    } catch (cause) {
      if (errorName(cause) === 'EntityNotFoundException') return undefined;
      throw cause;
    }
  }

  /** The identifier in the catalog's database (an empty namespace is that database). */
  #inDatabase(id: TableIdentifier): TableIdentifier {
    if (id.namespace !== '' && id.namespace !== this.#database) {
      throw new CatalogRequestError(
        `Table ${id.namespace}.${id.name} is not in the Glue database ${this.#database} of this catalog`,
      );
    }
    return { namespace: this.#database, name: id.name };
  }

  #catalog(): { CatalogId?: string } {
    return this.#catalogId === undefined ? {} : { CatalogId: this.#catalogId };
  }

  /** A failed request as CatalogRequestError; when AWS refused it, naming the permissions needed. */
  #refused(
    cause: unknown,
    table: TableIdentifier,
    calls: readonly AwsCallName[],
    what: string,
  ): CatalogRequestError {
    const needs = permissionsOf(calls, {
      region: '*',
      account: this.#catalogId ?? '*',
      database: table.namespace,
      table: table.name,
    });
    return new CatalogRequestError(
      `Glue could not ${what} ${tableName(table)} (${errorName(cause)})${accessDeniedHint(cause, needs)}`,
      { cause },
    );
  }
}

/** The state GetTable shows; refuses a table that is not an Iceberg table. */
function stateOf(table: TableIdentifier, found: Table): CatalogTable {
  const metadataLocation = found.Parameters?.metadata_location;
  if (found.Parameters?.table_type?.toUpperCase() !== 'ICEBERG' || metadataLocation === undefined) {
    throw new CatalogRequestError(
      `Glue table ${tableName(table)} is not an Iceberg table (no table_type=ICEBERG and metadata_location)`,
    );
  }
  if (found.VersionId === undefined)
    throw new CatalogRequestError(`Glue table ${tableName(table)} has no VersionId`);
  return { metadataLocation, version: found.VersionId };
}

/** `<N+1>-<uuid>.metadata.json` after a base named `<N>-...` (from 00000; a base named otherwise counts as -1). */
export function metadataName(base: CatalogTable | undefined, id: string): string {
  const previous = base === undefined ? undefined : METADATA_NUMBER.exec(base.metadataLocation)?.[1];
  const next = previous === undefined ? 0 : Number(previous) + 1;
  return `${String(next).padStart(5, '0')}-${id}.metadata.json`;
}

/**
 * The table's definition after the commit: what GetTable showed carried over (description,
 * owner, other parameters, storage descriptor fields), with the Iceberg parameters, the
 * location and the current schema's columns.
 */
function tableInput(
  table: TableIdentifier,
  current: Table | undefined,
  commit: CatalogCommit,
  metadataLocation: string,
  previousLocation: string | undefined,
): TableInput {
  return {
    Name: table.name,
    Description: current?.Description,
    Owner: current?.Owner,
    Retention: current?.Retention,
    PartitionKeys: current?.PartitionKeys,
    TableType: 'EXTERNAL_TABLE',
    Parameters: {
      ...current?.Parameters,
      table_type: 'ICEBERG',
      metadata_location: metadataLocation,
      ...(previousLocation === undefined ? {} : { previous_metadata_location: previousLocation }),
    },
    StorageDescriptor: {
      ...current?.StorageDescriptor,
      Location: commit.location,
      Columns: commit.columns.map(glueColumn),
    },
  };
}

/** A column as Glue lists an Iceberg field (the parameters Iceberg's own Glue catalog writes). */
function glueColumn(column: CatalogColumn): Column {
  return {
    Name: column.name,
    Type: column.type,
    ...(column.comment === undefined ? {} : { Comment: column.comment }),
    Parameters: {
      'iceberg.field.id': String(column.fieldId),
      'iceberg.field.optional': String(!column.required),
      'iceberg.field.current': 'true',
    },
  };
}

/** An error Glue answered as the caller's fault (4xx): the request was refused, nothing changed. */
function isClientFault(error: unknown): boolean {
  const e = error as { $fault?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.$fault === 'client' && (e.$metadata?.httpStatusCode ?? 0) >= 400;
}

function errorName(error: unknown): string {
  return (error as { name?: string } | null)?.name ?? 'Error';
}

function tableName(table: TableIdentifier): string {
  return `${table.namespace}.${table.name}`;
}
