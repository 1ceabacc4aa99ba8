import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  type AsOf,
  CONTACT_DATASETS,
  type ColumnKind,
  type ContactDataset,
  callsWithContactsSql,
  contactPhonesColumns,
  contactsColumns,
  DATASETS,
  type Dataset,
  type IcebergSchema,
  tableSchema,
} from '../../export';
import { STACK_DEFAULTS } from '../../infra';
import { checkLakeTenant } from './known-tenants';
import {
  CONTACT_TABLES,
  hasLocalTable,
  LAKE_DATASETS,
  LakeHistoryError,
  type LakeTableName,
  localLakeTables,
  readTables,
  type TableRead,
} from './lake-tables';

/** A query's answer: column names in order, rows as JSON values (a BIGINT beyond 2^53 as text, DATE as YYYY-MM-DD). */
export interface QueryAnswer {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** DuckDB over a local export directory, with the tables the Glue catalog names. */
export interface LakeDatabase {
  /** What each dataset with a table read (its snapshot, or none then). */
  readonly tables: readonly TableRead[];
  query(sql: string): Promise<QueryAnswer>;
  close(): void;
}

const DUCKDB_TYPES: Record<ColumnKind, string> = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  localTimestamp: 'TIMESTAMP',
  utcTimestamp: 'TIMESTAMP WITH TIME ZONE',
};

/** Quotes text as a SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Error codes of the lake database (CLI_ prefix, as every CLI code). */
const LAKE_ERROR_CODES = { readOnly: 'CLI_QUERY_READ_ONLY' } as const;

/** A statement that would write (COPY TO, CREATE, DROP, SET...): `query` only reads. */
class LakeReadOnlyError extends Error {
  override readonly name = 'LakeReadOnlyError';
  readonly code = LAKE_ERROR_CODES.readOnly;
}

/**
 * The `runs` view over the run records: a single-tenant lake's `runs/dt=<day>/`, a multi-tenant
 * one's `runs/tenant=<t>/dt=<day>/` (each record names its tenant), `dt` from the key. A line that
 * is not JSON is skipped (ignore_errors gives it a row of nulls; every record has a runId).
 * With `tenant`, that tenant's records only. False when no line is readable: the view then
 * has no runId column to bind.
 */
