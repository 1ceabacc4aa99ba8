import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../lib/api';
import type { ResultRow } from '../../../lib/spec/types';
import { connect, type RunningSimulator, startTestSimulator } from './sim-fixture';

const RANGE = { start: '2026-11-02T00:00:00+00:00', end: '2026-11-04T00:00:00+00:00' };

async function runAndRead(api: ServiceClient, reportId: string, extra: Record<string, unknown> = {}) {
  const run = await api.reporting.requestReport({ reportId, period: RANGE, ...extra });
  const ref = { reportId, requestId: run.requestId };
  await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 50 });
  const result = await api.reporting.openResult(ref);
  const rows: ResultRow[] = [];
  for await (const row of result.rows) rows.push(row);
  return { head: result.head, rows, meta: await result.done() };
}

describe('report results against the local service', () => {
  const sims: RunningSimulator[] = [];
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((s) => s.close()));
  });

  async function start(options: Parameters<typeof startTestSimulator>[0]) {
    const sim = await startTestSimulator(options);
    sims.push(sim);
    const { api, tokens } = await connect(sim);
    return { sim, api, tokens, reportId: sim.reportIds[0] as string };
  }

  it('reads array rows as the same objects as object rows when rows follow displayFields', async () => {
    // Prepare: same seed, so the same calls; one service sends rows as arrays
    const objects = await start({ rowFormat: 'object' });
    const arrays = await start({ rowFormat: 'array' });
    // Act
    const a = await runAndRead(objects.api, objects.reportId);
    const b = await runAndRead(arrays.api, arrays.reportId);
    const raw = await fetch(
      `${arrays.sim.baseUrl}/v1.0/workspaces/${arrays.sim.workspaceId}/reports/${arrays.reportId}/results/${b.head.requestId}/data`,
      {
        headers: { authorization: `Bearer ${await arrays.tokens.getAccessToken()}` },
        signal: AbortSignal.timeout(10_000),
      },
    ).then((r) => r.text());
    // Assess
    expect(raw).toMatch(/"data":\s*\[\s*\[/);
    expect(b.rows.length).toBeGreaterThan(0);
    expect(b.rows).toEqual(a.rows);
    expect(b.meta.rowsRead).toBe(b.meta.totalCount);
  });

  it('surfaces rowLimitExceeded and reads rowLimit rows when the result is capped', async () => {
    // Prepare
    const { api, reportId } = await start({ rowLimit: 25 });
    // Act
    const { head, rows, meta } = await runAndRead(api, reportId);
    // Assess
    expect(head.rowLimitExceeded).toBe(true);
    expect(meta).toMatchObject({ rowLimitExceeded: true, rowLimit: 25, rowsRead: 25 });
    expect(rows).toHaveLength(25);
    expect(meta.totalCount).toBeGreaterThan(25);
  });

  it('runs with filterId and additionalConditions when both are given', async () => {
    // Prepare
    const { api, reportId } = await start({});
    const filterId = randomUUID();
    const additionalConditions = [{ fieldName: 'callDir', operator: '=', values: ['1'] }];
    // Act
    const { head } = await runAndRead(api, reportId, { filterId, additionalConditions });
    // Assess
    expect(head.request.metadata.filterId).toBe(filterId);
    expect(head.request.metadata.additionalFilters).toEqual(additionalConditions);
  });
});
