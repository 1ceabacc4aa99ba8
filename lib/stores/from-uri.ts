import { fileURLToPath } from 'node:url';
import type { GlueClient } from '@aws-sdk/client-glue';
import type { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Catalog } from './catalog';
import {
  type CatalogLocation,
  catalogFromUri as localCatalogFromUri,
  parseCatalogSetting,
} from './catalog-setting';
import { createGlueClient, GlueCatalog } from './glue-catalog';
import type { LeaseStore } from './lease-store';
import { LocalDirectoryStore } from './local-directory-store';
import { LocalFileSecretStore } from './local-file-secret-store';
import { LocalLeaseStore } from './local-lease-store';
import type { ObjectStore } from './object-store';
import { DEFAULT_LEASE_PREFIX, S3LeaseStore } from './s3-lease-store';
import { createS3Client, S3Store } from './s3-store';
import type { SecretStore } from './secret-store';
import { SecretsManagerStore } from './secrets-manager-store';
import { StoreUriError } from './store-uri-error';

export { StoreUriError };

/** A store named by a URI, and the key prefix inside it. */
export interface ObjectLocation {
  store: ObjectStore;
  prefix: string;
  /** The URI, for messages. */
  uri: string;
}

export interface AdapterOptions {
  /** S3 client for s3:// URIs (one per process). Default: a client from the environment. */
  s3?: () => S3Client;
  /** Secrets Manager client for secret ARNs. Default: a client from the environment. */
  secretsManager?: () => SecretsManagerClient;
  /** Glue client for `glue:<database>` catalogs. Default: a client from the environment. */
  glue?: () => GlueClient;
  /** S3 answers a missing key 403 to these credentials (a tenant's session): see S3StoreOptions.missingKeysDenied. */
  missingKeysDenied?: boolean;
}

/** `s3://bucket/prefix` -> its bucket and key prefix (no trailing slash); names the setting when invalid. */
export function parseS3Uri(setting: string, uri: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(uri);
  if (m === null) throw new StoreUriError(setting, uri, 'an s3://bucket[/prefix] URI');
  return { bucket: m[1] as string, prefix: (m[2] ?? '').replace(/\/+$/, '') };
}

function localPath(setting: string, uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    throw new StoreUriError(setting, uri, 'a file:/// URI');
  }
}

/** `s3://bucket/prefix` -> S3; `file:///dir` -> a local directory. */
export function objectStoreFromUri(
  setting: string,
  uri: string,
  options: AdapterOptions = {},
): ObjectLocation {
  if (uri.startsWith('s3://')) {
    const { bucket, prefix } = parseS3Uri(setting, uri);
    const client = (options.s3 ?? createS3Client)();
    const missing = options.missingKeysDenied === true ? { missingKeysDenied: true } : {};
    return { store: new S3Store({ client, bucket, ...missing }), prefix, uri };
  }
  if (uri.startsWith('file:'))
    return { store: new LocalDirectoryStore(localPath(setting, uri)), prefix: '', uri };
  throw new StoreUriError(setting, uri, 'an s3:// or file:/// URI');
}

/** `s3://bucket/prefix` -> S3 conditional writes; `file:///dir` -> exclusive-create files. */
export function leaseStoreFromUri(setting: string, uri: string, options: AdapterOptions = {}): LeaseStore {
  if (uri.startsWith('s3://')) {
    const { bucket, prefix } = parseS3Uri(setting, uri);
    return new S3LeaseStore({
      client: (options.s3 ?? createS3Client)(),
      bucket,
      prefix: prefix || DEFAULT_LEASE_PREFIX,
      ...(options.missingKeysDenied === true ? { missingKeysDenied: true } : {}),
    });
  }
  if (uri.startsWith('file:')) return new LocalLeaseStore(localPath(setting, uri));
  throw new StoreUriError(setting, uri, 'an s3:// or file:/// URI');
}

/**
 * A Secrets Manager ARN (or `secretsmanager:<name>`) -> Secrets Manager; `file:///path` ->
 * a local JSON file (mode 0600). Returns the store and the secret's name in it.
 */
export function secretStoreFromUri(
  setting: string,
  uri: string,
  options: AdapterOptions = {},
): { store: SecretStore; name: string } {
  if (uri.startsWith('arn:aws:secretsmanager:') || uri.startsWith('secretsmanager:')) {
    const name = uri.startsWith('secretsmanager:') ? uri.slice('secretsmanager:'.length) : uri;
    const client = options.secretsManager?.() ?? new SecretsManagerClient({});
    return { store: new SecretsManagerStore({ client }), name };
  }
  if (uri.startsWith('file:'))
    return { store: new LocalFileSecretStore(localPath(setting, uri)), name: 'service' };
  throw new StoreUriError(setting, uri, 'a Secrets Manager ARN or a file:/// URI');
}

/**
 * The table catalog a setting names (`TABLE_CATALOG`): `hive` -> undefined (Hive-layout
 * Parquet, no tables), `file` -> a FileCatalog beside the data in the object store,
 * `glue:<database>` -> the Glue Data Catalog, its tables' metadata files written to the store.
 */
export function catalogFromUri(
  setting: string,
  value: string,
  location: CatalogLocation,
  options: AdapterOptions = {},
): Catalog | undefined {
  const parsed = parseCatalogSetting(setting, value);
  if (parsed.kind !== 'glue') return localCatalogFromUri(setting, value, location);
  return new GlueCatalog({
    client: (options.glue ?? createGlueClient)(),
    store: location.store,
    database: parsed.database,
  });
}