async function createRunsView(
  connection: DuckDBConnection,
  runsDir: string,
  tenant?: string,
): Promise<boolean> {
  const entries = await fs.readdir(runsDir, { recursive: true }).catch(() => [] as string[]);
  const globs = [
    entries.some((e) => /^dt=[^/]+\/[^/]+\.json$/.test(e)) && path.join(runsDir, 'dt=*', '*.json'),
    entries.some((e) => /^tenant=[^/]+\/dt=[^/]+\/[^/]+\.json$/.test(e)) &&
      path.join(runsDir, 'tenant=*', 'dt=*', '*.json'),
  ].filter((g): g is string => g !== false);
  if (globs.length === 0) return false;
  const only = tenant === undefined ? '' : ` AND tenant = ${sqlString(tenant)}`;
  try {
    await connection.run(
      `CREATE VIEW runs AS SELECT * EXCLUDE (filename), regexp_extract(filename, '[/\\\\]dt=([^/\\\\]+)[/\\\\]', 1) AS dt
       FROM read_json([${globs.map(sqlString).join(', ')}], format = 'newline_delimited',
         ignore_errors = true, hive_partitioning = false, filename = true, union_by_name = true)
       WHERE "runId" IS NOT NULL${only}`,
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * What Athena has and DuckDB names otherwise, so the deploy guide's Athena queries run here
 * unchanged: the Glue database as a schema (`report_export.calls`, `.summaries`, `.runs`) and
 * the Presto functions they use (`json_extract_scalar`, `from_iso8601_timestamp`).
 */
async function createCatalogAliases(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE SCHEMA ${GLUE_DATABASE}`);
  for (const table of [
    ...Object.values(DATASETS),
    ...Object.values(CONTACT_DATASETS),
    'calls_with_contacts',
    'runs',
  ]) {
    // No view without the calls' columns it reads (see createContactViews).
    if (table === 'calls_with_contacts' && !(await hasColumn(connection, table, 'match_quality'))) continue;
    await connection.run(`CREATE VIEW ${GLUE_DATABASE}.${table} AS SELECT * FROM main.${table}`);
  }
  await connection.run('CREATE MACRO json_extract_scalar(j, p) AS json_extract_string(j, p)');
  await connection.run('CREATE MACRO from_iso8601_timestamp(s) AS CAST(s AS TIMESTAMPTZ)');
}

/** The Glue database the stack creates by default. */
const GLUE_DATABASE = STACK_DEFAULTS.databaseName;

async function hasFile(dir: string, suffix: string): Promise<boolean> {
  const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.some((e) => e.endsWith(suffix));
}

/** DuckDB's type of each Iceberg type a table column has. */
const ICEBERG_DUCKDB_TYPES: Record<IcebergSchema['fields'][number]['type'], string> = {
  string: 'VARCHAR',
  int: 'INTEGER',
  long: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  timestamptz: 'TIMESTAMP WITH TIME ZONE',
};

/** Quotes a name as a SQL identifier. */
const sqlName = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * The view of a table's snapshot: its columns as the table has them (a column no file
 * holds yet, as a promoted column added after them, reads as nulls), then the snapshot's
 * data files by name. No files: an empty view of the same columns.
 */
function tableViewSql(root: string, read: TableRead, tenant?: string): string {
  if (tenant !== undefined) {
    if (!read.schema.fields.some((f) => f.name === 'tenant')) {
      throw new LakeTenancyError(
        `the ${read.dataset} table has no tenant column: this lake is a single-tenant deployment's (query it without --tenant)`,
      );
    }
    // Only the tenant's files are read; the condition keeps the view exact all the same.
    const own = { ...read, files: read.files.filter((f) => f.tenant === tenant) };
    return `${tableViewSql(root, own)} WHERE tenant = ${sqlString(tenant)}`;
  }
  const columns = read.schema.fields
    .map((f) => `CAST(NULL AS ${ICEBERG_DUCKDB_TYPES[f.type]}) AS ${sqlName(f.name)}`)
    .join(', ');
  const empty = `SELECT ${columns} WHERE false`;
  if (read.files.length === 0) return `CREATE VIEW ${read.dataset} AS SELECT * FROM (${empty})`;
  const files = read.files.map((f) => sqlString(path.join(root, f.key))).join(', ');
  // By field id, as an Iceberg reader maps a file's columns: a file written before a column
  // was renamed (`connId`, now `conn_id`) reads under the table's name; a field the file
  // lacks (a promoted column added after it) reads as NULL.
  const byId = read.schema.fields
    .map(
      (f) =>
        `${f.id}: {name: ${sqlString(f.name)}, type: '${ICEBERG_DUCKDB_TYPES[f.type]}', default_value: NULL}`,
    )
    .join(', ');
  return `CREATE VIEW ${read.dataset} AS SELECT * FROM (${empty}
    UNION ALL BY NAME SELECT * FROM read_parquet([${files}], schema = MAP {${byId}}))`;
}

