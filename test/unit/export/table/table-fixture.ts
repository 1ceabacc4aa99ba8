import { randomUUID } from 'node:crypto';
import { parquetWriteBuffer } from 'hyparquet-writer';
import {
  fileSchema,
  type IcebergTable,
  type LoadedTable,
  type NewDataFile,
  tableLocation,
} from '../../../../lib/export/table';
import { dateToDays } from '../../../../lib/export/table/manifest/manifest-codec';
import {
  type Catalog,
  type CatalogCommit,
  type CatalogTable,
  CommitConflictError,
  CommitStateUnknownError,
  fileCatalogOf,
  LocalDirectoryStore,
  type TableIdentifier,
} from '../../../../lib/stores';

/** The rows our test data files hold: a few columns of the calls table (icebird reads the others as undefined). */
export interface TestRow {
  conn_id: string;
  duration: number;
}

export const PREFIX = 'lake';
export const CALLS: TableIdentifier = { namespace: '', name: 'calls' };

/** The calls table of a lake in `root` with the file catalog (wrapped by `wrap` when given). */
export function fileTable(root: string, wrap: (catalog: Catalog) => Catalog = (c) => c): IcebergTable {
  const store = new LocalDirectoryStore(root);
  return {
    catalog: wrap(fileCatalogOf({ store, prefix: PREFIX })),
    id: CALLS,
    location: tableLocation(store, PREFIX, CALLS.name),
  };
}

/**
 * Writes a data file of `rows` for (report, day) with hyparquet-writer, as the table wants it:
 * field ids from the table's current schema, `iceberg.schema` naming the columns written.
 */
export async function writeDataFile(
  table: IcebergTable,
  loaded: LoadedTable,
  reportId: string,
  dt: string,
  rows: readonly TestRow[],
  tenant?: string,
): Promise<NewDataFile> {
  const { fieldIds, schemaJson } = fileSchema(loaded);
  const names = [...(tenant === undefined ? [] : ['tenant']), 'conn_id', 'duration', 'report_id', 'dt'];
  const schema = JSON.parse(schemaJson) as { fields: { name: string }[] };
  const written = { ...schema, fields: schema.fields.filter((f) => names.includes(f.name)) };
  const id = (name: string) => fieldIds[name] as number;
  const bytes = new Uint8Array(
    parquetWriteBuffer({
      // Uncompressed, so the constant columns are one plain dictionary page each, as our
      // encoder writes them and as a committer checks them (data-file-check.ts).
      codec: 'UNCOMPRESSED',
      schema: [
        { name: 'table', num_children: names.length },
        ...(tenant === undefined
          ? []
          : [
              {
                name: 'tenant',
                type: 'BYTE_ARRAY' as const,
                converted_type: 'UTF8' as const,
                repetition_type: 'REQUIRED' as const,
                field_id: id('tenant'),
              },
            ]),
        {
          name: 'conn_id',
          type: 'BYTE_ARRAY',
          converted_type: 'UTF8',
          repetition_type: 'REQUIRED',
          field_id: id('conn_id'),
        },
        { name: 'duration', type: 'DOUBLE', repetition_type: 'OPTIONAL', field_id: id('duration') },
        {
          name: 'report_id',
          type: 'BYTE_ARRAY',
          converted_type: 'UTF8',
          repetition_type: 'REQUIRED',
          field_id: id('report_id'),
        },
        {
          name: 'dt',
          type: 'INT32',
          converted_type: 'DATE',
          repetition_type: 'REQUIRED',
          field_id: id('dt'),
        },
      ],
      columnData: [
        ...(tenant === undefined ? [] : [{ name: 'tenant', data: rows.map(() => tenant) }]),
        { name: 'conn_id', data: rows.map((r) => r.conn_id) },
        { name: 'duration', data: rows.map((r) => r.duration) },
        { name: 'report_id', data: rows.map(() => reportId) },
        { name: 'dt', data: rows.map(() => dateToDays(dt)) },
      ],
      kvMetadata: [{ key: 'iceberg.schema', value: JSON.stringify(written) }],
    }),
  );
  const key = `${table.location.key}/data/report_id=${reportId}/dt=${dt}/${randomUUID()}.parquet`;
  await table.location.store.put(key, bytes);
  return { key, dt, rows: rows.length, bytes: bytes.byteLength };
}

/** `n` rows whose conn_ids name the report, day and a tag (which run wrote them). */
export function testRows(tag: string, n: number): TestRow[] {
  return Array.from({ length: n }, (_, i) => ({ conn_id: `${tag}-${i}`, duration: i + 0.5 }));
}

/** A row as icebird returns it from our test files: the written columns, the day as `YYYY-MM-DD`. */
export function readBack(row: Record<string, unknown>): TestRow & { report_id: unknown; dt: string } {
  const dt = row.dt instanceof Date ? row.dt.toISOString().slice(0, 10) : String(row.dt);
  return { conn_id: row.conn_id as string, duration: row.duration as number, report_id: row.report_id, dt };
}

/** A catalog around `inner` whose commits go through `commit` (given the real one). */
export function catalogWith(
  inner: Catalog,
  commit: (
    real: () => Promise<CatalogTable>,
    call: { n: number; table: TableIdentifier; base: CatalogTable | undefined; change: CatalogCommit },
  ) => Promise<CatalogTable>,
): Catalog & { commits: number } {
  const wrapped = {
    kind: inner.kind,
    commits: 0,
    load: (table: TableIdentifier) => inner.load(table),
    readMetadata: (location: string) => inner.readMetadata(location),
    commit: (table: TableIdentifier, base: CatalogTable | undefined, change: CatalogCommit) => {
      wrapped.commits++;
      return commit(() => inner.commit(table, base, change), { n: wrapped.commits, table, base, change });
    },
  };
  return wrapped;
}

/** A catalog where every commit meets another writer's. */
export function alwaysConflicting(inner: Catalog): Catalog & { commits: number } {
  return catalogWith(inner, async (_real, { table }) => {
    throw new CommitConflictError(table, 'another writer committed first (test)');
  });
}

/** A catalog whose first commit lands but answers with an unknown outcome (`lands` false: does not land). */
export function unknownOnce(inner: Catalog, lands: boolean): Catalog & { commits: number } {
  return catalogWith(inner, async (real, { n }) => {
    if (n > 1) return await real();
    if (lands) await real();
    throw new CommitStateUnknownError('the reply was lost (test)');
  });
}
