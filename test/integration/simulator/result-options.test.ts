import { afterEach, describe, expect, it } from 'vitest';
import type { ReportResult } from '../../../lib/spec/types';
import { requestReport, startTestSim, type TestSim } from './sim-harness';

describe('report result options', () => {
  let t: TestSim | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('writes rows as arrays ordered like displayFields when rowFormat is array', async () => {
    // Prepare
    t = await startTestSim({ rowFormat: 'array' });
    const requestId = await requestReport(t, '2026-03-23T09:00:00Z', '2026-03-23T10:00:00Z');
    // Act
    const result = (await (await t.api(`${t.reportPath}/results/${requestId}/data`)).json()) as ReportResult;
    // Assess
    const names = result.request.displayFields.map((f) => f.fieldName);
    const rows = result.data as unknown[][];
    expect(rows.length).toBe(result.totalCount);
    for (const row of rows) {
      expect(row).toHaveLength(names.length);
      expect(row[names.indexOf('start')]).toMatch(/^2026-03-23T09:/);
    }
  });

  it('stops at rowLimit and sets rowLimitExceeded when the window holds more rows', async () => {
    // Prepare
    t = await startTestSim({ rowLimit: 50 });
    const requestId = await requestReport(t, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
    // Act
    const result = (await (await t.api(`${t.reportPath}/results/${requestId}/data`)).json()) as ReportResult;
    // Assess
    // 200 calls that Monday, 176 of them with an extension user (the first report lists calls by user).
    expect(result.totalCount).toBe(176);
    expect(result.data).toHaveLength(50);
    expect(result.rowLimitExceeded).toBe(true);
    expect(result.rowLimit).toBe(50);
    const [summary] = result.summary;
    expect((summary?.ans ?? 0) + (summary?.ref ?? 0) + (summary?.lost ?? 0)).toBe(50);
  });

  it('returns the same rows for the same seed and different ones for another seed', async () => {
    // Prepare
    const fetchIds = async (seed: number) => {
      const sim = await startTestSim({ seed });
      try {
        const requestId = await requestReport(sim, '2026-03-23T09:00:00Z', '2026-03-23T10:00:00Z');
        const result = (await (
          await sim.api(`${sim.reportPath}/results/${requestId}/data`)
        ).json()) as ReportResult;
        return (result.data as { connId: string }[]).map((r) => r.connId);
      } finally {
        await sim.close();
      }
    };
    // Act
    const [a, b, c] = [await fetchIds(1), await fetchIds(1), await fetchIds(2)];
    // Assess
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});