/** The view of a dataset's Hive-layout Parquet (or an empty table of its columns); `dtType` types the partition day. */
async function createHiveView(
  connection: DuckDBConnection,
  root: string,
  dataset: Dataset,
  dtType: 'VARCHAR' | 'DATE',
): Promise<void> {
  const datasetDir = path.join(root, dataset, 'format=parquet');
  if (await hasFile(datasetDir, '.parquet')) {
    // A multi-tenant lake's Hive layout has a tenant=<id> level above report_id.
    const tenants = (await fs.readdir(datasetDir)).some((e) => e.startsWith('tenant='));
    const glob = path.join(datasetDir, ...(tenants ? ['*'] : []), '*', '*', '*.parquet');
    // `format=parquet` is a key segment, not a column of the Glue table: left out.
    await connection.run(
      `CREATE VIEW ${dataset} AS SELECT * EXCLUDE (format) FROM read_parquet(${sqlString(glob)},
         hive_partitioning = true, hive_types = {${tenants ? "'tenant': VARCHAR, " : ''}'report_id': VARCHAR, 'dt': ${dtType}, 'format': VARCHAR},
         union_by_name = true)`,
    );
  } else await createEmptyTable(connection, dataset, dtType);
}

/** An empty table of the dataset's columns, then `dt`. */
async function createEmptyTable(
  connection: DuckDBConnection,
  dataset: Dataset,
  dtType: 'VARCHAR' | 'DATE',
): Promise<void> {
  const columns = tableSchema({ dataset })
    .columns.map((c) => `"${c.name}" ${DUCKDB_TYPES[c.kind]}`)
    .join(', ');
  await connection.run(`CREATE TABLE ${dataset} (${columns}, dt ${dtType})`);
}

