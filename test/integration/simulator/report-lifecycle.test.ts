import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ErrorBody, ReportRequestStatus } from '../../../lib/spec/types';
import { requestReport, startTestSim, type TestSim } from './sim-harness';

const LATENCY_MS = 3000;

async function statusOf(t: TestSim, requestId: string): Promise<ReportRequestStatus> {
  return (
    (await (await t.api(`${t.reportPath}/results/${requestId}`)).json()) as Envelope<ReportRequestStatus>
  ).data;
}

describe('report request lifecycle', () => {
  let t: TestSim;

  beforeAll(async () => {
    t = await startTestSim({ reportLatencyMs: LATENCY_MS });
  });
  afterAll(async () => {
    await t.close();
  });

  it('goes Queued, Running, Complete as the clock passes the latency', async () => {
    // Prepare
    const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
    const seen: string[] = [];
    // Act
    seen.push((await statusOf(t, requestId)).status);
    t.clock.advance(LATENCY_MS / 2);
    seen.push((await statusOf(t, requestId)).status);
    t.clock.advance(LATENCY_MS / 2);
    seen.push((await statusOf(t, requestId)).status);
    // Assess
    expect(seen).toEqual(['Queued', 'Running', 'Complete']);
  });

  it.each(['results', 'requests'])(
    'answers 409 with the error body when data is fetched before completion via /%s',
    async (spelling) => {
      // Prepare
      const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
      // Act
      const response = await t.api(`${t.reportPath}/${spelling}/${requestId}/data`);
      const body = (await response.json()) as ErrorBody;
      // Assess
      expect(response.status).toBe(409);
      expect(body).toMatchObject({
        error: 409,
        status: 'error',
        message: 'Report request is not complete (status Queued).',
      });
    },
  );

  it('ends Failed with the fault message and refuses data when a report-fail fault is armed', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'request', kind: 'report-fail', statusMessage: 'Database timeout.' });
    const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
    t.clock.advance(LATENCY_MS);
    // Act
    const status = await statusOf(t, requestId);
    const data = await t.api(`${t.reportPath}/results/${requestId}/data`);
    // Assess
    expect(status).toMatchObject({ status: 'Failed', statusMessage: 'Database timeout.' });
    expect(data.status).toBe(409);
  });

  it('stays Running forever when a report-stuck fault is armed', async () => {
    // Prepare
    t.sim.faults.inject({ route: 'request', kind: 'report-stuck' });
    const stuck = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
    const normal = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
    // Act
    t.clock.advance(3600_000);
    // Assess
    expect((await statusOf(t, stuck)).status).toBe('Running');
    expect((await statusOf(t, normal)).status).toBe('Complete');
  });
});
