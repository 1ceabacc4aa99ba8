import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../../lib/export';
import { liveFiles, loadTable } from '../../../lib/export/table';
import { listAll, readObject } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { startHarness, type WorkflowHarness } from './harness';
import {
  csvManifests,
  dayOf,
  expectServiceRows,
  KNOWN,
  lakeTable,
  rowsByDay,
  runRecordAt,
  serviceRows,
} from './lake';

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

describe('every report and every column (workflow, local service, S3 on fauxqs, tables read by icebird)', () => {
  it('publishes every member of a report with extra display fields exactly, in extra or its promoted column (the table schema evolved by field id), and a summary report day by day into summaries', async () => {
    // Prepare
    h = await startHarness({
      simulator: { extraTemplates: true },
      settings: { PROMOTED_COLUMNS: JSON.stringify({ calls: PROMOTED }), MAX_WINDOW_DAYS: '2' },
    });
    const details = reportId(h, DETAILS);
    const summary = reportId(h, SUMMARY);
    const store = h.s3.store();
    const calls = lakeTable(store, 'calls');
    // A day published into the table before the deployment promoted anything: accountCode in extra.
    const old = callsOn(['2026-11-15'], 3, 'old').map((r) => ({ ...r, accountCode: 'OLD', recorded: true }));
    await exportReportResult({
      source: resultStreamOf(old, { timeZoneId: h.deployment.sim.timeZoneId }),
      store,
      prefix: 'lake',
      reportId: details,
      tables: { catalog: calls.catalog, namespace: '' },
    });
    const before = (await loadTable(calls))?.metadata;
    const oldFiles = (await liveFiles(calls)).files.map((f) => f.key);
    expect(oldFiles).toHaveLength(1);

    // Act
    const result = await h.deployment.run({
      from: '2026-11-16',
      to: '2026-11-17',
      reports: [DETAILS, SUMMARY],
    });

    // Assess: the table's schema evolved: the promoted columns appended with new field ids,
    // the old file kept as it was (no rewrite).
    expect(result.status).toBe('SUCCEEDED');
    const after = (await loadTable(calls))?.metadata;
    const fieldsOf = (m: typeof after) =>
      m?.schemas
        .find((s) => s['schema-id'] === m['current-schema-id'])
        ?.fields.map(({ id, name, type, required }) => ({ id, name, type, required }));
    const lastId = before?.['last-column-id'] as number;
    expect(fieldsOf(after)).toEqual([
      ...(fieldsOf(before) ?? []),
      { id: lastId + 1, name: 'account_code', type: 'string', required: false },
      { id: lastId + 2, name: 'recorded', type: 'boolean', required: false },
    ]);
    const live = (await liveFiles(calls)).files;
    expect(live.filter((f) => f.dt === '2026-11-15').map((f) => f.key)).toEqual(oldFiles);

    // Every day of the details report holds the service's rows, member for member.
    const callDays = await csvManifests(store, 'calls', details);
    expect(Object.keys(callDays).sort()).toEqual(['2026-11-15', '2026-11-16', '2026-11-17']);
    const requestId = callDays['2026-11-16']?.requestId as string;
    expect(callDays['2026-11-17']?.requestId).toBe(requestId);
    const sent = await serviceRows(h.deployment, details, requestId);
    expect(sent.length).toBeGreaterThan(0);
    // Old and new files together, each column by its field id, as Athena reads an Iceberg table.
    const allCalls = await h.tableRows('calls');
    const rows = allCalls.filter((r) => r.report_id === details);
    const oldRead = rows
      .filter((r) => dayOf(r) === '2026-11-15')
      .map((r) => ({
        account_code: r.account_code,
        recorded: r.recorded,
        extra: JSON.parse(String(r.extra)),
      }));
    // icebird reads a column the file has no field id for as undefined (Iceberg's null).
    expect(oldRead).toStrictEqual(
      old.map(() => ({
        account_code: undefined,
        recorded: undefined,
        extra: { accountCode: 'OLD', recorded: true },
      })),
    );
    const read = rows.filter((r) => dayOf(r) > '2026-11-15');
    expectServiceRows(read, sent, { requestId, promoted: PROMOTED.map((c) => c.name) });
    for (const r of read) expect(typeof r.recorded).toBe('boolean');
    for (const row of sent) {
      const unknown = Object.keys(row).filter((k) => !KNOWN.has(k) && !PROMOTED.some((c) => c.name === k));
      expect(unknown.sort()).toEqual(['cost', 'queueSeconds', 'trunk']);
    }

    // The summary report: one partition per day (its two-day job ran day by day), none in calls.
    const summaryDays = await csvManifests(store, 'summaries', summary);
    expect(Object.keys(summaryDays).sort()).toEqual(['2026-11-16', '2026-11-17']);
    expect(live.filter((f) => f.reportId === summary)).toEqual([]);
    expect(rowsByDay(allCalls, summary)).toEqual({});
    expect(await listAll(store, `lake/calls/format=csv/report_id=${summary}/`)).toEqual([]);
    expect(rowsByDay(await h.tableRows('summaries'), summary)).toEqual(
      Object.fromEntries(
        Object.entries(summaryDays)
          .sort()
          .map(([dt, m]) => [dt, m.rows]),
      ),
    );
    for (const m of Object.values(summaryDays)) {
      expect(m.reconciliation).toMatchObject({ matches: true });
    }
    const record = await runRecordAt(store, result.summaries[0]?.runRecordKey as string);
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
      const store = h.s3.store();
      const days = await csvManifests(store, 'calls', report);
      expect(Object.keys(days)).toEqual(published ? ['2026-11-18'] : []);
      expect(rowsByDay(await h.tableRows('calls'), report)).toEqual(
        published ? { '2026-11-18': days['2026-11-18']?.rows } : {},
      );
      const record = await runRecordAt(store, result.summaries[0]?.runRecordKey as string);
      if (published) {
        expect(record.summaryMismatches).toBe(1);
        expect(record.jobs[0]?.mismatches[0]).toMatchObject({ differences: ['ans', 'duration'] });
        expect(days['2026-11-18']?.reconciliation).toMatchObject({
          matches: false,
          differences: ['ans', 'duration'],
        });
        expect(h.deployment.metricLines.join('\n')).toMatch(/"SummaryMismatches"/);
      } else {
        expect(record.jobs[0]).toMatchObject({ status: 'FAILED', error: 'ExportFailedError' });
        expect(record.jobs[0]?.cause).toMatch(/summary disagrees with its rows on ans, duration/);
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
    const store = h.s3.store();
    const record = await runRecordAt(store, result.summaries[0]?.runRecordKey as string);
    expect(record.mode).toBe('preset');
    expect(record.dateFrom).toBe(record.dateTo);
    expect(Object.keys(await csvManifests(store, 'summaries', summary))).toEqual([record.dateFrom]);
    expect(Object.keys(rowsByDay(await h.tableRows('summaries'), summary))).toEqual([record.dateFrom]);
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
    const store = h.s3.store();
    const calls = lakeTable(store, 'calls');
    const before = await csvManifests(store, 'calls', report);
    expect(Object.keys(before).sort()).toEqual(['2026-11-17', '2026-11-18', '2026-11-19']);
    expect(rowsByDay(await h.tableRows('calls'), report)).toEqual(
      Object.fromEntries(Object.entries(before).map(([dt, m]) => [dt, m.rows])),
    );
    const heldDays = ['2026-11-18', '2026-11-19'];
    const liveOf = async (days: string[]) =>
      (await liveFiles(calls)).files.filter((f) => f.reportId === report && days.includes(f.dt));
    /** The held days as readers see them: the table's live data files and the CSV objects, by key. */
    const heldState = async () => {
      const keys = (await liveOf(heldDays)).map((f) => f.key);
      for (const o of await listAll(store, `lake/calls/format=csv/report_id=${report}/`))
        if (heldDays.some((d) => o.key.includes(`/dt=${d}/`))) keys.push(o.key);
      const out = new Map<string, string>();
      for (const key of keys) out.set(key, Buffer.from(await readObject(store, key)).toString('base64'));
      return out;
    };
    const published = await heldState();
    expect(new Set((await liveOf(heldDays)).map((f) => f.dt))).toEqual(new Set(heldDays));

    // Act: the next night (11-20, look-back 11-18 and 11-19) the service has lost every call.
    h.deployment.sim.faults.inject({ route: 'data', kind: 'empty-result', reportId: report, times: 1 });
    const next = { scheduledTime: '2026-11-21T04:00:00Z', reports: ['Call list by user'] };
    const held = await h.deployment.run(next);

    // Assess: the two published days are held byte for byte (the same live files in the
    // table, the same CSV); the new day is published (empty); the run record says which days
    // and both counts; a metric feeds the alarm.
    expect(held.status).toBe('SUCCEEDED');
    expect(await heldState()).toEqual(published);
    const record = await runRecordAt(store, held.summaries[0]?.runRecordKey as string);
    expect(record.heldPartitions).toBe(2);
    expect(record.jobs[0]?.held).toEqual([
      { dt: '2026-11-18', basis: 'rows', publishedRows: before['2026-11-18']?.rows, rows: 0 },
      { dt: '2026-11-19', basis: 'rows', publishedRows: before['2026-11-19']?.rows, rows: 0 },
    ]);
    expect((await csvManifests(store, 'calls', report))['2026-11-20']?.rows).toBe(0);
    expect(await liveOf(['2026-11-20'])).toEqual([]);
    expect(h.deployment.metricLines.join('\n')).toMatch(/"PartitionsHeld"/);

    // Act: the operator knows the service is right and forces the replacement.
    h.deployment.sim.faults.inject({ route: 'data', kind: 'empty-result', reportId: report, times: 1 });
    const forced = await h.deployment.run({ ...next, forceReplace: true });

    // Assess: the days are empty in the table (no live file) and in the CSV (a manifest of 0 rows).
    expect(forced.status).toBe('SUCCEEDED');
    const now = await csvManifests(store, 'calls', report);
    expect([now['2026-11-18']?.rows, now['2026-11-19']?.rows]).toEqual([0, 0]);
    expect(await liveOf(heldDays)).toEqual([]);
    expect(Object.keys(rowsByDay(await h.tableRows('calls'), report))).toEqual(['2026-11-17']);
    const parts = (await listAll(store, `lake/calls/format=csv/report_id=${report}/dt=2026-11-18/`)).map(
      (o) => path.basename(o.key),
    );
    expect(parts).toEqual(['_manifest.json']);
    expect((await runRecordAt(store, forced.summaries[0]?.runRecordKey as string)).heldPartitions).toBe(0);
  });
});
