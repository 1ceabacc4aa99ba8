import type { Catalog } from './catalog';
import { FileCatalog, tableRootKey } from './file-catalog';
import type { ObjectStore } from './object-store';
import { StoreUriError } from './store-uri-error';

/** What a table catalog setting (`TABLE_CATALOG`) names. */
export type CatalogSetting = { kind: 'hive' } | { kind: 'file' } | { kind: 'glue'; database: string };

const EXPECTED = '`hive`, `file` or `glue:<database>`';
/** A Glue database name as Athena can query it: lowercase letters, digits, `_` (and `-`). */
const GLUE_DATABASE = /^[a-z0-9_][a-z0-9_-]{0,254}$/;

/**
 * `hive` (Hive-layout Parquet, no table), `file` (a file catalog beside the data) or
 * `glue:<database>` (the Glue Data Catalog); anything else names the setting.
 */
export function parseCatalogSetting(setting: string, value: string): CatalogSetting {
  if (value === 'hive' || value === 'file') return { kind: value };
  if (value.startsWith('glue:')) {
    const database = value.slice('glue:'.length);
    if (!GLUE_DATABASE.test(database))
      throw new StoreUriError(
        setting,
        value,
        `${EXPECTED} (a Glue database: lowercase letters, digits, _ or -)`,
      );
    return { kind: 'glue', database };
  }
  throw new StoreUriError(setting, value, EXPECTED);
}

/** The object store the tables live in, and the key prefix of the lake in it. */
export interface CatalogLocation {
  store: ObjectStore;
  prefix: string;
}

/**
 * The catalog a setting names, without the AWS SDK: `hive` -> undefined (no tables),
 * `file` -> a FileCatalog over the store, tables at `<prefix>/tables/<name>`. `glue:` is
 * refused here: lib/stores/aws.ts has the catalogFromUri that takes it.
 */
export function catalogFromUri(
  setting: string,
  value: string,
  location: CatalogLocation,
): Catalog | undefined {
  const parsed = parseCatalogSetting(setting, value);
  if (parsed.kind === 'hive') return undefined;
  if (parsed.kind === 'file') return fileCatalogOf(location);
  throw new StoreUriError(setting, value, `${EXPECTED} here: glue: needs the AWS entry (lib/stores/aws.ts)`);
}

/** The lake's file catalog: each table's metadata under `<prefix>/tables/<name>/metadata/`. */
export function fileCatalogOf(location: CatalogLocation): FileCatalog {
  return new FileCatalog({
    store: location.store,
    tableKey: (table) => tableRootKey(location.prefix, table.name),
  });
}
