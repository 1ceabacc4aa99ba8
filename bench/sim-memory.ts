/**
 * Serves one big report result from the simulator (in this process) over loopback,
 * reads it to nowhere, and samples the process RSS while it streams.
 * Prints a final JSON line: {rows, bytes (as sent), seconds, rows_per_s, sim_peak_rss_mb, gzip}.
 *
 *   npx tsx bench/sim-memory.ts [--rows 1000000] [--gzip]
 */
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { loginWithAutoApproval } from '../lib/local/auto-approve-login';
import { ManualClock } from '../lib/simulator/clock';
import { startSimulator } from '../lib/simulator/index';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, gzip: { type: 'boolean', default: false } },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1) {
  process.stderr.write('sim-memory: --rows must be a positive integer\n');
  process.exit(2);
}

// A fixed Monday so the one-day window holds exactly `rows` calls.
const clock = new ManualClock(Date.UTC(2026, 2, 30, 12));
const sim = await startSimulator({
  clock,
  autoApprove: true,
  reportLatencyMs: 0,
  rowsPerDay: rows,
  rowLimit: Math.max(rows, 1_000_000),
});
try {
  const { accessToken: token } = await loginWithAutoApproval(sim);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const reportPath = `${sim.baseUrl}/v1.0/workspaces/${sim.workspaceId}/reports/${sim.reportIds[0]}`;
  const created = await fetch(`${reportPath}/requests`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      reportId: sim.reportIds[0],
      dateFilter: { start: '2026-03-23T00:00:00+00:00', end: '2026-03-24T00:00:00+00:00' },
    }),
  });
  const { data } = (await created.json()) as { data: { requestId: string } };

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  // node:http rather than fetch: the body is counted as sent (fetch would spend the time gunzipping).
  const bytes = await new Promise<number>((resolve, reject) => {
    const req = request(`${reportPath}/results/${data.requestId}/data`, {
      headers: { authorization: headers.authorization, 'accept-encoding': values.gzip ? 'gzip' : 'identity' },
      timeout: 600_000,
    });
    req.on('response', (res) => {
      let count = 0;
      res.on('data', (chunk: Buffer) => {
        count += chunk.length;
      });
      res.on('end', () => resolve(count));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  process.stdout.write(
    `${JSON.stringify({
      rows,
      bytes,
      seconds: Number(seconds.toFixed(3)),
      rows_per_s: Math.round(rows / seconds),
      sim_peak_rss_mb: Math.round(peak / 1_048_576),
      gzip: values.gzip,
    })}\n`,
  );
} finally {
  await sim.close();
}
