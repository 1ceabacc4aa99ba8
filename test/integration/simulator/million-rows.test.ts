import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultScanner } from './result-scanner';
import { requestReport, startTestSim, type TestSim } from './sim-harness';

describe('streamed 1,000,000-row result', () => {
  let t: TestSim;

  beforeAll(async () => {
    // 1.25M calls on a weekday, 1,122,030 with a user (the first report): the row limit cuts at 1,000,000.
    t = await startTestSim({ rowsPerDay: 1_250_000 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('streams exactly rowLimit valid rows with rowLimitExceeded when the window holds more', async () => {
    // Prepare
    const requestId = await requestReport(t, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
    const scanner = new ResultScanner();
    // Act
    const response = await fetch(`${t.sim.baseUrl}/v1.0${t.reportPath}/results/${requestId}/data`, {
      headers: { authorization: `Bearer ${t.token}`, 'accept-encoding': 'identity' },
      signal: AbortSignal.timeout(55_000),
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      scanner.push(decoder.decode(chunk, { stream: true }));
    }
    scanner.push(decoder.decode());
    scanner.finish();
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(scanner.head).toMatchObject({ totalCount: 1_122_030, rowLimitExceeded: true });
    expect(scanner.rows).toBe(1_000_000);
    expect(scanner.tail).toMatchObject({ status: 1, rowLimit: 1_000_000 });
    const [summary] = (scanner.tail?.summary ?? []) as { ans: number; ref: number; lost: number }[];
    expect((summary?.ans ?? 0) + (summary?.ref ?? 0) + (summary?.lost ?? 0)).toBe(1_000_000);
    expect(scanner.firstRow?.start).toMatch(/^2026-03-23T00:/);
  });
});
