import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { COLUMNS, type ColumnKind } from '../export/schema';

/** A query's answer: column names in order, rows as JSON values (a BIGINT beyond 2^53 as text, DATE as YYYY-MM-DD). */
export interface QueryAnswer {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** DuckDB over a local export directory, with the tables the Glue catalog names. */
export interface LakeDatabase {
  query(sql: string): Promise<QueryAnswer>;
  close(): void;
}

const DUCKDB_TYPES: Record<ColumnKind, string> = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  double: 'DOUBLE',
  localTimestamp: 'TIMESTAMP',
  utcTimestamp: 'TIMESTAMP WITH TIME ZONE',
};

/** Quotes text as a SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

async function hasFile(dir: string, suffix: string): Promise<boolean> {
  const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.some((e) => e.endsWith(suffix));
}

/**
 * Opens an in-memory DuckDB over `dir` (what `npm start` or `run` wrote) with two views:
 * `calls`, the Parquet dataset with its hive partitions typed as Athena sees them
 * (`report_id` VARCHAR, `dt` DATE), and `runs`, the run records (JSON lines under
 * `runs/dt=*`, `dt` a DATE). A table with no files yet is an empty one of the same
 * columns, so a query over a fresh directory answers nothing instead of failing.
 * Extensions are never downloaded: the answer must not depend on the network.
 */
export async function openLake(dir: string): Promise<LakeDatabase> {
  const root = path.resolve(dir);
  // Loaded on use: every command's start would otherwise pay for DuckDB's native module.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '2',
    autoinstall_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    const callsDir = path.join(root, 'calls', 'format=parquet');
    if (await hasFile(callsDir, '.parquet')) {
      const glob = path.join(callsDir, '*', '*', '*.parquet');
      await connection.run(
        `CREATE VIEW calls AS SELECT * FROM read_parquet(${sqlString(glob)}, hive_partitioning = true,
           hive_types = {'report_id': VARCHAR, 'dt': DATE}, union_by_name = true)`,
      );
    } else {
      const columns = COLUMNS.map((c) => `"${c.name}" ${DUCKDB_TYPES[c.kind]}`).join(', ');
      await connection.run(`CREATE TABLE calls (${columns}, dt DATE)`);
    }
    const runsDir = path.join(root, 'runs');
    if (await hasFile(runsDir, '.json')) {
      const glob = path.join(runsDir, 'dt=*', '*.json');
      await connection.run(
        `CREATE VIEW runs AS SELECT * FROM read_json(${sqlString(glob)}, format = 'newline_delimited',
           hive_partitioning = true, hive_types = {'dt': DATE}, union_by_name = true)`,
      );
    } else {
      await connection.run(
        'CREATE TABLE runs ("runId" VARCHAR, status VARCHAR, "startedAt" VARCHAR, rows BIGINT, dt DATE)',
      );
    }
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return {
    async query(sql) {
      const reader = await connection.runAndReadAll(sql);
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
