import { type ObjectStore, tableRootKey } from '../../../stores';
import { TableInvalidError } from '../../errors';

/**
 * Where a table lives: its root key in the store, and the same root as the absolute URI its
 * metadata and manifests name files by (`file:///abs/lake/<prefix>/tables/calls`,
 * `s3://bucket/<prefix>/tables/calls`).
 */
export interface TableLocation {
  store: ObjectStore;
  /** Root key, no trailing slash: `<prefix>/tables/<dataset>`. */
  key: string;
  /** Root URI, no trailing slash: `<store.rootUri>/<key>`. */
  uri: string;
}

/** The location of a dataset's table: `<prefix>/tables/<dataset>` in `store`. */
export function tableLocation(store: ObjectStore, prefix: string, dataset: string): TableLocation {
  const key = tableRootKey(prefix, dataset);
  return { store, key, uri: `${store.rootUri}/${key}` };
}

/** The URI of a key under the table (`<uri>/<rest of the key>`). */
export function uriOf(location: TableLocation, key: string): string {
  if (!key.startsWith(`${location.key}/`)) {
    throw new TableInvalidError(`The key ${key} is not under the table's location ${location.key}`);
  }
  return `${location.uri}${key.slice(location.key.length)}`;
}

/**
 * The store key of a file the table's metadata names. Refuses a URI outside the table: a
 * metadata file naming one (written by another tool, or for another store) would otherwise
 * make a commit read or delete objects that are not the table's.
 */
export function keyOf(location: TableLocation, uri: string): string {
  const root = `${location.uri}/`;
  const rest = uri.startsWith(root) ? uri.slice(root.length) : '';
  if (rest === '' || rest.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new TableInvalidError(`The table at ${location.uri} names a file outside it: ${uri}`);
  }
  return `${location.key}/${rest}`;
}

/** The key of a metadata-side file of the table (manifest, manifest list): `<key>/metadata/<name>`. */
export function metadataKey(location: TableLocation, name: string): string {
  return `${location.key}/metadata/${name}`;
}
