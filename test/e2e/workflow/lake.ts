import * as fs from 'node:fs/promises';
import { expect } from 'vitest';
import type { PartitionManifest } from '../../../lib/export';
import { columnName } from '../../../lib/export/schema';
import { type IcebergTable, tableLocation } from '../../../lib/export/table';
import type { LocalDeployment } from '../../../lib/local/local-deployment';
import { RESULT_ROW_FIELDS } from '../../../lib/spec/types';
import { fileCatalogOf, listAll, type ObjectStore, readObject } from '../../../lib/stores';
import type { RunRecord } from '../../../lib/workflow/run-record';

/** What the workflow tests read of the lake: the CSV manifests, the tables, the service's own rows. */

/** The spec's row members: the export's typed columns. */
export const KNOWN: ReadonlySet<string> = new Set(RESULT_ROW_FIELDS);

/** The table of a dataset in the deployment's lake (`lake/tables/<dataset>`, its file catalog). */
export function lakeTable(store: ObjectStore, dataset: 'calls' | 'summaries'): IcebergTable {
  return {
    catalog: fileCatalogOf({ store, prefix: 'lake' }),
    id: { namespace: '', name: dataset },
    location: tableLocation(store, 'lake', dataset),
  };
}

/** The CSV manifests of a dataset and report, by day: each day's rows, request, quality and reconciliation. */
export async function csvManifests(
  store: ObjectStore,
  dataset: 'calls' | 'summaries',
  report: string,
): Promise<Record<string, PartitionManifest>> {
  const out: Record<string, PartitionManifest> = {};
  for (const o of await listAll(store, `lake/${dataset}/format=csv/report_id=${report}/`)) {
    if (!o.key.endsWith('/_manifest.json')) continue;
    const m = JSON.parse(Buffer.from(await readObject(store, o.key)).toString()) as PartitionManifest;
    out[m.dt] = m;
  }
  return out;
}

/** The result document of a report run exactly as the local service serves it (its own JSON). */
export async function serviceRows(
  deployment: LocalDeployment,
  report: string,
  requestId: string,
): Promise<Record<string, unknown>[]> {
  const { sim } = deployment;
  const secret = JSON.parse(await fs.readFile(deployment.secretFile, 'utf8')) as {
    service: { accessToken: string };
  };
  const url = `${sim.baseUrl}/v1.0/workspaces/${sim.workspaceId}/reports/${report}/results/${requestId}/data`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${secret.service.accessToken}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

/** A table row's day (icebird reads a date as a Date at UTC midnight). */
export function dayOf(row: Record<string, unknown>): string {
  return (row.dt as Date).toISOString().slice(0, 10);
}

/** A table value as the service wrote it: `start` (timestamp, micros) back to its local text. */
function asServiceValue(name: string, value: unknown): unknown {
  if (name === 'start' && value instanceof Date) return value.toISOString().replace(/\.000Z$/, '');
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/**
 * Asserts that the call table rows are exactly the service's rows: one per row it sent (by
 * connId, in conn_id), every member of the service's JSON equal to its column (named in
 * snake_case, `columnName`; `promoted` included),
 * the members the export has no column for in `extra` (null when there are none), and the
 * request named. Returns nothing: it throws on the first difference.
 */
export function expectServiceRows(
  table: Record<string, unknown>[],
  sent: Record<string, unknown>[],
  options: { requestId: string; promoted?: readonly string[] },
): void {
  expect(table.map((r) => r.conn_id).sort()).toEqual(sent.map((r) => r.connId).sort());
  const columns = new Set([...KNOWN, ...(options.promoted ?? [])]);
  const byId = new Map(table.map((r) => [r.conn_id, r]));
  for (const row of sent) {
    const got = byId.get(row.connId) ?? {};
    const unknown: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) {
      if (columns.has(name))
        expect([name, asServiceValue(name, got[columnName(name)])]).toEqual([name, value]);
      else unknown[name] = value;
    }
    const extra = typeof got.extra === 'string' ? JSON.parse(got.extra) : got.extra;
    expect(extra ?? null).toEqual(Object.keys(unknown).length === 0 ? null : unknown);
    expect(got.request_id).toBe(options.requestId);
  }
}

/** Rows of a report in table rows, by day. */
export function rowsByDay(rows: Record<string, unknown>[], report: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) if (row.report_id === report) out[dayOf(row)] = (out[dayOf(row)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort());
}

/** The run record a workflow run wrote. */
export async function runRecordAt(store: ObjectStore, key: string): Promise<RunRecord> {
  return JSON.parse(Buffer.from(await readObject(store, key)).toString()) as RunRecord;
}
