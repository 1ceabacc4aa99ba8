import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSnapshots, parseMetadata } from '../../../lib/export/table';
import { startLocalDeployment } from '../../../lib/local/local-deployment';
import { readObject } from '../../../lib/stores';
import { startHarness, type WorkflowHarness } from './harness';
import { csvManifests, dayOf, expectServiceRows, lakeTable, runRecordAt, serviceRows } from './lake';

let h: WorkflowHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const REPORT = 'Call list by user';
const DAYS = ['2026-11-17', '2026-11-18'];

/** The service's rows of one local day (a row's day is the date of its local `start`). */
const onDay = (rows: Record<string, unknown>[], day: string) =>
  rows.filter((r) => String(r.start).startsWith(day));

describe('the calls table through the workflow (file catalog on fauxqs, read back by icebird)', () => {
  it('reads, after a re-export of a day the service now answers with other rows, that run for the day and the first for the other, and the first run at the earlier metadata version; the run records name snapshots the table lists', async () => {
    // Prepare: the first run publishes two days.
    h = await startHarness();
    const store = h.s3.store();
    const report = h.deployment.reports.find((r) => r.name === REPORT)?.id as string;
    const first = await h.deployment.run({ from: DAYS[0], to: DAYS[1], reports: [REPORT] });
    expect(first.status).toBe('SUCCEEDED');
    const firstDays = await csvManifests(store, 'calls', report);
    expect(Object.keys(firstDays).sort()).toEqual(DAYS);
    const firstRequest = (day: string) => firstDays[day]?.requestId as string;
    const firstSent = new Map<string, Record<string, unknown>[]>();
    for (const day of DAYS)
      firstSent.set(day, onDay(await serviceRows(h.deployment, report, firstRequest(day)), day));
    const firstVersion = Buffer.from(
      await readObject(store, 'lake/tables/calls/metadata/version-hint.text'),
    ).toString();

    // Act: the same lake, exported by a deployment whose service now has more calls a day
    // (its own seeded service: the same reports, other rows), re-exports the second day.
    const other = await startLocalDeployment({
      workDir: path.join(h.workDir, 'second-deployment'),
      objectStoreUri: h.deployment.env.OBJECT_STORE_URI as string,
      s3: () => h?.s3.client as WorkflowHarness['s3']['client'],
      s3Endpoint: h.s3.endpoint,
      functions: 'in-process',
      simulator: { reportLatencyMs: 50, rowsPerDay: 180 },
    });
    let again: Awaited<ReturnType<typeof other.run>>;
    let secondRequest: string;
    let secondSent: Record<string, unknown>[];
    try {
      again = await other.run({ date: DAYS[1], reports: [REPORT] });
      secondRequest = (await csvManifests(store, 'calls', report))[DAYS[1] as string]?.requestId as string;
      secondSent = onDay(await serviceRows(other, report, secondRequest), DAYS[1] as string);
    } finally {
      await other.close();
    }

    // Assess: the current snapshot is the first run's first day and the second run's second day.
    expect(again.status).toBe('SUCCEEDED');
    expect(secondRequest).not.toBe(firstRequest(DAYS[1] as string));
    expect(secondSent.length).toBeGreaterThan(firstSent.get(DAYS[1] as string)?.length ?? 0);
    const now = await h.tableRows('calls');
    expect(now.every((r) => r.report_id === report)).toBe(true);
    expect(now.map(dayOf).filter((d) => !DAYS.includes(d))).toEqual([]);
    expectServiceRows(
      now.filter((r) => dayOf(r) === DAYS[0]),
      firstSent.get(DAYS[0] as string) ?? [],
      { requestId: firstRequest(DAYS[0] as string) },
    );
    expectServiceRows(
      now.filter((r) => dayOf(r) === DAYS[1]),
      secondSent,
      { requestId: secondRequest },
    );
    // The earlier metadata version still reads exactly the first run.
    const earlier = await h.tableRows('calls', `v${firstVersion}.metadata.json`);
    for (const day of DAYS)
      expectServiceRows(
        earlier.filter((r) => dayOf(r) === day),
        firstSent.get(day) ?? [],
        { requestId: firstRequest(day) },
      );
    expect(earlier).toHaveLength(DAYS.reduce((n, d) => n + (firstSent.get(d)?.length ?? 0), 0));

    // The run records name each job's snapshot; the table lists them, the first run's is the
    // one current at the earlier version, the second run's is current now.
    const records = [
      await runRecordAt(store, first.summaries[0]?.runRecordKey as string),
      await runRecordAt(store, again.summaries[0]?.runRecordKey as string),
    ];
    const jobs = records.map((r) => r.jobs[0]);
    expect(jobs.map((j) => [j?.snapshot?.table, j?.commits])).toEqual([
      ['calls', 1],
      ['calls', 1],
    ]);
    const { snapshots, currentSnapshotId } = await listSnapshots(lakeTable(store, 'calls'));
    const ids = snapshots.map((s) => s['snapshot-id']);
    for (const j of jobs) expect(ids).toContain(j?.snapshot?.snapshotId);
    const firstMetadata = `lake/tables/calls/metadata/v${firstVersion}.metadata.json`;
    const atFirst = parseMetadata(
      Buffer.from(await readObject(store, firstMetadata)).toString(),
      firstMetadata,
    );
    expect(atFirst['current-snapshot-id']).toBe(jobs[0]?.snapshot?.snapshotId);
    expect(currentSnapshotId).toBe(jobs[1]?.snapshot?.snapshotId);
    expect(
      snapshots.find((s) => s['snapshot-id'] === currentSnapshotId)?.summary['report-export.request-id'],
    ).toBe(secondRequest);
  }, 180_000);
});
