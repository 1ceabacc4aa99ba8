import type { Catalog, CatalogTable, TableIdentifier } from '../../../stores';
import type { TableLocation } from './location';
import type { TableMetadata } from './types';

/** A table of a catalog at its location in the store. */
export interface IcebergTable {
  catalog: Catalog;
  id: TableIdentifier;
  location: TableLocation;
}

/** A table's state as read: the catalog's base (what a commit names) and the metadata it points to. */
export interface LoadedTable {
  base: CatalogTable;
  metadata: TableMetadata;
  /**
   * The table it was read from (loadTable, ensureTable and the commit loop set it): where a
   * reader given only the loaded state (directoryLiveFiles) reads its manifests.
   */
  table?: IcebergTable;
}
