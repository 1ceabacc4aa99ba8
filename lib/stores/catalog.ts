/**
 * Catalog port: where a table's current metadata file is, and the compare-and-swap that
 * moves it. The catalog never reads the metadata's contents (it is the table format's
 * business, lib/export/table); it stores the metadata JSON it is given and swaps the
 * pointer only if the table is still at the version the writer read.
 *
 * Adapters: the file catalog (metadata files in an ObjectStore, the swap being a conditional
 * create of the next `v<N>.metadata.json`), and the Glue Data Catalog (the swap being
 * `UpdateTable` with the `VersionId` read).
 */

/** A table of a catalog: Glue database and table name; the file catalog uses `name` alone. */
export interface TableIdentifier {
  namespace: string;
  name: string;
}

/** A table's current state as loaded: what a commit must name as its base. */
export interface CatalogTable {
  /** Absolute URI of the current metadata file (`file:///...` or `s3://...`). */
  metadataLocation: string;
  /** Opaque compare-and-swap token (file catalog: the version N; Glue: the VersionId). */
  version: string;
}

/** A column as the catalog lists it (Glue's StorageDescriptor columns; informational). */
export interface CatalogColumn {
  name: string;
  /** Hive type name (`string`, `int`, `double`, `boolean`, `date`, `timestamp`). */
  type: string;
  comment?: string;
  /** Iceberg field id and whether the field is required (Glue column parameters). */
  fieldId: number;
  required: boolean;
}

/** What a commit hands the catalog. */
export interface CatalogCommit {
  /** The new metadata JSON text. */
  metadata: string;
  /** The table's location (`file:///...` or `s3://...`), where metadata files go under `metadata/`. */
  location: string;
  /** The current schema's columns, for catalogs that list them. */
  columns: readonly CatalogColumn[];
}

/**
 * Thrown when the table moved since the base was loaded (or, creating, when it exists):
 * the writer reloads, re-applies its change and retries. Nothing was changed.
 */
export class CommitConflictError extends Error {
  readonly code = 'CATALOG_COMMIT_CONFLICT';
  readonly table: TableIdentifier;
  constructor(table: TableIdentifier, detail: string, options?: { cause?: unknown }) {
    super(`Table ${table.namespace}.${table.name} changed since it was read: ${detail}`, options);
    this.name = 'CommitConflictError';
    this.table = table;
  }
}

/**
 * Thrown when the outcome of a commit is unknown (the request may have succeeded): the
 * writer must reload and check whether its snapshot is there before retrying.
 */
export class CommitStateUnknownError extends Error {
  readonly code = 'CATALOG_COMMIT_STATE_UNKNOWN';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommitStateUnknownError';
  }
}

/**
 * Thrown when a catalog request failed for certain (refused, invalid, not a table of ours):
 * nothing changed, and retrying the same request would fail the same way.
 */
export class CatalogRequestError extends Error {
  readonly code = 'CATALOG_REQUEST_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogRequestError';
  }
}

export interface Catalog {
  /** Short name for messages and run records (`file`, `glue`). */
  readonly kind: string;
  /** The table's current metadata location and token; undefined when it does not exist. */
  load(table: TableIdentifier): Promise<CatalogTable | undefined>;
  /** Reads a metadata file this catalog wrote (by its absolute location). */
  readMetadata(metadataLocation: string): Promise<string>;
  /**
   * Writes `commit.metadata` as the table's next metadata file and makes it current, only
   * if the table is still at `base` (undefined: only if the table does not exist yet).
   * Resolves with the new state. Throws CommitConflictError when the table moved (nothing
   * changed), CommitStateUnknownError when it cannot tell.
   */
  commit(
    table: TableIdentifier,
    base: CatalogTable | undefined,
    commit: CatalogCommit,
  ): Promise<CatalogTable>;
}
