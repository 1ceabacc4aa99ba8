/**
 * The document of the end-to-end bench (bench/e2e.ts) for the export core from a file: the
 * local service started as startLocalDeployment starts it (same rows per day, seed, zero
 * report latency), the same report requested for the same window as the workflow's one job
 * (windowForDates -> toReportPeriod, as Plan and the direct contestant do), and its result
 * body streamed to a file uncompressed. So the export core reads exactly the rows the
 * workflow contestants export.
 *
 * Usage: tsx bench/e2e-document.ts --from D --to D --rows-per-day N --seed N --report NAME --out FILE
 * Last stdout line: {"file":..,"rows":..,"bytes":..,"seconds":..}
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createClient } from '../lib/api/index';
import { toReportPeriod, windowForDates } from '../lib/calendar';
import { loginWithAutoApproval } from '../lib/local/auto-approve-login';
import { startSimulator } from '../lib/simulator/index';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const started = performance.now();
const sim = await startSimulator({
  autoApprove: true,
  reportLatencyMs: 0,
  rowsPerDay: Number(arg('rows-per-day')),
  seed: Number(arg('seed')),
});
try {
  const { accessToken } = await loginWithAutoApproval(sim);
  const api = createClient({ baseUrl: sim.baseUrl, accessToken, workspaceId: sim.workspaceId });
  let reportId: string | undefined;
  for await (const r of api.reporting.listReports()) if (r.name === arg('report')) reportId = r.id;
  if (reportId === undefined) throw new Error(`the service has no report named ${arg('report')}`);
  const window = windowForDates(arg('from'), arg('to'), sim.timeZoneId);
  const run = await api.reporting.requestReport({ reportId, period: toReportPeriod(window) });
  const ref = { reportId, requestId: run.requestId };
  await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 200 });
  const url = `${sim.baseUrl}/v1.0/workspaces/${sim.workspaceId}/reports/${reportId}/results/${run.requestId}/data`;
  // Uncompressed: the file is the JSON body itself.
  const result = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, 'accept-encoding': 'identity' },
    signal: AbortSignal.timeout(600_000),
  });
  if (!result.ok || result.body === null) throw new Error(`the data endpoint answered ${result.status}`);
  const out = arg('out');
  await pipeline(
    Readable.fromWeb(result.body as import('node:stream/web').ReadableStream),
    createWriteStream(out),
  );
  const bytes = (await stat(out)).size;
  const fd = await import('node:fs/promises').then((fs) => fs.open(out, 'r'));
  const head = Buffer.alloc(65_536);
  await fd.read(head, 0, head.length, 0);
  await fd.close();
  const total = /"totalCount"\s*:\s*"?(\d+)/.exec(head.toString('utf8'))?.[1];
  process.stdout.write(
    `${JSON.stringify({
      file: out,
      rows: Number(total),
      bytes,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    })}\n`,
  );
} finally {
  await sim.close();
}
