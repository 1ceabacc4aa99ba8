import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { icebergRead } from 'icebird';
import { duckdbQuery, sqlString } from '../../support/duckdb';

/**
 * Reading a multi-tenant lake back as a reader does, for the rollback tests: a table's rows
 * with icebird (the current snapshot, through the test's store fetch), a tenant's CSV with
 * DuckDB, both as comparable text rows.
 */

/** A value as text the way CSV writes it: timestamps ISO without the zone letter, null as null. */
function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString().replace(/Z$/, '');
  return String(v).replace(/Z$/, '');
}

/** The tenant's rows of `dataset` as icebird reads the table, each `columns` as text, sorted. */
export async function tableRows(
  root: string,
  dataset: string,
  tenant: string,
  columns: readonly string[],
): Promise<string[]> {
  const rows = await icebergRead({ tableUrl: `${pathToFileURL(root).href}/tables/${dataset}` });
  return rows
    .filter((r) => r.tenant === tenant)
    .map((r) => JSON.stringify(columns.map((c) => text(r[c]))))
    .sort();
}

/** Every CSV part of the tenant's partitions of `dataset`. */
export async function csvParts(root: string, dataset: string, tenant: string): Promise<string[]> {
  const base = path.join(root, dataset, 'format=csv', `tenant=${tenant}`);
  const entries = await readdir(base, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => e.endsWith('.csv')).map((e) => path.join(base, e));
}

/** The tenant's CSV rows of `dataset` as DuckDB reads them (every field as text), and the header's columns. */
export async function csvRows(
  root: string,
  dataset: string,
  tenant: string,
): Promise<{ columns: string[]; rows: string[] }> {
  const parts = await csvParts(root, dataset, tenant);
  if (parts.length === 0) return { columns: [], rows: [] };
  const list = `[${parts.map(sqlString).join(', ')}]`;
  const read = await duckdbQuery(
    `SELECT * FROM read_csv(${list}, header = true, all_varchar = true, union_by_name = true, hive_partitioning = false)`,
  );
  const columns = Object.keys(read[0] ?? {});
  return {
    columns,
    rows: read.map((r) => JSON.stringify(columns.map((c) => text(r[c])))).sort(),
  };
}

/** Rows per day of the tenant's CSV of `dataset`. */
export async function csvDays(
  root: string,
  dataset: string,
  tenant: string,
): Promise<Record<string, number>> {
  const days: Record<string, number> = {};
  for (const part of await csvParts(root, dataset, tenant)) {
    const dt = /dt=(\d{4}-\d{2}-\d{2})/.exec(part)?.[1] as string;
    const [row] = await duckdbQuery(
      `SELECT count(*)::INTEGER AS n FROM read_csv(${sqlString(part)}, header = true)`,
    );
    days[dt] = (days[dt] ?? 0) + Number(row?.n);
  }
  return days;
}
