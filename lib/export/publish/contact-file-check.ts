import { type FileMetaData, parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { ObjectStore } from '../../stores';
import {
  dataFileExpectation,
  type IcebergField,
  isDataFileKey,
  type LoadedTable,
  readBounded,
} from '../table';
import type { StagedDataFile } from './staged-directory-sync';

/**
 * Most bytes of a contacts data file the committer reads: it reads a staged file whole (a
 * directory's partition is a few MB), so the bound is what it may hold in memory.
 */
export const MAX_CONTACT_FILE_BYTES = 256 * 1024 * 1024;

/** The Parquet physical type each Iceberg type is stored as (Iceberg spec, Parquet appendix). */
const PHYSICAL_TYPE_OF: Record<string, string> = {
  string: 'BYTE_ARRAY',
  int: 'INT32',
  long: 'INT64',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'INT32',
  timestamp: 'INT64',
  timestamptz: 'INT64',
};

/** Why a staged contacts data file is not what its staged sync claims. */
export class ContactFileMismatch extends Error {
  constructor(key: string, why: string) {
    super(`the data file ${key} ${why}`);
    this.name = 'ContactFileMismatch';
  }
}

/**
 * A contacts data file another principal (a tenant's session) wrote, checked against the
 * objects alone: a file name directly under its partition's prefix (`partitionPrefix`, no
 * trailing slash), its size by HEAD the claimed one, its footer's rows the claimed ones and
 * its row groups', its columns the table's (each field id, physical type, timestamps in
 * MICROS, every required column REQUIRED), and the `tenant` and `directory_id` of every row
 * as read from its pages (never from statistics, which a forged file sets at will) the
 * partition's. Throws ContactFileMismatch; a store failure passes (it may be transient).
 */
export async function checkContactFile(
  store: ObjectStore,
  claimed: StagedDataFile,
  loaded: LoadedTable,
  partition: { prefix: string; tenant: string | undefined; directoryId: string },
): Promise<StagedDataFile> {
  const bad = (why: string) => new ContactFileMismatch(claimed.key, why);
  if (!isDataFileKey(claimed.key, `${partition.prefix}/`)) {
    throw bad(`is not a file name under ${partition.prefix}/, its partition's`);
  }
  const info = await store.head(claimed.key);
  if (info === undefined) throw bad('does not exist');
  if (info.size !== claimed.bytes) throw bad(`is ${info.size} bytes, not the ${claimed.bytes} claimed`);
  if (info.size > MAX_CONTACT_FILE_BYTES)
    throw bad(`is larger than ${MAX_CONTACT_FILE_BYTES} bytes: not read`);
  const bytes = await readBounded(store, claimed.key, MAX_CONTACT_FILE_BYTES);
  if (bytes === undefined || bytes.length !== info.size) throw bad('changed while read');
  const file = new Uint8Array(bytes).buffer;
  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(file);
  } catch (cause) {
    throw bad(`is no Parquet file that can be read (${(cause as Error).message})`);
  }
  const rows = Number(metadata.num_rows);
  const groupRows = metadata.row_groups.reduce((n, g) => n + Number(g.num_rows), 0);
  if (rows !== claimed.rows || groupRows !== rows) {
    throw bad(
      `holds ${rows} rows by its footer (${groupRows} in its row groups), not the ${claimed.rows} claimed`,
    );
  }
  checkColumns(claimed.key, metadata, dataFileExpectation(loaded).fields ?? []);
  const keys = partition.tenant === undefined ? ['directory_id'] : ['tenant', 'directory_id'];
  let records: Record<string, unknown>[];
  try {
    records = (await parquetReadObjects({ file, metadata, columns: keys })) as Record<string, unknown>[];
  } catch (cause) {
    throw bad(`has pages that cannot be read (${(cause as Error).message})`);
  }
  if (records.length !== rows) throw bad(`has pages of ${records.length} rows for the ${rows} of its footer`);
  for (const [i, r] of records.entries()) {
    if (
      r.directory_id !== partition.directoryId ||
      (partition.tenant !== undefined && r.tenant !== partition.tenant)
    ) {
      throw bad(
        `row ${i} is of tenant ${String(r.tenant ?? '(none)')}, directory ${String(r.directory_id)}, not of its partition (${partition.tenant ?? '(none)'}, ${partition.directoryId})`,
      );
    }
  }
  return { key: claimed.key, rows, bytes: info.size };
}

/** The file's columns are the table's: flat, each with its field's id and type, none missing that is required. */
function checkColumns(key: string, metadata: FileMetaData, fields: readonly IcebergField[]): void {
  const bad = (why: string) => new ContactFileMismatch(key, why);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const seen = new Set<number>();
  const columns = metadata.schema.slice(1);
  if (metadata.schema[0]?.num_children !== columns.length)
    throw bad('has nested columns: not a contacts data file');
  for (const e of columns) {
    const field = byName.get(e.name);
    if (field === undefined) throw bad(`has column ${e.name}, which the table does not have`);
    if (e.field_id !== field.id)
      throw bad(`has column ${e.name} with field id ${String(e.field_id)}, not the table's ${field.id}`);
    if (seen.has(field.id)) throw bad(`has column ${e.name} twice`);
    seen.add(field.id);
    if (e.num_children !== undefined && e.num_children > 0) throw bad(`has a nested column ${e.name}`);
    if (e.type !== PHYSICAL_TYPE_OF[field.type]) {
      throw bad(`stores column ${e.name} as ${String(e.type)}, not as the table's ${field.type}`);
    }
    if (field.type === 'timestamptz' || field.type === 'timestamp') {
      const t = e.logical_type;
      if (
        t?.type !== 'TIMESTAMP' ||
        t.unit !== 'MICROS' ||
        t.isAdjustedToUTC !== (field.type === 'timestamptz')
      ) {
        throw bad(`stores column ${e.name} as no ${field.type} in micros`);
      }
    }
    if (field.required && e.repetition_type !== 'REQUIRED')
      throw bad(`has column ${e.name} optional, which the table requires`);
    if (e.repetition_type === 'REPEATED') throw bad(`has column ${e.name} repeated`);
  }
  const missing = fields.filter((f) => f.required && !seen.has(f.id)).map((f) => f.name);
  if (missing.length > 0) throw bad(`lacks the required column(s) ${missing.join(', ')}`);
}
