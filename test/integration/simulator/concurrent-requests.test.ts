import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, REQUEST_TIMEOUT_MS, requestReport, startTestSim, type TestSim } from './sim-harness';

/** Opens the data body with node:http (no automatic reading) and resolves once headers arrive. */
function openDataBody(t: TestSim, requestId: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.sim.baseUrl}/v1.0${t.reportPath}/results/${requestId}/data`, {
      headers: { authorization: `Bearer ${t.token}`, 'accept-encoding': 'identity' },
      timeout: REQUEST_TIMEOUT_MS,
    });
    req.on('response', resolve);
    req.on('timeout', () => req.destroy(new Error('data request timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('one large result and other requests', () => {
  let t: TestSim;

  beforeAll(async () => {
    // 200,000 calls on a weekday: a body of about 60 MB.
    t = await startTestSim({ rowsPerDay: 200_000 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves a token and a status request before the data body ends when the client reads it slowly', async () => {
    // Prepare
    const requestId = await requestReport(t, '2026-03-23T00:00:00Z', '2026-03-24T00:00:00Z');
    const events: string[] = [];
    const body = await openDataBody(t, requestId);
    let bytes = 0;
    const ended = new Promise<void>((resolve, reject) => {
      body.on('end', () => {
        events.push('data end');
        resolve();
      });
      body.on('error', reject);
    });
    // Read one chunk, then stop reading while the other requests run.
    await new Promise<void>((resolve) => body.once('data', () => resolve()));
    body.pause();
    // Act
    const token = obtainTokens(t.sim).then(() => events.push('token'));
    const status = t.api(`${t.reportPath}/results/${requestId}`).then(async (r) => {
      await r.json();
      events.push(`status ${r.status}`);
    });
    await Promise.all([token, status]);
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    body.resume();
    await ended;
    // Assess
    expect(events.slice(-1)).toEqual(['data end']);
    expect(events.slice(0, 2).sort()).toEqual(['status 200', 'token']);
    expect(bytes).toBeGreaterThan(10_000_000);
  });
});
