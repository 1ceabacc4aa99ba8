import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseOrHelp, UsageError } from '../../../command-line';
import type { AsOf } from '../../../export';
import type { IOStreams } from '../../shared/io-streams';
import type { LakeDatabase, QueryAnswer } from '../../shared/lake-database';
import type { TableRead } from '../../shared/lake-tables';
import { splitPositionals } from '../../shared/positionals';
import { colors, renderTable } from '../../shared/terminal';
import { DEFAULT_FORMAT, QUERY_COMMAND } from './spec';

/** Error codes of `query` (CLI_ prefix, as every CLI code). */
const QUERY_ERROR_CODES = { failed: 'CLI_QUERY_FAILED' } as const;

/** DuckDB refused or failed the statement; the message is DuckDB's. */
class QueryFailedError extends Error {
  override readonly name = 'QueryFailedError';
  readonly code = QUERY_ERROR_CODES.failed;
}

/** CSV per RFC 4180 (quoted when needed), one line per row. */
function toCsv(answer: QueryAnswer): string {
  const field = (v: unknown): string => {
    const text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [
    answer.columns.map(field),
    ...answer.rows.map((r) => answer.columns.map((c) => field(r[c]))),
  ];
  return lines.map((l) => `${l.join(',')}\r\n`).join('');
}

/** Most SQL text read from a file or stdin: a query, not a dump. */
const MAX_SQL_BYTES = 1024 * 1024;

/** The SQL text of `-f <file>` (relative to `cwd`) or stdin (`-f -`, or `-` as the argument). */
async function readSql(from: string, io: Pick<IOStreams, 'stdin' | 'cwd'>): Promise<string> {
  const what = from === '-' ? 'stdin' : from;
  let text = '';
  try {
    const stream = from === '-' ? io.stdin : createReadStream(path.resolve(io.cwd, from));
    for await (const chunk of stream) {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      if (text.length > MAX_SQL_BYTES) throw new UsageError(`the SQL in ${what} is over 1 MiB`);
    }
  } catch (cause) {
    if (cause instanceof UsageError) throw cause;
    throw new UsageError(`cannot read the SQL from ${what}: ${(cause as Error).message}`, { cause });
  }
  if (text.trim() === '')
    throw new UsageError(
      `${what} holds no SQL; give a statement, e.g. "SELECT count(*) FROM calls", as the argument, with --file <file.sql>, or on stdin`,
    );
  return text;
}

/** The lake at `asOf`; a point it has not (an unknown snapshot, no tables) is the user's to fix: exit 2 naming --as-of. */
async function openLakeAsOf(
  open: typeof import('../../shared/lake-database').openLake,
  dir: string,
  asOf: AsOf | undefined,
  tenant: string | undefined,
): Promise<LakeDatabase> {
  // Loaded with the lake database (which imports them): no cost of their own.
  const { LakeHistoryError } = await import('../../shared/lake-tables');
  const { LakeTenancyError } = await import('../../shared/lake-database');
  try {
    return await open(dir, { asOf, tenant });
  } catch (cause) {
    if (cause instanceof LakeHistoryError) {
      throw new UsageError(`--as-of: ${cause.message}`, { cause });
    }
    if (cause instanceof LakeTenancyError) throw new UsageError(`--tenant: ${cause.message}`, { cause });
    throw cause;
  }
}

/** The snapshot each table read, on stderr: an answer as of a point says which. */
function describeReads(reads: readonly TableRead[]): string {
  return reads
    .map((r) =>
      r.snapshot === undefined
        ? `${r.dataset}: no snapshot then (empty)\n`
        : `${r.dataset}: snapshot ${r.snapshot['snapshot-id']} of ${new Date(r.snapshot['timestamp-ms']).toISOString()}\n`,
    )
    .join('');
}

export async function queryCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const { flags, positionals: sql } = splitPositionals(QUERY_COMMAND, argv);
  const v = parseOrHelp(QUERY_COMMAND, flags, io.stdout);
  if (v === undefined) return 0;
  if (v.file !== undefined && sql.length > 0) {
    throw new UsageError('give the SQL as an argument or with --file, not both');
  }
  // No SQL given and stdin a pipe or a file (`echo 'SELECT 1' | report-export query`): as duckdb, read it.
  const piped = v.file === undefined && sql.length === 0 && io.stdin.isTTY !== true;
  if (v.file === undefined && sql.length === 0 && !piped)
    throw new UsageError(
      'a SQL statement is required, e.g. "SELECT count(*) FROM calls" (or --file <file.sql>, or - for stdin)',
    );
  if (sql.length > 1)
    throw new UsageError(`give the SQL as one argument (quote it); got ${sql.length} arguments`);
  if (v.json && v.format !== undefined && v.format !== 'json') {
    throw new UsageError(`--json and --format ${v.format} disagree; give one`);
  }
  const format = v.json ? 'json' : (v.format ?? DEFAULT_FORMAT);
  // Every check of the command line before stdin is read: a wrong --dir never waits on a pipe.
  const dir = path.resolve(io.cwd, v.dir);
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new UsageError(
      `--dir ${dir} is not a directory (export into it first: report-export, or pass --dir)`,
    );
  }
  // Loaded on use, as DuckDB is: the tenant id's rule is the export core's.
  const tenant =
    v.tenant === undefined ? undefined : (await import('../../shared/tenant-check')).checkedTenant(v.tenant);
  const from = v.file ?? (sql[0] === '-' || piped ? '-' : undefined);
  if (from !== undefined) sql[0] = await readSql(from, io);
  // Loaded on use: DuckDB (and the tables' schema) only once there is SQL to run.
  const { openLake } = await import('../../shared/lake-database');
  const db = await openLakeAsOf(openLake, dir, v['as-of'], tenant);
  let answer: QueryAnswer;
  try {
    answer = await db.query(sql[0] as string);
  } catch (cause) {
    throw new QueryFailedError((cause as Error).message, { cause });
  } finally {
    db.close();
  }
  if (v['as-of'] !== undefined) io.stderr.write(describeReads(db.tables));
  if (format === 'json') io.stdout.write(`${JSON.stringify(answer.rows)}\n`);
  else if (format === 'csv') io.stdout.write(toCsv(answer));
  else {
    const c = colors(io.stdout, io.env);
    io.stdout.write(renderTable(answer.rows, answer.columns, { header: c.bold }));
    io.stderr.write(`(${answer.rows.length} row${answer.rows.length === 1 ? '' : 's'})\n`);
  }
  return 0;
}
