import {
  type Catalog,
  type CatalogCommit,
  CatalogRequestError,
  type CatalogTable,
  CommitConflictError,
  CommitStateUnknownError,
  type TableIdentifier,
} from './catalog';
import { type ObjectStore, objectUri, readObjectIfPresent, readTextAtUri } from './object-store';

/** The hint file of the newest version, as Hadoop tables (and icebird) name it. */
const HINT_FILE = 'version-hint.text';
/** A version N: from 1, a safe integer. */
const VERSION = /^[1-9]\d{0,14}$/;
/** `v<N>.metadata.json`. */
const METADATA_FILE = /^v([1-9]\d{0,14})\.metadata\.json$/;
/**
 * Versions `load` probes past the hint before it lists the metadata folder instead: the
 * hint lags only by the commits whose hint write failed or has not landed yet.
 */
const MAX_PROBES = 16;

export interface FileCatalogOptions {
  store: ObjectStore;
  /** A table's root key in the store; its location is that key's URI (`objectUri`). */
  tableKey: (table: TableIdentifier) => string;
}

/** The root key of a table of the lake: `<prefix>/tables/<name>` (`tables/<name>` with no prefix). */
export function tableRootKey(prefix: string, name: string): string {
  return prefix === '' ? `tables/${name}` : `${prefix}/tables/${name}`;
}

/**
 * Catalog of metadata files in an ObjectStore beside the data, as Iceberg's Hadoop tables
 * keep them: `<location>/metadata/v<N>.metadata.json`, N from 1. The swap is the
 * exclusive create of `v<N+1>` (`ObjectStore.putIfAbsent`): of writers that read version N,
 * one creates it and the others conflict. `version-hint.text` (the text `N`) is written
 * after, best effort: `load` reads it, then probes the next versions until one is missing,
 * and lists `metadata/` when there is no usable hint. The token is N.
 */
export class FileCatalog implements Catalog {
  readonly kind = 'file';
  readonly #store: ObjectStore;
  readonly #tableKey: (table: TableIdentifier) => string;

  constructor(options: FileCatalogOptions) {
    this.#store = options.store;
    this.#tableKey = options.tableKey;
  }

  async load(table: TableIdentifier): Promise<CatalogTable | undefined> {
    const root = this.#tableKey(table);
    const version = await this.#currentVersion(root);
    return version === undefined ? undefined : this.#state(root, version);
  }

  readMetadata(metadataLocation: string): Promise<string> {
    return readTextAtUri(this.#store, metadataLocation);
  }

  async commit(
    table: TableIdentifier,
    base: CatalogTable | undefined,
    commit: CatalogCommit,
  ): Promise<CatalogTable> {
    const root = this.#tableKey(table);
    const location = objectUri(this.#store, root);
    if (commit.location !== location) {
      throw new CatalogRequestError(
        `Table ${table.namespace}.${table.name} is at ${location}, not at the commit's location ${commit.location}`,
      );
    }
    let next: number;
    if (base === undefined) {
      // v1 is free also when earlier versions were deleted: look for any version first.
      if ((await this.#currentVersion(root)) !== undefined)
        throw new CommitConflictError(table, 'it exists already');
      next = 1;
    } else {
      next = parseVersion(table, base.version) + 1;
    }
    const key = versionMetadataKey(root, next);
    let created: unknown;
    try {
      created = await this.#store.putIfAbsent(key, commit.metadata, { contentType: 'application/json' });
    } catch (cause) {
      throw new CommitStateUnknownError(`Could not tell whether ${objectUri(this.#store, key)} was created`, {
        cause,
      });
    }
    if (created === undefined && !(await this.#holds(key, commit.metadata)))
      throw new CommitConflictError(table, `version ${next} exists`);
    await this.#writeHint(root, next);
    return this.#state(root, next);
  }

  /**
   * True when the existing file is ours: a create whose reply was lost and that the store
   * retried reads as "exists". Metadata names a fresh snapshot id, so another writer's
   * file never equals ours.
   */
  async #holds(key: string, metadata: string): Promise<boolean> {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readObjectIfPresent(this.#store, key);
    } catch (cause) {
      throw new CommitStateUnknownError(`Could not read back ${objectUri(this.#store, key)}`, { cause });
    }
    return bytes !== undefined && Buffer.from(bytes).toString('utf8') === metadata;
  }

  /** Only a hint: a failed write leaves `load` to probe past it. */
  async #writeHint(root: string, version: number): Promise<void> {
    try {
      await this.#store.put(versionHintKey(root), String(version), { contentType: 'text/plain' });
    } catch {
      // best effort
    }
  }

  /**
   * The newest version: from the hint, probing forward (bounded), else from the listing. A hint
   * found lagging (or missing) is repaired, best effort: a commit whose hint write failed would
   * otherwise cost every later reader and writer the probes (or a listing), and readers that
   * trust the hint alone (icebird) would read an old version.
   */
  async #currentVersion(root: string): Promise<number | undefined> {
    const hinted = await this.#hint(root);
    if (hinted !== undefined && (await this.#exists(root, hinted))) {
      for (let n = hinted; n < hinted + MAX_PROBES; n++) {
        if (!(await this.#exists(root, n + 1))) {
          if (n > hinted) await this.#writeHint(root, n);
          return n;
        }
      }
    }
    const newest = await this.#newestListed(root);
    if (newest !== undefined && newest !== hinted) await this.#writeHint(root, newest);
    return newest;
  }

  async #hint(root: string): Promise<number | undefined> {
    const bytes = await readObjectIfPresent(this.#store, versionHintKey(root));
    if (bytes === undefined) return undefined;
    const text = Buffer.from(bytes).toString('utf8').trim();
    return VERSION.test(text) ? Number(text) : undefined;
  }

  async #exists(root: string, version: number): Promise<boolean> {
    return (await this.#store.head(versionMetadataKey(root, version))) !== undefined;
  }

  async #newestListed(root: string): Promise<number | undefined> {
    const folder = `${root}/metadata/`;
    let newest: number | undefined;
    for await (const { key } of this.#store.list(`${folder}v`)) {
      const m = METADATA_FILE.exec(key.slice(folder.length));
      const n = m === null ? undefined : Number(m[1]);
      if (n !== undefined && (newest === undefined || n > newest)) newest = n;
    }
    return newest;
  }

  #state(root: string, version: number): CatalogTable {
    return {
      metadataLocation: objectUri(this.#store, versionMetadataKey(root, version)),
      version: String(version),
    };
  }
}

/** `<table root key>/metadata/v<N>.metadata.json`: the metadata file of version N. */
export function versionMetadataKey(root: string, version: number): string {
  return `${root}/metadata/v${version}.metadata.json`;
}

/** `<table root key>/metadata/version-hint.text`: the hint of the newest version. */
export function versionHintKey(root: string): string {
  return `${root}/metadata/${HINT_FILE}`;
}

function parseVersion(table: TableIdentifier, version: string): number {
  if (!VERSION.test(version)) {
    throw new CatalogRequestError(
      `Table ${table.namespace}.${table.name}: ${JSON.stringify(version)} is not a file catalog version`,
    );
  }
  return Number(version);
}
