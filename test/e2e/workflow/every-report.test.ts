import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { RESULT_ROW_FIELDS } from '../../../lib/spec/types';
import { listAll, readObject } from '../../../lib/stores';
import { duckdbQuery, sqlString } from '../../support/duckdb';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { startHarness, type WorkflowHarness } from './harness';

let h: WorkflowHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DETAILS = 'Call list with details';
const SUMMARY = 'Summary by user';
/** Members of the details template the deployment promotes; the others stay in extra. */
const PROMOTED = [
  { name: 'accountCode', type: 'string' },
  { name: 'recorded', type: 'boolean' },
];

function reportId(harness: WorkflowHarness, name: string): string {
  const found = harness.deployment.reports.find((r) => r.name === name);
  if (found === undefined) throw new Error(`no report ${name}`);
  return found.id;
}

/** The result document of a report run exactly as the local service serves it (its own JSON). */
async function serviceRows(harness: WorkflowHarness, report: string, requestId: string) {
  const { sim } = harness.deployment;
  const secret = JSON.parse(await fs.readFile(harness.deployment.secretFile, 'utf8')) as {
    service: { accessToken: string };
  };
  const url = `${sim.baseUrl}/v1.0/workspaces/${sim.workspaceId}/reports/${report}/results/${requestId}/data`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${secret.service.accessToken}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

/** The Parquet manifests of a dataset and report, by day. */
async function manifests(harness: WorkflowHarness, dataset: string, report: string) {
  const store = harness.s3.store();
  const out: Record<string, { rows: number; requestId: string; quality: unknown; reconciliation: unknown }> =
    {};
  for (const o of await listAll(store, `lake/${dataset}/format=parquet/report_id=${report}/`)) {
    if (!o.key.endsWith('/_manifest.json')) continue;
    const m = JSON.parse(Buffer.from(await readObject(store, o.key)).toString());
    out[m.dt] = m;
  }
  return out;
}

async function runRecord(harness: WorkflowHarness, key: string) {
  return JSON.parse(Buffer.from(await readObject(harness.s3.store(), key)).toString());
}

describe('every report and every column (workflow, local service, S3 on fauxqs, DuckDB)', () => {
  it('publishes every member of a report with extra display fields exactly, in extra or its promoted column, and a summary report day by day into summaries', async () => {
    // Prepare
    h = await startHarness({
      simulator: { extraTemplates: true },
      settings: { PROMOTED_COLUMNS: JSON.stringify({ calls: PROMOTED }), MAX_WINDOW_DAYS: '2' },
    });
    const details = reportId(h, DETAILS);
    const summary = reportId(h, SUMMARY);
    // A day published before the deployment promoted anything: accountCode in extra.
    const old = callsOn(['2026-11-15'], 3, 'old').map((r) => ({ ...r, accountCode: 'OLD', recorded: true }));
    await exportReportResult({
      source: resultStreamOf(old, { timeZoneId: h.deployment.sim.timeZoneId }),
      store: h.s3.store(),
      prefix: 'lake',
      reportId: details,
    });

    // Act
    const result = await h.deployment.run({
      from: '2026-11-16',
      to: '2026-11-17',
      reports: [DETAILS, SUMMARY],
    });

    // Assess: every day of the details report holds the service's rows, member for member.
    expect(result.status).toBe('SUCCEEDED');
    const dir = await h.download();
    const callDays = await manifests(h, 'calls', details);
    expect(Object.keys(callDays).sort()).toEqual(['2026-11-15', '2026-11-16', '2026-11-17']);
    const requestId = callDays['2026-11-16']?.requestId as string;
    const sent = await serviceRows(h, details, requestId);
    expect(sent.length).toBeGreaterThan(0);
    const glob = sqlString(`${dir}/lake/calls/format=parquet/report_id=${details}/*/*.parquet`);
    // Old and new files together, by column name, as Athena reads them.
    const all = `read_parquet(${glob}, hive_partitioning = true, union_by_name = true)`;
    const oldRead = await duckdbQuery(
      `SELECT "accountCode", recorded, extra->>'accountCode' AS in_extra FROM ${all} WHERE dt = DATE '2026-11-15'`,
    );
    expect(oldRead).toEqual(old.map(() => ({ accountCode: null, recorded: null, in_extra: 'OLD' })));
    const read = await duckdbQuery(
      `SELECT "connId", "accountCode", recorded, extra, typeof(recorded) AS recorded_type FROM ${all}
       WHERE dt > DATE '2026-11-15' ORDER BY "connId"`,
    );
    expect(read).toHaveLength(sent.length);
    const byId = new Map(read.map((r) => [r.connId, r]));
    for (const row of sent) {
      const got = byId.get(row.connId);
      expect(got).toBeDefined();
      expect(got?.accountCode).toBe(row.accountCode);
      expect(got?.recorded).toBe(row.recorded);
      expect(got?.recorded_type).toBe('BOOLEAN');
      const { accountCode: _a, recorded: _r, ...rest } = row;
      const unknown = Object.fromEntries(Object.entries(rest).filter(([k]) => !KNOWN.has(k)));
      expect(JSON.parse(String(got?.extra))).toEqual(unknown);
      expect(Object.keys(unknown).sort()).toEqual(['cost', 'queueSeconds', 'trunk']);
    }

    // The summary report: one partition per day (its two-day job ran day by day), none in calls.
    const summaryDays = await manifests(h, 'summaries', summary);
    expect(Object.keys(summaryDays).sort()).toEqual(['2026-11-16', '2026-11-17']);
    expect(await listAll(h.s3.store(), `lake/calls/format=parquet/report_id=${summary}/`)).toEqual([]);
    const sums = await duckdbQuery(
      `SELECT dt::VARCHAR AS dt, count(*)::INTEGER AS n, sum(ans)::INTEGER AS ans
       FROM read_parquet(${sqlString(`${dir}/lake/summaries/format=parquet/*/*/*.parquet`)}, hive_partitioning = true)
       GROUP BY dt ORDER BY dt`,
    );
    expect(sums.map((r) => [r.dt, r.n])).toEqual(
      Object.entries(summaryDays)
        .sort()
        .map(([dt, m]) => [dt, m.rows]),
    );
    for (const m of Object.values(summaryDays)) {
      expect(m.reconciliation).toMatchObject({ matches: true });
    }
    const record = await runRecord(h, result.summaries[0]?.runRecordKey as string);
    expect(record).toMatchObject({ summaryMismatches: 0, heldPartitions: 0 });
  });

  it.each([
    { policy: 'flag', status: 'SUCCEEDED', published: true },
    { policy: 'fail', status: 'FAILED', published: false },
  ])(
    'ends a result whose summary disagrees with its rows as configured ($policy)',
    async ({ policy, status, published }) => {
      // Prepare
      h = await startHarness({ settings: { SUMMARY_MISMATCH: policy } });
      const report = reportId(h, 'Call list by user');
      h.deployment.sim.faults.inject({ route: 'data', kind: 'summary-mismatch', reportId: report, times: 1 });

      // Act
      const result = await h.deployment.run({ date: '2026-11-18', reports: ['Call list by user'] });

      // Assess
      expect(result.status).toBe(status);
      const days = await manifests(h, 'calls', report);
      expect(Object.keys(days)).toEqual(published ? ['2026-11-18'] : []);
      const record = await runRecord(h, result.summaries[0]?.runRecordKey as string);
      if (published) {
        expect(record.summaryMismatches).toBe(1);
        expect(record.jobs[0].mismatches[0]).toMatchObject({ differences: ['ans', 'duration'] });
        expect(days['2026-11-18']?.reconciliation).toMatchObject({
          matches: false,
          differences: ['ans', 'duration'],
        });
        expect(h.deployment.metricLines.join('\n')).toMatch(/"SummaryMismatches"/);
      } else {
        expect(record.jobs[0]).toMatchObject({ status: 'FAILED', error: 'ExportFailedError' });
        expect(record.jobs[0].cause).toMatch(/summary disagrees with its rows on ans, duration/);
      }
    },
  );

  it('runs a preset on a summary report as local dates, day by day (the service resolved presets for summaries too, which failed)', async () => {
    // Prepare
    h = await startHarness({ simulator: { extraTemplates: true } });
    const summary = reportId(h, SUMMARY);
    // Act
    const result = await h.deployment.run({ preset: 'Yesterday', reports: [SUMMARY] });
    // Assess: yesterday's summary partition, published from a dated window.
    expect(result.status).toBe('SUCCEEDED');
    const record = await runRecord(h, result.summaries[0]?.runRecordKey as string);
    expect(record.mode).toBe('preset');
    expect(record.dateFrom).toBe(record.dateTo);
    expect(Object.keys(await manifests(h, 'summaries', summary))).toEqual([record.dateFrom]);
    expect(record.partialDays).toEqual([]);
  });

  it('holds the published days of the look-back an empty result would replace, then replaces them with forceReplace', async () => {
    // Prepare: the nightly run of 11-19 (look-back 2) publishes 11-17 .. 11-19.
    h = await startHarness({ settings: { LOOKBACK_DAYS: '2' } });
    const report = reportId(h, 'Call list by user');
    const first = await h.deployment.run({
      scheduledTime: '2026-11-20T04:00:00Z',
      reports: ['Call list by user'],
    });
    expect(first.status).toBe('SUCCEEDED');
    const before = await manifests(h, 'calls', report);
    expect(Object.keys(before).sort()).toEqual(['2026-11-17', '2026-11-18', '2026-11-19']);
    const store = h.s3.store();
    const snapshot = async () => {
      const out = new Map<string, string>();
      for (const o of await listAll(store, `lake/calls/format=parquet/report_id=${report}/`))
        out.set(o.key, Buffer.from(await readObject(store, o.key)).toString('base64'));
      return out;
    };
    const published = await snapshot();

    // Act: the next night (11-20, look-back 11-18 and 11-19) the service has lost every call.
    h.deployment.sim.faults.inject({ route: 'data', kind: 'empty-result', reportId: report, times: 1 });
    const next = { scheduledTime: '2026-11-21T04:00:00Z', reports: ['Call list by user'] };
    const held = await h.deployment.run(next);

    // Assess: the two published days are held byte for byte; the new day is published (empty);
    // the run record says which days and both counts; a metric feeds the alarm.
    expect(held.status).toBe('SUCCEEDED');
    const after = await snapshot();
    for (const [key, bytes] of published)
      if (!key.includes('dt=2026-11-17')) expect(after.get(key)).toBe(bytes);
    const record = await runRecord(h, held.summaries[0]?.runRecordKey as string);
    expect(record.heldPartitions).toBe(2);
    expect(record.jobs[0].held).toEqual([
      { dt: '2026-11-18', basis: 'rows', publishedRows: before['2026-11-18']?.rows, rows: 0 },
      { dt: '2026-11-19', basis: 'rows', publishedRows: before['2026-11-19']?.rows, rows: 0 },
    ]);
    expect((await manifests(h, 'calls', report))['2026-11-20']?.rows).toBe(0);
    expect(h.deployment.metricLines.join('\n')).toMatch(/"PartitionsHeld"/);

    // Act: the operator knows the service is right and forces the replacement.
    h.deployment.sim.faults.inject({ route: 'data', kind: 'empty-result', reportId: report, times: 1 });
    const forced = await h.deployment.run({ ...next, forceReplace: true });

    // Assess
    expect(forced.status).toBe('SUCCEEDED');
    const now = await manifests(h, 'calls', report);
    expect([now['2026-11-18']?.rows, now['2026-11-19']?.rows]).toEqual([0, 0]);
    const parts = (await listAll(store, `lake/calls/format=parquet/report_id=${report}/dt=2026-11-18/`)).map(
      (o) => path.basename(o.key),
    );
    expect(parts).toEqual(['_manifest.json']);
    expect((await runRecord(h, forced.summaries[0]?.runRecordKey as string)).heldPartitions).toBe(0);
  });
});

/** The spec's row members: the export's typed columns. */
const KNOWN: ReadonlySet<string> = new Set(RESULT_ROW_FIELDS);