/** Whether `table` (a view or table of the session) has `column`. */
async function hasColumn(connection: DuckDBConnection, table: string, column: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM information_schema.columns WHERE table_name = ${sqlString(table)} AND column_name = ${sqlString(column)}`,
  );
  return Number(reader.getRowObjectsJS()[0]?.n ?? 0) > 0;
}

/** The contact item fields the view names, by column: a deployment may leave them out. */
const VIEW_ITEM_FIELDS = { crm_id: 'crmId', full_name: 'fullName', company_name: 'companyName' } as const;

/**
 * `contacts` and `contact_phones` (their Iceberg tables' snapshots, as the report tables';
 * no `dt`), then `calls_with_contacts` over them and `calls`. A lake whose directories were
 * never synced (an older one, or `contacts: skip`) has empty contact tables of the columns
 * the lake would have: the view then answers every call, unmatched (`match_quality` none),
 * rather than failing to bind. An item field the lake's contacts lack (a deployment's
 * omitted one) reads as NULL in the view.
 */
async function createContactViews(
  connection: DuckDBConnection,
  root: string,
  reads: readonly TableRead[],
  tenant: string | undefined,
): Promise<void> {
  const tenanted = await hasColumn(connection, 'calls', 'tenant');
  for (const table of CONTACT_TABLES) {
    const read = reads.find((r) => r.dataset === table);
    if (read !== undefined) {
      await connection.run(tableViewSql(root, read, tenant));
      continue;
    }
    const columns = (
      table === 'contacts' ? contactsColumns({ tenanted }) : contactPhonesColumns({ tenanted })
    ).columns
      .map((c) => `"${c.name}" ${DUCKDB_TYPES[c.kind]}`)
      .join(', ');
    await connection.run(`CREATE TABLE ${table} (${columns})`);
  }
  // A lake whose calls lack the columns the view reads (a hand-made Hive layout) has no view.
  for (const column of ['cli', 'user_num', 'start_utc'])
    if (!(await hasColumn(connection, 'calls', column))) return;
  const omitFields: string[] = [];
  for (const [column, field] of Object.entries(VIEW_ITEM_FIELDS))
    if (!(await hasColumn(connection, 'contacts', column))) omitFields.push(field);
  await connection.run(callsWithContactsSql({ dialect: 'duckdb', tenanted, omitFields }));
}

/** What {@link openLake} reads. */
export interface LakeOptions {
  /** A point of the tables' history (see lake-tables.ts): a snapshot id, or a time. Default: each table's current snapshot. */
  asOf?: AsOf | undefined;
  /**
   * One tenant's rows of a multi-tenant lake: its files of the tables (their `tenant`
   * column), its run records. A lake whose tables have no tenant column: LakeTenancyError.
   */
  tenant?: string | undefined;
}

/** `tenant` asked of a lake that has no tenants (a single-tenant deployment's, or the Hive layout's). */
export class LakeTenancyError extends Error {
  override readonly name = 'LakeTenancyError';
}

/**
 * Opens an in-memory DuckDB over `dir` (what `npm start` or `run` wrote) with three views.
 * `calls` and `summaries`: each dataset's Iceberg table (`<dir>/tables/<dataset>`, the
 * file catalog's) at its current snapshot, or the one `asOf` names: the snapshot's data
 * files as its manifests list them (DuckDB here has no iceberg extension), with the table's
 * columns, `dt` a DATE as in the table (and in Athena's Iceberg table). A lake without
 * tables (an older one, or `TABLE_CATALOG=hive`) reads the Hive-layout Parquet with its
 * partition keys typed as the Glue tables declare them (`report_id` and `dt` strings:
 * Athena's date projection types only the key's format); in a lake with tables, a dataset
 * with none reads its Hive layout with `dt` a DATE, and nothing with `asOf` (no history).
 * A table's files are read by field id (a renamed column reads under its new name), the Hive
 * layout's by name. A table with no files yet is an empty one
 * of the same columns, so a query over a fresh directory answers nothing instead of
 * failing. `runs`: the run records (JSON lines under `runs/dt=*`, `dt` a string).
 * Extensions are never downloaded: the answer must not depend on the network.
 * Throws LakeHistoryError for an `asOf` the lake has no point for.
 */
export async function openLake(dir: string, options: LakeOptions = {}): Promise<LakeDatabase> {
  const root = path.resolve(dir);
  const withTables: Dataset[] = [];
  for (const dataset of LAKE_DATASETS) if (await hasLocalTable(root, dataset)) withTables.push(dataset);
  const contactTables: ContactDataset[] = [];
  for (const table of CONTACT_TABLES) if (await hasLocalTable(root, table)) contactTables.push(table);
  if (options.tenant !== undefined && withTables.length === 0) {
    throw new LakeTenancyError(
      `the lake at ${root} has no Iceberg table: --tenant reads a multi-tenant lake's tables (their tenant column)`,
    );
  }
  if (options.asOf !== undefined && withTables.length === 0) {
    throw new LakeHistoryError(
      `the lake at ${root} has no Iceberg table (its Parquet is the Hive layout, which keeps no history)`,
    );
  }
  const lake = localLakeTables(root);
  const reads = await readTables(lake, [...withTables, ...contactTables] as LakeTableName[], {
    asOf: options.asOf,
    listHint: `report-export tables snapshots --dir ${root}`,
  });
  // A tenant the lake holds nothing of (a typo, a removed one) is named, not answered with nothing.
  if (options.tenant !== undefined) {
    const inTables = reads.flatMap((r) => r.files.flatMap((f) => (f.tenant === undefined ? [] : [f.tenant])));
    await checkLakeTenant(lake, options.tenant, `lake ${root}`, inTables);
  }
  // Loaded on use: every command's start would otherwise pay for DuckDB's native module.
  const { DuckDBInstance, StatementType } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '2',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  // Statements that only read (DESCRIBE, SHOW and SUMMARIZE are SELECTs to DuckDB).
  const readStatements: ReadonlySet<number> = new Set([StatementType.SELECT, StatementType.EXPLAIN]);
  try {
    for (const dataset of LAKE_DATASETS) {
      const read = reads.find((r) => r.dataset === dataset);
      if (read !== undefined) await connection.run(tableViewSql(root, read, options.tenant));
      else if (options.tenant !== undefined) {
        // A dataset no run of the lake exported yet: empty, with the tenant column the others have.
        await createEmptyTable(connection, dataset, 'DATE');
        await connection.run(`ALTER TABLE ${dataset} ADD COLUMN tenant VARCHAR`);
      }
      // A dataset without a table had none at any point of the history.
      else if (options.asOf !== undefined) await createEmptyTable(connection, dataset, 'DATE');
      else await createHiveView(connection, root, dataset, withTables.length > 0 ? 'DATE' : 'VARCHAR');
    }
    await createContactViews(connection, root, reads, options.tenant);
    const runsDir = path.join(root, 'runs');
    if (!(await createRunsView(connection, runsDir, options.tenant))) {
      await connection.run(
        'CREATE TABLE runs ("runId" VARCHAR, status VARCHAR, "startedAt" VARCHAR, rows BIGINT, dt VARCHAR)',
      );
    }
    await createCatalogAliases(connection);
    // From here on the session only reads what is under the directory: no other file, no
    // network, no extension, and the query cannot lift these settings again.
    await connection.run(`SET allowed_directories = [${sqlString(root)}]`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return {
    tables: reads,
    async query(sql) {
      // Only reads: a COPY TO, CREATE or DROP inside the directory is still a write there.
      // EXPLAIN ANALYZE runs the statement it explains (its type is EXPLAIN whatever that is).
      const keywords = withoutCommentsAndStrings(sql);
      if (EXPLAIN_ANALYZE.test(keywords)) {
        throw new LakeReadOnlyError(
          'query is read-only: EXPLAIN ANALYZE runs the statement it explains; use EXPLAIN, or run the SELECT itself',
        );
      }
      // Parsed (a syntax error is DuckDB's to name), not yet bound.
      const statements = await connection.extractStatements(sql);
      // Before DuckDB binds anything: binding EXPORT DATABASE or ATTACH already writes.
      for (const text of keywords.split(';')) {
        const first = /^[\s(]*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
        if (first !== undefined && !READING_KEYWORDS.has(first)) {
          throw new LakeReadOnlyError(
            `query is read-only: only SELECT (and EXPLAIN) statements run here, got ${first}`,
          );
        }
      }
      const prepared = [];
      for (let i = 0; i < statements.count; i++) {
        const statement = await statements.prepare(i);
        if (!readStatements.has(statement.statementType)) {
          throw new LakeReadOnlyError(
            `query is read-only: only SELECT (and EXPLAIN) statements run here, got ${StatementType[statement.statementType]}`,
          );
        }
        prepared.push(statement);
      }
      if (prepared.length === 0) throw new LakeReadOnlyError('no SQL statement to run');
      for (const statement of prepared.slice(0, -1)) await statement.run();
      const reader = await (prepared.at(-1) as (typeof prepared)[number]).runAndReadAll();
      const exact = reader.getRowObjectsJS();
      // JSON values (DATE as YYYY-MM-DD, TIMESTAMP as text), but a count (BIGINT) as a
      // number when it is one exactly: DuckDB's JSON form writes every BIGINT as text.
      const rows = reader.getRowObjectsJson().map((row, i) => {
        const out: Record<string, unknown> = { ...row };
        for (const [name, value] of Object.entries(exact[i] ?? {})) {
          if (typeof value === 'bigint' && Number.isSafeInteger(Number(value))) out[name] = Number(value);
        }
        return out;
      });
      return { columns: reader.columnNames(), rows };
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

const EXPLAIN_ANALYZE = /\bEXPLAIN\s*(?:\([^)]*\bANALY[SZ]E\b|ANALY[SZ]E\b)/i;

/** The SQL with its comments and quoted texts blanked, so only keywords are searched. */
function withoutCommentsAndStrings(sql: string): string {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"/g, ' ');
}

/** First keywords of the statements that only read (DuckDB's FROM-first SELECT included). */
const READING_KEYWORDS: ReadonlySet<string> = new Set([
  'SELECT',
  'WITH',
  'FROM',
  'VALUES',
  'TABLE',
  'DESCRIBE',
  'DESC',
  'SHOW',
  'SUMMARIZE',
  'EXPLAIN',
  'PIVOT',
  'UNPIVOT',
]);
